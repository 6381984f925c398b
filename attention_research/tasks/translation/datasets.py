"""Translation corpora: the built-in ``multi30k`` and ``ding_de_en``, any TFDS
translation dataset by name (``wmt14_translate/de-en``, ``ted_hrlr_translate/pt_to_en``, …),
or a researcher's own plain parallel text (``plain_text``: ``plain_text.py``).

Every corpus is prepared once as ``array_record`` and read with random access
(``as_data_source``), which needs no TensorFlow. Building a catalog dataset such as
WMT does need TensorFlow and the internet the first time; the built-in corpora need
neither (see ``multi30k.py`` and ``ding_de_en.py`` for where they find their files).
"""

from __future__ import annotations

import fcntl
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import tensorflow_datasets as tfds

from attention_research.errors import ConfigError, RunError

# Importing a builder registers it with TFDS.
from attention_research.tasks.translation import ding_de_en, multi30k, plain_text

SPLITS = ("train", "validation", "test")
# The built-in corpora, which read their files from ``task.data_path`` when given.
BUILT_IN = {"multi30k": "a folder of its raw .gz files", "ding_de_en": "the Ding file",
            plain_text.NAME: "a folder of train.<language> files or of train.tsv, or a .tsv"}
# Corpora whose texts may not be committed into the project (their licences): a record
# keeps a member's hypotheses and each sentence's scoring statistics, never the sources
# or references (record.py; metrics.SENTENCE_COLUMNS).
NOT_REDISTRIBUTED = {"multi30k": "partly derived from Flickr30K, for non-commercial "
                                 "research and education only; do not commit its files"}


@dataclass
class Corpus:
    """One prepared translation dataset: its splits and which field is which language."""

    name: str
    source_language: str
    target_language: str
    splits: dict  # split name -> random-access source of {language: text} records
    data_dir: Path  # where the prepared files are (the subword model is cached here)
    note: str = ""  # what a user should know of how it was read (plain_text's carved splits)

    def pair(self, split: str, index: int) -> tuple[str, str]:
        record = self.splits[split][index]
        return as_text(record[self.source_language]), as_text(record[self.target_language])

    def texts(self, split: str, language: str) -> list[str]:
        return [as_text(record[language]) for record in self.splits[split]]


def as_text(value) -> str:
    """A record's text field as str (data sources give bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def load(name: str, data_dir: str | None = None, data_path: str | None = None,
         source_language: str = "", target_language: str = "",
         splits: Sequence[str] = SPLITS) -> Corpus:
    """Prepare (once) and open a translation dataset.

    ``data_path`` is where a built-in corpus finds its files (``BUILT_IN``). The
    languages default to the dataset's supervised keys (source, target). Unknown names,
    languages and splits are refused with the valid choices.
    """
    if name == plain_text.NAME:
        return _plain_text(data_dir, data_path, source_language, target_language, splits)
    kwargs = {"data_dir": data_dir, "file_format": "array_record"}
    if name in BUILT_IN:
        kwargs["source_path"] = data_path or None
    elif data_path:
        raise ConfigError(
            f"task.data_path is for the built-in corpora only ("
            + "; ".join(f"{n}: {what}" for n, what in BUILT_IN.items())
            + f"); {name!r} is a TFDS catalog dataset and finds its own data")
    source = _source_digests(name, data_path) if data_path else None  # a bad path: refused
    try:
        builder = tfds.builder(name, **kwargs)
    except tfds.core.registered.DatasetNotFoundError as error:
        raise ConfigError(f"unknown translation dataset {name!r}: {error}") from error
    if not _prepared(builder):
        builder = _prepare_once(builder, lambda: tfds.builder(name, **kwargs))
    if source is not None:
        _check_source(Path(builder.data_dir), source)
    keys = builder.info.supervised_keys or ()
    languages = list(getattr(builder.info.features, "languages", None) or keys)
    source_language = source_language or (keys[0] if keys else "")
    target_language = target_language or (keys[1] if keys else "")
    for role, language in (("source", source_language), ("target", target_language)):
        if language not in languages:
            raise ConfigError(f"{name} has no {role} language {language!r}; valid choices: "
                             f"{', '.join(languages)}")
    available = set(builder.info.splits)
    missing = [split for split in splits if split not in available]
    if missing:
        raise ConfigError(f"{name} has no split(s) {', '.join(missing)}; it has "
                         f"{', '.join(sorted(available))}")
    return Corpus(name, source_language, target_language,
                  {split: CheckedSource(builder.as_data_source(split), Path(builder.data_dir))
                   for split in splits},
                  Path(builder.data_dir))


class CheckedSource:
    """A prepared split's records, read as TFDS gives them; a damaged file (truncated,
    overwritten) is named with the folder to delete so that the next run prepares it
    again, instead of array_record's "Corrupted Riegeli/records file" (issue 72)."""

    def __init__(self, source, data_dir: Path):
        self.source, self.data_dir = source, data_dir

    def __len__(self):
        return len(self.source)

    def __iter__(self):
        return (self[index] for index in range(len(self)))

    def __getitem__(self, index):
        try:
            return self.source[index]
        except RuntimeError as error:
            raise RunError(
                f"the prepared dataset in {self.data_dir} is damaged (reading a record: "
                f"{str(error)[:100]}…): delete {self.data_dir} and rerun the same command, "
                "which prepares it again from its files (task.data_path, the manual "
                "directory or the download)") from None


# A prepared built-in corpus records the files it was made from (their SHA-256) here, so
# that another task.data_path whose files differ is refused, not silently ignored.
SOURCE_RECORD = "source.json"


def _source_digests(name: str, data_path: str) -> dict:
    """The files ``data_path`` gives a built-in corpus, by SHA-256; a path that holds
    none of them is refused here, whether or not the corpus is prepared already (a
    nonexistent path was ignored once Multi30k was prepared)."""
    if name == "multi30k":
        folder = multi30k.find_directory(data_path, None)
        for file in multi30k.file_names():
            multi30k.check_file(folder / file, file)  # refused if not the pinned file
        return {"data_path": str(Path(data_path).absolute()),
                "sha256": {file: multi30k.FILES[file][0] for file in multi30k.file_names()}}
    path = ding_de_en.find_source(data_path, None)
    return {"data_path": str(Path(data_path).absolute()),
            "sha256": {path.name: multi30k.sha256(path)}}


def _check_source(data_dir: Path, source: dict) -> None:
    """Refuse files other than those the prepared dataset in ``data_dir`` was made from;
    record them where the dataset does not say (prepared before it was recorded)."""
    record = data_dir / SOURCE_RECORD
    if record.is_file():
        made_from = json.loads(record.read_text())
        if sorted(made_from["sha256"].values()) != sorted(source["sha256"].values()):
            raise ConfigError(
                f"task.data_path={source['data_path']!r} holds other files than those "
                f"{data_dir} was prepared from ({made_from['data_path']}): the run would "
                f"train on the prepared ones. Delete {data_dir} to prepare it again from "
                "the new files, or pass another task.data_dir")
        return
    try:
        temporary = record.with_suffix(".partial")
        temporary.write_text(json.dumps(source, indent=1) + "\n")
        temporary.replace(record)
    except OSError:
        pass  # a read-only data directory: nothing recorded, nothing lost


def _plain_text(data_dir, data_path, source_language, target_language, splits) -> Corpus:
    """One's own parallel text (plain_text.py), read whole; its subword model is cached
    under ``<data_dir>/plain_text/<folder or file name>-<digest of the pairs>``."""
    if not (data_path and source_language and target_language):
        raise ConfigError("task.dataset=plain_text needs task.data_path (a folder of "
                          "train.<language> files or of train.tsv, or a .tsv file) and the "
                          "languages, task.source_language and task.target_language")
    found, carved = plain_text.carve(plain_text.find_splits(data_path, source_language,
                                                            target_language))
    missing = [split for split in splits if split not in found]
    if missing:
        raise ConfigError(f"{data_path} has no split(s) {', '.join(missing)}; it has "
                          f"{', '.join(sorted(found))}")
    digest = plain_text.digest(found, source_language, target_language)
    cache = Path(data_dir or tfds.core.constants.DATA_DIR) / plain_text.NAME / \
        f"{Path(data_path).expanduser().resolve().name}-{digest}"
    return Corpus(plain_text.NAME, source_language, target_language,
                  plain_text.records({s: found[s] for s in splits}, source_language,
                                     target_language), cache,
                  note=(f"{' and '.join(carved)} carved from the training pairs "
                        f"({len(found[carved[0]][0])} each, seed {plain_text.CARVE_SEED})"
                        if carved else ""))


def _prepared(builder) -> bool:
    return (Path(builder.data_dir) / "dataset_info.json").is_file()


def _prepare_once(builder, rebuild):
    """Prepare ``builder``'s dataset unless another process does it first.

    The jobs of one sweep (``--part=1/2`` and ``2/2``) start together on a fresh
    machine, and each would prepare the corpus: both write a temporary folder, and the
    second's rename onto the finished one fails. So preparing holds an exclusive
    ``flock`` on a file beside the dataset's versions; a job that waited for it finds
    the dataset prepared and opens it with a new builder (the waiting one's info was
    read before the files existed)."""
    folder = Path(builder.data_dir).parent
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".prepare.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if _prepared(builder):
            return rebuild()
        builder.download_and_prepare()
        return builder


__all__ = ["BUILT_IN", "Corpus", "NOT_REDISTRIBUTED", "SPLITS", "as_text", "ding_de_en",
           "load", "multi30k", "plain_text"]
