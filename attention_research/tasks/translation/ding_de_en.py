"""``ding_de_en``: German→English example sentences from the Ding dictionary, as a TFDS
builder that writes ``array_record`` (so reading it needs no TensorFlow).

The Ding dictionary (Frank Richter, TU Chemnitz, GPL 2+) has one entry per line,
``German fields :: English fields``, fields separated by `` | `` and aligned one to
one. Besides words and phrases, many entries hold example sentences. A pair is kept
when, after cleaning, both aligned fields are sentences:

- annotations ``{n}``, ``[coll.]``, ``<variant>`` are removed; of alternatives
  separated by ``; `` the first is kept;
- a sentence starts with a capital letter (after an opening quote), ends with
  ``.``, ``!``, ``?`` or ``…`` (before any closing quote) and has at least two words;
- each German and each English sentence is used once (the first pair that has it),
  so no sentence can appear in two splits.

Splits are fixed by a hash of the German sentence (SHA-256, mod 100): 0–89 train,
90–94 validation, 95–99 test. They do not depend on the file's order or version.
From the 2023-01-30 file (Debian ``trans-de-en`` 1.9) this gives about 20.8k pairs.

The file is looked for, in order, at: the ``source_path`` given to the builder
(``--config.task.data_path``), TFDS's manual directory (``<data_dir>/downloads/manual/de-en``),
``/usr/share/trans/de-en`` (Debian/Ubuntu package ``trans-de-en``), and finally the
upstream download.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import urllib.request
from pathlib import Path
from typing import Iterable, Iterator

import tensorflow_datasets as tfds

from attention_research.errors import RunError
from attention_research.tasks.translation.local_builder import LocalFilesBuilder

DEBIAN_PATH = Path("/usr/share/trans/de-en")
UPSTREAM_URL = "https://ftp.tu-chemnitz.de/pub/Local/urz/ding/de-en/de-en.txt.gz"
MANUAL_NAME = "de-en"
SPLIT_PERCENT = {"train": (0, 90), "validation": (90, 95), "test": (95, 100)}
HOW_TO_GET_IT = (
    "The Ding dictionary file is not installed. Get it in one of these ways:\n"
    "  - apt-get install trans-de-en            (Debian/Ubuntu; installs /usr/share/trans/de-en)\n"
    f"  - download {UPSTREAM_URL}, unpack it, and pass --config.task.data_path=/path/to/de-en\n"
    "    (or put it at <tfds data_dir>/downloads/manual/de-en)")
GET_THE_REAL_FILE = "Get the real file in one of these ways:\n" + HOW_TO_GET_IT.split("\n", 1)[1]

_ANNOTATION = re.compile(r"\s*(\{[^}]*\}|\[[^\]]*\]|<[^>]*>)")
_SENTENCE_END = re.compile(r"[.!?…][\"'“”‘’»«)]*$")
_OPENING = "\"'„“‚‘»«("


class DingDataMissingError(FileNotFoundError):
    """The Ding file is nowhere to be found; the message says how to get it."""


class DingDataError(RunError):
    """The file given as the Ding dictionary is not one (too few sentence pairs)."""


def clean_field(field: str) -> str:
    """Drop annotations, keep the first of ``; ``-separated alternatives."""
    field = _ANNOTATION.sub("", field).strip()
    field = field.split("; ")[0].strip()
    return re.sub(r"\s+", " ", field)


def is_sentence(text: str) -> bool:
    first = text.lstrip(_OPENING)[:1]
    return first.isupper() and bool(_SENTENCE_END.search(text)) and len(text.split()) >= 2


def parse_line(line: str) -> list[tuple[str, str]]:
    """The (German, English) sentence pairs of one dictionary line."""
    line = line.rstrip("\n")
    if line.startswith("#") or " :: " not in line:
        return []
    german, english = line.split(" :: ", 1)
    german_fields, english_fields = german.split(" | "), english.split(" | ")
    if len(german_fields) != len(english_fields):  # not aligned: nothing can be trusted
        return []
    pairs = []
    for de, en in zip(german_fields, english_fields):
        de, en = clean_field(de), clean_field(en)
        if is_sentence(de) and is_sentence(en):
            pairs.append((de, en))
    return pairs


def sentence_pairs(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Every kept pair, each German and each English sentence once, in file order."""
    seen_german, seen_english = set(), set()
    for line in lines:
        for de, en in parse_line(line):
            if de in seen_german or en in seen_english:
                continue
            seen_german.add(de)
            seen_english.add(en)
            yield de, en


def split_of(german: str) -> str:
    bucket = int(hashlib.sha256(german.encode("utf-8")).hexdigest(), 16) % 100
    return next(name for name, (low, high) in SPLIT_PERCENT.items() if low <= bucket < high)


def find_source(source_path: str | None, manual_dir: Path | None) -> Path | None:
    """The first place that has the file, or None (then it must be downloaded)."""
    if source_path:
        path = Path(source_path).expanduser()
        if not path.is_file():
            raise DingDataMissingError(f"task.data_path={source_path!r} is not a file.\n"
                                       + HOW_TO_GET_IT)
        return path
    candidates = ([Path(manual_dir) / MANUAL_NAME] if manual_dir else []) + [DEBIAN_PATH]
    return next((path for path in candidates if path.is_file()), None)


def download(directory: Path, timeout_s: float = 30.0) -> Path:
    """Fetch and unpack the upstream file into ``directory``; fail fast with instructions.

    A plain urllib download rather than TFDS's download manager, which retries for
    minutes before giving up on a machine without the internet.
    """
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / MANUAL_NAME
    partial = target.with_suffix(".partial")
    try:
        with urllib.request.urlopen(UPSTREAM_URL, timeout=timeout_s) as response, \
                gzip.open(response) as unpacked, open(partial, "wb") as out:
            shutil.copyfileobj(unpacked, out)
    except (OSError, EOFError) as error:  # no network, server gone, truncated file, …
        partial.unlink(missing_ok=True)
        raise DingDataMissingError(
            f"could not download {UPSTREAM_URL} ({type(error).__name__}: {error}).\n"
            + HOW_TO_GET_IT) from error
    partial.replace(target)
    return target


class DingDeEn(LocalFilesBuilder):
    """German→English sentence pairs from the Ding dictionary (see the module docstring)."""

    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Sentence pairs, hash splits 90/5/5."}
    MANUAL_DOWNLOAD_INSTRUCTIONS = HOW_TO_GET_IT

    def _info(self) -> tfds.core.DatasetInfo:
        return self.dataset_info_from_configs(
            features=tfds.features.Translation(languages=("de", "en")),
            supervised_keys=("de", "en"),
            homepage="https://dict.tu-chemnitz.de/",
            description=__doc__)

    def _split_generators(self, dl_manager):
        manual_dir = self.manual_dir(dl_manager)
        path = find_source(self._source_path, manual_dir)
        if path is None:
            path = download(Path(dl_manager.download_dir))
        by_split = {name: [] for name in SPLIT_PERCENT}
        try:
            with open(path, encoding="utf-8") as lines:
                for index, (de, en) in enumerate(sentence_pairs(lines)):
                    by_split[split_of(de)].append((index, de, en))
        except UnicodeDecodeError as error:
            raise DingDataError(f"{path} is not the Ding dictionary: it is not UTF-8 text "
                                f"({error.reason} at byte {error.start}).\n"
                                + GET_THE_REAL_FILE) from None
        empty = [name for name, rows in by_split.items() if not rows]
        if empty:
            found = sum(map(len, by_split.values()))
            raise DingDataError(
                f"{path} is not the Ding dictionary, or too little of it: it holds {found} "
                f"German :: English sentence pair(s), and split(s) {', '.join(empty)} got "
                "none (the real file gives about 19,000).\n" + GET_THE_REAL_FILE)
        return {name: self._generate_examples(rows) for name, rows in by_split.items()}

    def _generate_examples(self, rows):
        for index, de, en in rows:
            yield index, {"de": de, "en": en}
