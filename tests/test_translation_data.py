"""The ding_de_en builder on a small Ding-format file written here; subwords; loading by name."""

import shutil
from pathlib import Path

import pytest

from attention_research.tasks.translation import datasets, ding_de_en, subwords

# Real Ding line shapes: annotations, alternatives, phrases that are not sentences,
# a misaligned line, a comment, and a duplicate German sentence.
DING_LINES = """\
# Version :: test
Aal {m} [zool.] | Aale {pl} :: eel | eels
Haus {n} | Das Haus ist alt. | Wir gehen nach Hause. :: house | The house is old. | We are going home.
schnell {adj} | Er läuft schnell. [ugs.] :: fast | He runs fast. [coll.]
Wir bleiben in Verbindung!; Wir bleiben in Kontakt! :: We'll keep in touch!; We'll stay in touch!
Darf ich fragen, warum? :: May I ask why?
Eins | Zwei. :: One. | Two | Three.
Das Haus ist alt. :: The building is old.
Es regnet. :: It is raining.
"""


def test_a_dictionary_line_yields_only_aligned_sentences():
    assert ding_de_en.parse_line("Aal {m} [zool.] | Aale {pl} :: eel | eels") == []
    assert ding_de_en.parse_line(
        "schnell {adj} | Er läuft schnell. [ugs.] :: fast | He runs fast. [coll.]") == [
            ("Er läuft schnell.", "He runs fast.")]
    assert ding_de_en.parse_line(
        "Wir bleiben in Verbindung!; Wir bleiben in Kontakt! :: "
        "We'll keep in touch!; We'll stay in touch!") == [
            ("Wir bleiben in Verbindung!", "We'll keep in touch!")]
    assert ding_de_en.parse_line("Eins | Zwei. :: One. | Two | Three.") == []  # misaligned
    assert ding_de_en.parse_line("# Version :: test") == []


def test_each_sentence_is_used_once():
    pairs = list(ding_de_en.sentence_pairs(DING_LINES.splitlines()))
    germans = [de for de, _ in pairs]
    assert germans == ["Das Haus ist alt.", "Wir gehen nach Hause.", "Er läuft schnell.",
                       "Wir bleiben in Verbindung!", "Darf ich fragen, warum?", "Es regnet."]
    assert len(set(en for _, en in pairs)) == len(pairs)


def test_splits_are_fixed_by_the_german_sentence():
    names = [ding_de_en.split_of(f"Satz Nummer {i}.") for i in range(2000)]
    assert names == [ding_de_en.split_of(f"Satz Nummer {i}.") for i in range(2000)]
    share = {name: names.count(name) / len(names) for name in ding_de_en.SPLIT_PERCENT}
    assert share["train"] == pytest.approx(0.90, abs=0.03)
    assert share["validation"] == pytest.approx(0.05, abs=0.02)
    assert share["test"] == pytest.approx(0.05, abs=0.02)


def _write_ding_file(path: Path, count: int = 300) -> Path:
    """DING_LINES plus ``count`` generated sentence pairs, enough for all three splits."""
    words = ["Haus", "Baum", "Hund", "Katze", "Stadt", "Wald", "Fluss", "Berg"]
    english = ["house", "tree", "dog", "cat", "town", "forest", "river", "mountain"]
    lines = [DING_LINES]
    for i in range(count):
        a, b = i % 8, (i // 8) % 8
        lines.append(f"Satz {i} {{m}} | Der {words[a]} sieht den {words[b]} Nummer {i}. :: "
                     f"sentence {i} | The {english[a]} sees the {english[b]} number {i}.\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("ding")
    source = _write_ding_file(root / "de-en")
    return datasets.load("ding_de_en", data_dir=str(root / "tfds"), data_path=str(source)), source


def test_the_builder_writes_array_record_splits_with_no_sentence_in_two(small_corpus):
    corpus, source = small_corpus
    sizes = {split: len(corpus.splits[split]) for split in datasets.SPLITS}
    expected = list(ding_de_en.sentence_pairs(source.read_text(encoding="utf-8").splitlines()))
    assert sum(sizes.values()) == len(expected) == 306 and min(sizes.values()) > 0
    assert (corpus.source_language, corpus.target_language) == ("de", "en")
    seen = {}
    for split in datasets.SPLITS:
        for index in range(sizes[split]):
            de, en = corpus.pair(split, index)
            assert ding_de_en.split_of(de) == split
            assert seen.setdefault(de, split) == split and seen.setdefault(en, split) == split
    assert set(seen) == {s for pair in expected for s in pair}
    assert list(corpus.data_dir.glob("ding_de_en-train.array_record*"))


def test_subwords_are_trained_once_and_reused(small_corpus):
    corpus, _ = small_corpus
    train = corpus.texts("train", "de") + corpus.texts("train", "en")
    first = subwords.train_or_load(train, corpus.data_dir, vocab_size=80)
    path = subwords.model_path(corpus.data_dir, 80, "unigram")
    stamp = path.stat().st_mtime_ns
    again = subwords.train_or_load(["never used"], corpus.data_dir, vocab_size=80)
    assert path.stat().st_mtime_ns == stamp
    sentence = "Der Hund sieht den Baum."
    assert first.encode(sentence) == again.encode(sentence)
    assert again.decode(again.encode(sentence)) == sentence
    assert (again.pad_id(), again.bos_id(), again.eos_id()) == (0, 1, 2)
    assert again.get_piece_size() == 80


def test_an_impossible_vocabulary_is_refused_clearly(small_corpus, tmp_path):
    """One line with the most the corpus allows (a new user's small corpus met
    SentencePiece's own text, issue 71)."""
    from attention_research.errors import ConfigError
    with pytest.raises(ConfigError, match=r"task.vocab_size=5000: .* allows at most (\d+) "
                                          r"pieces: pass --config.task.vocab_size=\1 or less"):
        subwords.train_or_load(["ein kurzer Satz."] * 5, tmp_path, vocab_size=5000)
    assert not list(tmp_path.glob("*.model"))  # nothing half-written is left to reuse


def test_a_missing_ding_file_says_how_to_get_it(tmp_path, monkeypatch):
    with pytest.raises(ding_de_en.DingDataMissingError, match="apt-get install trans-de-en"):
        datasets.load("ding_de_en", data_dir=str(tmp_path), data_path=str(tmp_path / "nope"))
    # Nowhere on disk and no network: the download fails and the error says what to do.
    monkeypatch.setattr(ding_de_en, "DEBIAN_PATH", tmp_path / "absent")
    monkeypatch.setattr(ding_de_en, "UPSTREAM_URL", "http://127.0.0.1:9/de-en.txt.gz")
    with pytest.raises(ding_de_en.DingDataMissingError, match="apt-get install trans-de-en"):
        datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"))


def test_a_file_that_is_not_the_ding_dictionary_is_named(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("Some notes.\nNothing :: here is a sentence pair.\n")
    with pytest.raises(ding_de_en.DingDataError, match=f"{text_file} is not the Ding "
                       "dictionary, or too little of it: it holds 0 German :: English"):
        datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"), data_path=str(text_file))
    binary_file = tmp_path / "model.bin"
    binary_file.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ding_de_en.DingDataError, match="not UTF-8 text"):
        datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds2"),
                      data_path=str(binary_file))


def test_unknown_datasets_and_languages_are_refused(small_corpus):
    corpus, source = small_corpus
    with pytest.raises(ValueError, match="unknown translation dataset 'no_such_corpus'"):
        datasets.load("no_such_corpus")
    with pytest.raises(ValueError, match="valid choices: de, en"):
        datasets.load("ding_de_en", data_dir=str(corpus.data_dir.parents[1]),
                      data_path=str(source), source_language="fr")


def test_a_data_path_is_used_or_refused_never_ignored(tmp_path):
    """Issue 72: once a corpus was prepared, a nonexistent task.data_path, or a file with
    other sentences, was ignored and the run trained on the prepared data."""
    from attention_research.errors import ConfigError
    source = _write_ding_file(tmp_path / "de-en")
    tfds_dir = str(tmp_path / "tfds")
    prepared = datasets.load("ding_de_en", data_dir=tfds_dir, data_path=str(source))
    assert datasets.load("ding_de_en", data_dir=tfds_dir, data_path=str(source)).data_dir == \
        prepared.data_dir  # the same file: the prepared data is used
    with pytest.raises(ding_de_en.DingDataMissingError, match="is not a file"):
        datasets.load("ding_de_en", data_dir=tfds_dir, data_path=str(tmp_path / "nowhere"))
    other = _write_ding_file(tmp_path / "other", count=310)
    with pytest.raises(ConfigError, match=r"holds other files than those .* was prepared from"
                                          r".* Delete .* to prepare it again"):
        datasets.load("ding_de_en", data_dir=tfds_dir, data_path=str(other))


def test_damaged_prepared_files_are_named_with_the_remedy(tmp_path):
    from attention_research.errors import RunError
    from attention_research.tasks.translation import subwords
    source = _write_ding_file(tmp_path / "de-en")
    datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"), data_path=str(source))
    # A copy (array_record keeps the files it has opened), then its training file cut.
    shutil.copytree(tmp_path / "tfds", tmp_path / "copy")
    (records,) = (tmp_path / "copy").rglob("ding_de_en-train.array_record*")
    records.write_bytes(records.read_bytes()[:1000])  # as a full disk or a crash leaves it
    damaged = datasets.load("ding_de_en", data_dir=str(tmp_path / "copy"))
    with pytest.raises(RunError, match=rf"prepared dataset in {damaged.data_dir} is damaged .*"
                                       rf"delete {damaged.data_dir} and rerun"):
        damaged.texts("train", "en")
    model = subwords.model_path(tmp_path, 100, "unigram")
    model.write_bytes(b"not a model")
    with pytest.raises(RunError, match=rf"cached subword model {model} is damaged .* delete it "
                                       "and rerun"):
        subwords.train_or_load([], tmp_path, 100)

