"""One's own parallel text as a corpus (tasks/translation/plain_text.py, issue 71 item 4):
the layouts it reads, the splits it carves, each bad file named by file and line, and a
run of each model family trained on it end to end and used afterwards."""

import pytest

import attention_research
from attention_research.errors import ConfigError, InputError
from attention_research.tasks.translation import datasets, plain_text
from configs import base

GERMAN = ["Haus", "Baum", "Hund", "Katze", "Stadt", "Wald", "Fluss", "Berg"]
ENGLISH = ["house", "tree", "dog", "cat", "town", "forest", "river", "mountain"]


def pairs(count, offset=0):
    """``count`` German-English pairs, the i-th of each a translation of the other."""
    found = []
    for i in range(offset, offset + count):
        a, b = i % 8, (i // 8) % 8
        found.append((f"Der {GERMAN[a]} sieht den {GERMAN[b]} {i}.",
                      f"The {ENGLISH[a]} sees the {ENGLISH[b]} {i}."))
    return found


def write_side_files(folder, splits: dict, languages=("de", "en")):
    """``{split: pairs}`` as ``<split>.de`` and ``<split>.en``, one sentence a line."""
    folder.mkdir(parents=True, exist_ok=True)
    for split, rows in splits.items():
        for side, language in enumerate(languages):
            (folder / f"{split}.{language}").write_text(
                "".join(row[side] + "\n" for row in rows), encoding="utf-8")
    return folder


def load(path, tmp_path, source="de", target="en", splits=datasets.SPLITS):
    return datasets.load("plain_text", str(tmp_path / "tfds"), str(path), source, target,
                         splits)


def test_a_folder_of_side_files_with_every_split(tmp_path):
    given = {"train": pairs(50), "dev": pairs(5, 100), "test": pairs(6, 200),
             "test2017": pairs(3, 300)}
    folder = write_side_files(tmp_path / "corpus", given)
    corpus = load(folder, tmp_path, splits=("train", "validation", "test", "test2017"))
    assert corpus.note == ""  # nothing carved
    assert [corpus.pair("validation", i) for i in range(5)] == given["dev"]
    assert [corpus.pair("test2017", i) for i in range(3)] == given["test2017"]
    assert len(corpus.splits["train"]) == 50
    # The other direction is the same files read the other way round.
    reverse = load(folder, tmp_path, "en", "de")
    assert reverse.pair("test", 0) == given["test"][0][::-1]
    # An edited file is another corpus: its subword model is cached apart.
    (folder / "train.en").write_text("".join(e + " !\n" for _, e in given["train"]))
    assert load(folder, tmp_path).data_dir != corpus.data_dir


def test_missing_held_out_splits_are_carved_from_training_with_a_fixed_seed(tmp_path):
    given = pairs(400)
    folder = write_side_files(tmp_path / "corpus", {"train": given})
    tsv = tmp_path / "corpus.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in given), encoding="utf-8")
    from_folder, from_tsv = load(folder, tmp_path), load(tsv, tmp_path)
    sizes = {split: len(from_folder.splits[split]) for split in datasets.SPLITS}
    assert sizes == {"train": 360, "validation": 20, "test": 20}  # 5% each
    assert "validation and test carved" in from_folder.note
    # Both layouts, and every load, carve the same pairs; none is in two splits.
    for split in datasets.SPLITS:
        assert from_folder.splits[split] == from_tsv.splits[split]
    assert from_folder.data_dir.name.split("-")[-1] == from_tsv.data_dir.name.split("-")[-1]
    seen = [from_folder.pair(split, i) for split in datasets.SPLITS
            for i in range(sizes[split])]
    assert sorted(seen) == sorted(given)
    # A given test split is kept; only validation is carved.
    folder = write_side_files(tmp_path / "with_test", {"train": given, "test": pairs(7, 900)})
    corpus = load(folder, tmp_path)
    assert len(corpus.splits["test"]) == 7 and len(corpus.splits["train"]) == 380
    assert corpus.note.startswith("validation carved")


def test_a_folder_of_tsv_files(tmp_path):
    folder = tmp_path / "tsv"
    folder.mkdir()
    for split, rows in {"train": pairs(40), "valid": pairs(4, 50), "test": pairs(4, 60)}.items():
        (folder / f"{split}.tsv").write_text("".join(f"{s}\t{t}\n" for s, t in rows))
    corpus = load(folder, tmp_path, "src", "tgt")
    assert corpus.pair("validation", 0) == pairs(4, 50)[0]


def test_each_bad_file_is_named_with_its_line(tmp_path):
    good = pairs(30)
    cases = {
        "unequal": ({"train.en": good[:-1]}, r"train.de has 30 lines and .*train.en 29"),
        "not_utf8": ({"train.de": b"gut\n\xffnein\n"}, r"train.de line 2 is not UTF-8"),
        "empty_line": ({"train.en": [*good[:4], ("", ""), *good[5:]]},
                       r"train.en line 5 is empty"),
        "one_side": ({"test.de": good[:3]}, r"test.en is missing"),
        "one_language": ({"train.en": None}, r"train.en is missing \(its train files are for "
                                              r"de\)"),
    }
    for name, (changes, message) in cases.items():
        folder = write_side_files(tmp_path / name, {"train": good})
        for file, rows in changes.items():
            side = 0 if file.endswith(".de") else 1
            if rows is None:
                (folder / file).unlink()
                continue
            (folder / file).write_bytes(rows if isinstance(rows, bytes) else "".join(
                row[side] + "\n" for row in rows).encode())
        with pytest.raises(InputError, match=message):
            load(folder, tmp_path)
    tsv = tmp_path / "bad.tsv"
    tsv.write_text("a\tb\nc d\n")
    with pytest.raises(InputError, match=r"bad.tsv line 2 is not 'source<TAB>target': it has "
                                         r"0 tabs"):
        load(tsv, tmp_path)
    tsv.write_text("a\tb\nc\t \n")
    with pytest.raises(InputError, match=r"bad.tsv line 2 has an empty target side"):
        load(tsv, tmp_path)
    with pytest.raises(ConfigError, match=r"has no train.fr \(its train files are for de, "
                                          r"en\): name the languages"):
        load(write_side_files(tmp_path / "langs", {"train": good}), tmp_path, "fr", "en")
    with pytest.raises(ConfigError, match="does not exist"):
        load(tmp_path / "nowhere", tmp_path)
    small = write_side_files(tmp_path / "small", {"train": pairs(2)})
    with pytest.raises(InputError, match=r"has 2 pair\(s\): too few to carve"):
        load(small, tmp_path)


def test_the_config_names_what_a_plain_text_corpus_needs():
    from attention_research.training.config_checks import validate
    config = base.get_config("task=translation,tiny")
    config.task.dataset = "plain_text"
    with pytest.raises(ConfigError, match="plain_text needs task.data_path .* and two "
                                          "different languages"):
        validate(config)


@pytest.mark.slow
@pytest.mark.parametrize("family_config", ["additive", "transformer"])
def test_a_run_trains_on_plain_text_and_is_used_afterwards(family_config, tmp_path):
    """configs/additive.py and configs/transformer.py on one's own files, end to end."""
    import importlib

    from attention_research.api import train
    folder = write_side_files(tmp_path / "corpus", {"train": pairs(300)})
    config = importlib.import_module(f"configs.{family_config}").get_config(
        "task=translation,tiny")
    config.task.update(dataset="plain_text", data_path=str(folder), source_language="de",
                       target_language="en", data_dir=str(tmp_path / "tfds"), vocab_size=60)
    config.train.num_steps = 20
    summary = train(config, tmp_path / "run", progress=False)
    final = summary["members"][0]["final"]
    assert {"test/bleu", "test/chrf"} <= set(final)
    run = attention_research.load(tmp_path / "run")
    assert run.evaluate()["chrf"] == final["test/chrf"]
    (prediction,) = run.predict("Der Hund sieht den Baum 3.")
    assert isinstance(prediction.text, str)
