"""The multi30k builder on a small synthetic copy in the repository's layout, made here;
one test reads the real copy where this machine has it (../shared/data/multi30k)."""

import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from attention_research.tasks.translation import datasets, multi30k

# The offline copy: $ATTENTION_RESEARCH_MULTI30K where set (.ci/run sets it), else
# shared/data/multi30k beside the repository root or beside any folder above it (this
# project's machines keep it at ../shared/data/multi30k), so that any clone finds it.
ENVIRONMENT = "ATTENTION_RESEARCH_MULTI30K"


def _offline_copy() -> Path:
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    root = Path(__file__).resolve().parents[1]
    for folder in (root, *root.parents):
        if (folder / "shared" / "data" / "multi30k").is_dir():
            return folder / "shared" / "data" / "multi30k"
    return root.parent / "shared" / "data" / "multi30k"


REAL_COPY = _offline_copy()
NO_COPY = (f"no offline copy of Multi30k here: set {ENVIRONMENT} to its folder (on this "
           "project's machines, shared/data/multi30k beside the checkout)")
ANIMALS = [("Hund", "dog"), ("Katze", "cat"), ("Pferd", "horse"), ("Vogel", "bird"),
           ("Fuchs", "fox"), ("Schaf", "sheep"), ("Ziege", "goat"), ("Bär", "bear")]
COLOURS = [("rote", "red"), ("blaue", "blue"), ("grüne", "green"), ("gelbe", "yellow"),
           ("schwarze", "black")]
PLACES = [("im Park", "in the park"), ("am Strand", "on the beach"),
          ("auf der Straße", "on the street"), ("im Schnee", "in the snow")]
VERBS = [("läuft", "runs"), ("springt", "jumps"), ("schläft", "sleeps"), ("spielt", "plays"),
         ("wartet", "waits")]
TAGS = {"train": ("Ein", "A"), "val": ("Zwei", "Two"), "test_2016_flickr": ("Drei", "Three"),
        "test_2017_flickr": ("Vier", "Four"), "test_2017_mscoco": ("Fünf", "Five"),
        "test_2018_flickr": ("Sechs", "Six")}
COUNTS = {"train": 400, "val": 8, "test_2016_flickr": 8, "test_2017_flickr": 6,
          "test_2017_mscoco": 5, "test_2018_flickr": 7}


def write_fixture(folder: Path) -> dict:
    """Multi30k's twelve raw files with a few generated image descriptions each, and
    their {name: (sha256, lines)}, the shape of ``multi30k.FILES``."""
    folder.mkdir(parents=True, exist_ok=True)
    checksums = {}
    for stem, count in COUNTS.items():
        lines = {"de": [], "en": []}
        for i in range(count):
            (animal_de, animal_en), (place_de, place_en) = ANIMALS[i % 8], PLACES[(i // 8) % 4]
            verb_de, verb_en = VERBS[(i // 32) % 5]
            colour_de, colour_en = COLOURS[(i // 3) % 5]
            # Each split its own sentences (a count word), each line its own number.
            lines["de"].append(f"{TAGS[stem][0]} {colour_de} {animal_de} {verb_de} {place_de} {i}.")
            lines["en"].append(f"{TAGS[stem][1]} {colour_en} {animal_en} {verb_en} {place_en} {i}.")
        for language, sentences in lines.items():
            path = folder / f"{stem}.{language}.gz"
            # mtime=0: the same bytes, and checksum, every time.
            with gzip.GzipFile(path, "wb", mtime=0) as out:
                out.write("".join(f"{s}\n" for s in sentences).encode("utf-8"))
            checksums[path.name] = (multi30k.sha256(path), count)
    return checksums


@pytest.fixture
def fixture_copy(tmp_path, monkeypatch):
    folder = tmp_path / "raw"
    monkeypatch.setattr(multi30k, "FILES", write_fixture(folder))
    return folder


@pytest.mark.slow
def test_the_builder_prepares_every_split_in_both_directions(fixture_copy, tmp_path):
    corpus = datasets.load("multi30k", data_dir=str(tmp_path / "tfds"),
                           data_path=str(fixture_copy),
                           splits=("train", "validation", "test", "test2017", "mscoco2017",
                                   "test2018"))
    assert (corpus.source_language, corpus.target_language) == ("de", "en")  # de→en default
    assert {name: len(split) for name, split in corpus.splits.items()} == {
        "train": 400, "validation": 8, "test": 8, "test2017": 6, "mscoco2017": 5,
        "test2018": 7}
    # Records keep the files' line order, so line i of test is test_2016_flickr's line i.
    assert corpus.pair("test", 5) == ("Drei blaue Schaf läuft im Park 5.",
                                      "Three blue sheep runs in the park 5.")
    assert corpus.pair("mscoco2017", 4)[1] == "Five blue fox runs in the park 4."
    english_first = datasets.load("multi30k", data_dir=str(tmp_path / "tfds"),
                                  source_language="en", target_language="de")
    assert english_first.pair("test", 5) == corpus.pair("test", 5)[::-1]  # already prepared
    assert (tmp_path / "tfds" / "multi30k" / "1.0.0" / "dataset_info.json").is_file()
    assert list((tmp_path / "tfds" / "multi30k" / "1.0.0").glob("*.array_record*"))


def test_the_manual_directory_is_read_when_no_path_is_given(fixture_copy, tmp_path):
    manual = tmp_path / "tfds" / "downloads" / "manual" / "multi30k"
    manual.parent.mkdir(parents=True)
    fixture_copy.rename(manual)
    corpus = datasets.load("multi30k", data_dir=str(tmp_path / "tfds"))
    assert len(corpus.splits["train"]) == 400


def test_a_file_that_is_not_the_pinned_one_is_refused_by_name(fixture_copy, tmp_path):
    """The WMT16 copy of the validation set differs from the repository's: a checksum
    catches it, and the error says which file and why."""
    with gzip.open(fixture_copy / "val.de.gz", "wt", encoding="utf-8") as out:
        out.write("Ein anderer Satz.\n" * 8)
    with pytest.raises(multi30k.Multi30kDataError, match=r"val\.de\.gz.*WMT16"):
        datasets.load("multi30k", data_dir=str(tmp_path / "tfds"), data_path=str(fixture_copy))


def test_missing_files_get_one_error_naming_them_and_where_to_get_them(fixture_copy,
                                                                        tmp_path):
    (fixture_copy / "test_2018_flickr.en.gz").unlink()
    with pytest.raises(multi30k.Multi30kDataMissingError) as error:
        datasets.load("multi30k", data_dir=str(tmp_path / "tfds"), data_path=str(fixture_copy))
    message = str(error.value)
    assert "test_2018_flickr.en.gz" in message and "task.data_path" in message
    assert "multi30k/dataset" in message and "downloads/manual/multi30k" in message
    with pytest.raises(multi30k.Multi30kDataMissingError, match="is not a folder"):
        datasets.load("multi30k", data_dir=str(tmp_path / "tfds"),
                      data_path=str(tmp_path / "nowhere"))


def test_offline_with_no_copy_fails_fast_with_instructions(tmp_path, monkeypatch):
    """Without the internet TFDS's download manager retries for minutes; the builder
    checks the host first and says at once how to get the files."""
    monkeypatch.setattr(multi30k, "reachable", lambda *a, **k: False)
    with pytest.raises(multi30k.Multi30kDataMissingError, match="task.data_path"):
        datasets.load("multi30k", data_dir=str(tmp_path / "tfds"))


@pytest.mark.skipif(not REAL_COPY.is_dir(), reason=NO_COPY)
def test_the_real_copy_is_the_pinned_commit():
    """Every file of the offline copy has the pinned checksum and line count, and each
    split's two languages have as many lines as the paper's splits."""
    for name, (_, lines) in multi30k.FILES.items():
        multi30k.check_file(REAL_COPY / name, name)
        assert len(multi30k.read_lines(REAL_COPY / name)) == lines, name
    sizes = {split: multi30k.FILES[f"{stem}.de.gz"][1]
             for split, stem in multi30k.SPLIT_FILES.items()}
    assert sizes == {"train": 29000, "validation": 1014, "test": 1000, "test2017": 1000,
                     "mscoco2017": 461, "test2018": 1071}


@pytest.mark.slow
@pytest.mark.skipif(not REAL_COPY.is_dir(), reason=NO_COPY)
def test_every_real_test_reference_survives_the_models_output_space(tmp_path):
    """A test reference encoded into the default 2,000 pieces and decoded back (with the
    training targets' restoration, as hypotheses are) is itself: every reference can
    be written by the model, so no BLEU is lost to normalisation (SentencePiece maps
    "…" to "...": ding_de_en needed the restoration; Multi30k needs none)."""
    from attention_research.tasks.translation import subwords
    read = lambda name: multi30k.read_lines(REAL_COPY / name)  # the records' text
    processor = subwords.train_or_load(read("train.de.gz") + read("train.en.gz"), tmp_path,
                                       2000)
    restoring = subwords.restoration(read("train.en.gz"))
    references = read("test_2016_flickr.en.gz")
    assert len(references) == 1000
    decoded = subwords.restore([processor.decode(processor.encode(r)) for r in references],
                               restoring)
    assert [r for r, d in zip(references, decoded) if r != d] == []


@pytest.mark.slow
def test_a_tiny_run_on_multi30k_reports_both_bleus_in_the_files_order(fixture_copy, tmp_path):
    """The default corpus end to end: ``task=translation,tiny`` with ``task.data_path``
    trains, and its final evaluation reports cased and lowercased BLEU and chrF of the
    test split, whose translations are written in test_2016_flickr's line order; the
    splits of ``task.also_translate`` are scored and written beside it."""
    from attention_research.tasks.translation import metrics
    from attention_research.api import train
    from configs import base
    config = base.get_config("task=translation,tiny")
    assert config.task.dataset == "multi30k"
    from tests.conftest import TINY_TEST_VOCAB
    config.task.update(data_dir=str(tmp_path / "tfds"), data_path=str(fixture_copy),
                       vocab_size=TINY_TEST_VOCAB, also_translate=("test2017", "test2018"))
    summary = train(config, tmp_path / "run", progress=False)
    final = summary["members"][0]["final"]
    assert {"test/bleu", "test/bleu_lc", "test/chrf", "eval/bleu_lc/validation",
            "test2017/bleu", "test2018/chrf"} <= set(final)
    for split, file in (("test2017", "test_2017_flickr"), ("test2018", "test_2018_flickr")):
        written = tmp_path / "run" / "translations" / f"{split}.source.txt"
        assert written.read_text().splitlines() == multi30k.read_lines(
            fixture_copy / f"{file}.de.gz")
    folder = tmp_path / "run" / "translations"
    sources = (folder / "test.source.txt").read_text().splitlines()
    assert sources == multi30k.read_lines(fixture_copy / "test_2016_flickr.de.gz")
    hypotheses = (folder / "test.hypothesis.txt").read_text().splitlines()
    references = (folder / "test.reference.txt").read_text().splitlines()
    assert metrics.corpus_scores(hypotheses, references)["bleu_lc"] == pytest.approx(
        final["test/bleu_lc"])


@pytest.mark.slow
def test_a_length_penalty_search_translates_each_member_at_its_chosen_alpha(fixture_copy,
                                                                            tmp_path,
                                                                            monkeypatch):
    """task.length_penalty_search in a cohort of two: each member's summary holds every
    alpha's validation BLEU and length ratios, which ``best_length_penalty`` reads, and
    the final splits are translated at each member's own alpha ('<split>.lp_tuned'),
    scored as written. The choice is forced apart here (5 for the first member, the
    configured 0.6 for the second): the second's tuned translations are its plain ones,
    the first's are not (alphas neither dropped nor shared)."""
    from attention_research.tasks.translation import metrics
    from attention_research.training.evaluation import corpus
    from attention_research.api import train_cohort
    from configs import base
    from tests.conftest import TINY_TEST_VOCAB
    forced, read = iter([5.0, 0.6]), []

    def choose(measured, min_ratio, default, select):
        read.append((measured, min_ratio, default, select))
        return next(forced)
    monkeypatch.setattr(corpus, "best_length_penalty", choose)
    configs = []
    for seed in (0, 1):
        config = base.get_config("task=translation,tiny")
        config.seed = seed
        config.task.update(data_dir=str(tmp_path / "tfds"), data_path=str(fixture_copy),
                           vocab_size=TINY_TEST_VOCAB, also_translate=("test2017",),
                           length_penalty_search=(config.task.length_penalty, 5.0),
                           length_penalty_min_ratio=0.5)
        configs.append(config)
    runs = [tmp_path / f"seed-{seed}" for seed in (0, 1)]
    summaries = train_cohort(configs, runs, tmp_path / "checkpoints", progress=False)
    for member, (run, summary) in enumerate(zip(runs, summaries)):
        final = summary["members"][0]["final"]
        search = json.loads((run / "summary.json").read_text())["decoding"][
            "length_penalty_search"]
        assert list(search["validation"]) == ["0.6", "5.0"]
        assert set(search["validation"]["5.0"]) == {"bleu", "length_ratio",
                                                    "long_length_ratio"}
        measured, min_ratio, default, select = read[member]
        assert {str(a): m for a, m in measured.items()} == search["validation"]
        assert (min_ratio, default, select) == (0.5, 0.6, "bleu") == (
            search["min_ratio"], config.task.length_penalty, search["select"])
        assert search["chosen"] == [5.0, 0.6][member] == final["validation/length_penalty_chosen"]
        folder = run / "translations"
        differs = []
        for split in ("test", "test2017"):
            tuned = (folder / f"{split}.lp_tuned.hypothesis.txt").read_text()
            references = (folder / f"{split}.reference.txt").read_text().splitlines()
            assert metrics.corpus_scores(tuned.splitlines(), references)["bleu"] == (
                pytest.approx(final[f"{split}.lp_tuned/bleu"]))
            differs.append(tuned != (folder / f"{split}.hypothesis.txt").read_text())
        # Alpha 5 changes some of the tiny model's outputs (not every split's: most fill
        # the maximum length at any alpha); the configured one changes none.
        assert any(differs) if member == 0 else not any(differs), (member, differs)


def test_the_length_penalty_search_takes_the_best_eligible_validation_bleu():
    """The best BLEU among alphas whose long outputs are long enough; none is: the
    longest long outputs; a tie goes to the alpha nearest the configured one, then the
    larger."""
    from attention_research.training.evaluation.corpus import best_length_penalty

    def measured(*rows):
        return {a: {"bleu": b, "long_length_ratio": r} for a, b, r in rows}
    grid = measured((0.0, 20.1, 0.90), (0.6, 21.3, 0.93), (1.0, 21.0, 0.96), (2.0, 19.0, 1.02))
    assert best_length_penalty(grid) == 0.6
    assert best_length_penalty(grid, min_ratio=0.95) == 1.0
    assert best_length_penalty(grid, min_ratio=1.1) == 2.0
    tied = measured((0.0, 21.3, 0.9), (0.4, 21.3, 0.9), (0.8, 21.3, 0.9), (1.5, 20.0, 0.9))
    assert best_length_penalty(tied, default=0.6) == 0.8
    assert best_length_penalty(tied, default=0.0) == 0.0
    # 'smallest': the least alpha long enough, whatever BLEU (flat, say); none is long
    # enough: the longest, as with 'bleu'.
    flat = measured((0.6, 40.0, 0.89), (1.0, 40.3, 0.91), (1.2, 40.1, 0.99), (1.3, 40.2, 1.0),
                    (1.4, 40.4, 1.01), (1.5, 40.0, 1.02))
    assert best_length_penalty(flat, 1.0, select="smallest") == 1.3
    assert best_length_penalty(flat, 1.0, select="bleu") == 1.4
    assert best_length_penalty(flat, 1.1, select="smallest") == 1.5


@pytest.mark.parametrize("search, beam, ratio, problem", [
    ((0.6, 0.6), 4, 0.0, "distinct alphas >= 0"), ((-0.2,), 4, 0.0, "distinct alphas >= 0"),
    ((0.6,), 1, 0.0, "needs beam search"), ((0.6,), 4, -0.1, "min_ratio must be >= 0"),
    ((0.6,), 4, 0.0, "length_penalty_select must be one of bleu, smallest")])
def test_a_length_penalty_search_it_cannot_run_is_refused(search, beam, ratio, problem):
    from attention_research.tasks import get_task
    from configs import base
    config = base.get_config("task=translation,tiny")
    config.task.update(length_penalty_search=search, beam_size=beam,
                       length_penalty_min_ratio=ratio,
                       length_penalty_select="shortest" if "select" in problem else "bleu")
    with pytest.raises(ValueError, match=problem):
        get_task("translation").validate(config)


@pytest.mark.slow
def test_two_jobs_preparing_at_once_both_open_the_corpus(fixture_copy, tmp_path):
    # The two --part jobs of a sweep on a fresh machine: before, the second's rename of
    # its temporary folder onto the first's finished one failed.
    barrier = threading.Barrier(2)
    results, errors = [], []

    def job():
        barrier.wait()
        try:
            results.append(datasets.load("multi30k", data_dir=str(tmp_path / "tfds"),
                                         data_path=str(fixture_copy)))
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=job) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert [len(corpus.splits["train"]) for corpus in results] == [400, 400]
