"""Plain parallel text: a researcher's own corpus, and their own files to evaluate on.

A corpus (``--config.task.dataset=plain_text --config.task.data_path=PATH``, with the
two languages named by ``task.source_language`` and ``task.target_language``) is one of:

* a folder of files one sentence a line, ``<split>.<language>``: ``train.de`` and
  ``train.en``, optionally ``validation.de`` / ``validation.en`` (also called ``valid``
  or ``dev``), ``test.*`` and any other split (``test2017.*``), as JoeyNMT, fairseq and
  OpenNMT-py read them;
* a folder of ``<split>.tsv`` files, or one ``.tsv`` file (the training pairs): source
  TAB target, one pair a line.

Every file is UTF-8 with no empty line (or empty side), and the two sides of a split
have as many lines: each fault is refused with the file and the line. A validation or
test split the data lacks is carved from the training pairs with a fixed seed
(``CARVE_SEED``): ``HELD_OUT_FRACTION`` of them, at least 1 and at most ``HELD_OUT_MAX``,
taken out of training. The corpus is read whole (it is the kind a researcher brings:
thousands to a few million lines) and named by a digest of its pairs, so the subword
model trained on its training split is cached per content: an edited file gets a new one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from attention_research.errors import ConfigError, InputError

NAME = "plain_text"
HELD_OUT = ("validation", "test")  # carved from training when the data lacks them
VALIDATION_NAMES = ("validation", "valid", "dev")  # file stems read as the validation split
HELD_OUT_FRACTION, HELD_OUT_MAX = 0.05, 1000
CARVE_SEED = 0


def read_lines(path) -> list[str]:
    """The lines of a UTF-8 text file, one sentence each (no empty line)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path} does not exist" if not path.exists()
                         else f"{path} is not a file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path} line {line} is not UTF-8 (byte {data[error.start]:#04x}): "
                         "save the file as UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    lines = [line.removesuffix("\r") for line in lines]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise InputError(f"{path} line {number} is empty: one input a line, none empty")
    if not lines:
        raise InputError(f"{path} is empty: one sentence a line")
    return lines


def read_parallel(source_path, target_path) -> tuple[list[str], list[str]]:
    """Two files of the same number of lines, line i of one translating line i of the
    other."""
    sources, targets = read_lines(source_path), read_lines(target_path)
    if len(sources) != len(targets):
        raise InputError(f"{source_path} has {len(sources)} lines and {target_path} "
                         f"{len(targets)}: line i of one must translate line i of the other")
    return sources, targets


def read_tsv(path) -> tuple[list[str], list[str]]:
    """Source TAB target, one pair a line."""
    sources, targets = [], []
    for number, line in enumerate(read_lines(path), 1):
        sides = line.split("\t")
        if len(sides) != 2:
            raise InputError(f"{path} line {number} is not 'source<TAB>target': it has "
                             f"{len(sides) - 1} tabs, not 1")
        empty = [side for side, text in zip(("source", "target"), sides) if not text.strip()]
        if empty:
            raise InputError(f"{path} line {number} has an empty {' and '.join(empty)} side: "
                             "one pair a line, both sides non-empty")
        sources.append(sides[0])
        targets.append(sides[1])
    return sources, targets


def _split_name(stem: str) -> str:
    return "validation" if stem in VALIDATION_NAMES else stem


def find_splits(data_path, source_language: str, target_language: str) -> dict:
    """{split: (source, target) lists} as the files of ``data_path`` hold them."""
    path = Path(data_path).expanduser()
    if path.is_file():
        if path.suffix != ".tsv":
            raise ConfigError(f"task.data_path={str(data_path)!r} is a file but not a .tsv: "
                              "give a .tsv of source<TAB>target lines, or a folder of "
                              f"train.{source_language or 'SRC'} and "
                              f"train.{target_language or 'TGT'} files")
        return {"train": read_tsv(path)}
    if not path.is_dir():
        raise ConfigError(f"task.data_path={str(data_path)!r} does not exist: give a folder of "
                          "train.<source language> and train.<target language> files (one "
                          "sentence a line), a folder of train.tsv, or one .tsv file")
    files = sorted(p.name for p in path.iterdir() if p.is_file())
    stems = {}
    if "train.tsv" in files:
        for name in files:
            if name.endswith(".tsv"):
                stems.setdefault(_split_name(name[:-4]), []).append(name)
        _one_each(path, stems)
        return {split: read_tsv(path / names[0]) for split, names in stems.items()}
    languages = sorted({name.split(".", 1)[1] for name in files
                        if name.startswith("train.") and "." not in name[6:]})
    if not {source_language, target_language} <= set(languages):
        missing = [f"train.{lang}" for lang in (source_language, target_language)
                   if lang not in languages]
        found = (f"its train files are for {', '.join(languages)}" if languages
                 else f"it holds {', '.join(files[:8]) or 'no file'}")
        if len(languages) == 1:  # one side is there: the other file is what is missing
            raise InputError(f"{path / missing[0]} is missing ({found}): one file a language, "
                             "line i of each a pair")
        raise ConfigError(
            f"task.data_path={str(data_path)!r} has no {' or '.join(missing)} ({found}): "
            "name the languages of the files with "
            "task.source_language and task.target_language, or give a folder of train.tsv")
    for name in files:
        stem, _, language = name.rpartition(".")
        if language in (source_language, target_language) and stem and "." not in stem:
            stems.setdefault(_split_name(stem), []).append(name)
    splits = {}
    for split, names in stems.items():
        by_language = {name.rpartition(".")[2]: name for name in names}
        if len(names) != len(by_language):
            _one_each(path, {split: names})
        missing = [f"{names[0].rpartition('.')[0]}.{language}"
                   for language in (source_language, target_language)
                   if language not in by_language]
        if missing:
            raise InputError(f"{path / missing[0]} is missing: "
                             f"{path / names[0]} has no other side")
        splits[split] = read_parallel(path / by_language[source_language],
                                      path / by_language[target_language])
    return splits


def _one_each(path: Path, stems: dict) -> None:
    for split, names in stems.items():
        if len(set(n.rpartition(".")[2] for n in names)) != len(names):
            raise InputError(f"{path} holds {', '.join(names)}: each would be the {split} "
                             "split; keep one name")


def carve(splits: dict) -> tuple[dict, list[str]]:
    """The held-out splits the data lacks (``HELD_OUT``), taken out of training with a
    fixed seed; and which were carved."""
    missing = [split for split in HELD_OUT if split not in splits]
    if not missing:
        return splits, []
    sources, targets = splits["train"]
    count = len(sources)
    size = max(1, min(HELD_OUT_MAX, round(HELD_OUT_FRACTION * count)))
    if count <= size * len(missing):
        raise InputError(f"the training split has {count} pair(s): too few to carve "
                         f"{' and '.join(missing)} from ({size} pair(s) each) and still train;"
                         f" give {' and '.join(missing)} files, or more pairs")
    order = np.random.default_rng(CARVE_SEED).permutation(count)
    carved, taken = dict(splits), []
    for i, split in enumerate(missing):
        rows = sorted(order[i * size:(i + 1) * size])
        carved[split] = ([sources[r] for r in rows], [targets[r] for r in rows])
        taken.extend(rows)
    kept = sorted(set(range(count)) - set(taken))
    carved["train"] = ([sources[r] for r in kept], [targets[r] for r in kept])
    return carved, missing


def digest(splits: dict, source_language: str, target_language: str) -> str:
    """A name for the corpus's content: its languages and every split's pairs."""
    hasher = hashlib.sha256(f"{source_language}\t{target_language}".encode())
    for split in sorted(splits):
        hasher.update(f"\0{split}\0".encode())
        for side in splits[split]:
            for line in side:
                hasher.update(line.encode("utf-8") + b"\n")
    return hasher.hexdigest()[:16]


def records(splits: dict, source_language: str, target_language: str) -> dict:
    """{split: [{source_language: text, target_language: text}, …]}: a random-access
    source of records, as datasets.Corpus holds a TFDS split."""
    return {split: [{source_language: s, target_language: t} for s, t in zip(*pairs)]
            for split, pairs in splits.items()}
