"""``multi30k``: Multi30k task 1 (Elliott et al. 2016), German–English image
descriptions, as a TFDS builder that writes ``array_record`` (reading it needs no
TensorFlow).

The benchmark with published numbers for small German–English translation: 29,000
training pairs, 1,014 validation pairs, and test_2016_flickr (1,000 pairs), the test
set of every de→en figure the tutorials and toolkits report. The later test sets are
splits too, by name: ``test2017`` (test_2017_flickr, 1,000), ``mscoco2017``
(test_2017_mscoco, 461), ``test2018`` (test_2018_flickr, 1,071). Records hold both
languages; de→en is the default direction (``supervised_keys``), en→de is
``--config.task.source_language=en --config.task.target_language=de``.

The files are the raw ``data/task1/raw/{file}.{de,en}.gz`` of the public repository
multi30k/dataset, pinned to one commit and checked by SHA-256 (``FILES``): a copy that
differs is refused, whatever its source. This matters for the validation set: the copy
published with the WMT16 task (used by some tutorials and by Hugging Face's
``bentrevett/multi30k``) differs from the repository's ``val.de`` in 61 of 1,014
lines. TFDS has no Multi30k builder, sacrebleu knows only its en→X test sets, and
torchtext's old university URLs are gone: the repository is the source.

Where the files are looked for, in order: the directory given to the builder
(``--config.task.data_path``), TFDS's manual directory
(``<data_dir>/downloads/manual/multi30k``), and the download from the repository (TFDS's
download manager; about 1.4 MB for both languages).

Licence: the data is partly derived from Flickr30K and is provided for non-commercial
research and educational use only; the project does not ship it.
"""

from __future__ import annotations

import gzip
import hashlib
import socket
from pathlib import Path

import tensorflow_datasets as tfds

from attention_research.errors import RunError
from attention_research.tasks.translation.local_builder import LocalFilesBuilder

REPOSITORY = "multi30k/dataset"
COMMIT = "a3d2e0d26b56f3846f66a952536ffed4e401d05a"
RAW_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/data/task1/raw/"
REPOSITORY_PATH = f"https://github.com/{REPOSITORY}/tree/{COMMIT}/data/task1/raw"
MANUAL_NAME = "multi30k"
LANGUAGES = ("de", "en")

# split name -> the repository's file stem
SPLIT_FILES = {"train": "train", "validation": "val", "test": "test_2016_flickr",
               "test2017": "test_2017_flickr", "mscoco2017": "test_2017_mscoco",
               "test2018": "test_2018_flickr"}
# file name -> (SHA-256 of the .gz, line count), as in the pinned commit.
FILES = {
    "train.de.gz": ("726e39b2fa9eb9ffb6dc763fb35a179f80fae06ffc5d28b6ace5faa883de28a6", 29000),
    "train.en.gz": ("d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f", 29000),
    "val.de.gz": ("f0cba2f995189cf5770f29a8a9a537a3ad3f51657ad873405082ff6863a5e75a", 1014),
    "val.en.gz": ("14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28", 1014),
    "test_2016_flickr.de.gz": (
        "9204244e408ccb38d2a55cfcd344df15005fc42a07a6e55ca6c52b6ababb8cc8", 1000),
    "test_2016_flickr.en.gz": (
        "611d361c6334bc7246101d48097c13cf5c4413c5befc793cc629934359d532d9", 1000),
    "test_2017_flickr.de.gz": (
        "a2c89666db00c495cd8513b9d708d5a3acc205d7de312ef2bf5fb7ebc1540aee", 1000),
    "test_2017_flickr.en.gz": (
        "76a444ee25172e72695cddb13ae4a3bda59430617be88e0bb46b60504f054074", 1000),
    "test_2017_mscoco.de.gz": (
        "799e4854c25d601cb6cb6be29eabe5667734c61ace2f495e03e429031a0bc338", 461),
    "test_2017_mscoco.en.gz": (
        "aab300bfb4427697987e02cd0aacd44bfe8aa50456231b6474c08038bbed2b58", 461),
    "test_2018_flickr.de.gz": (
        "ddd0130c7d97482dc5197a02141dae8dd79f20f03586c480d675c09a32daf608", 1071),
    "test_2018_flickr.en.gz": (
        "ef4f4844037d4c5dea75c9a8ed5fd78905967a26f67c255e230cc9780032654d", 1071),
}
HOW_TO_GET_IT = (
    "Multi30k's files are not here and could not be downloaded. Get them in one of "
    "these ways:\n"
    f"  - download data/task1/raw/*.{{de,en}}.gz of {REPOSITORY} ({REPOSITORY_PATH}) "
    "into a folder and pass --config.task.data_path=/path/to/that/folder\n"
    f"    (or put them in <tfds data_dir>/downloads/manual/{MANUAL_NAME}/)\n"
    "  - on a machine with the internet, run once without task.data_path: the builder "
    "downloads them")


class Multi30kDataMissingError(FileNotFoundError):
    """Multi30k's files are nowhere to be found; the message says how to get them."""


class Multi30kDataError(RunError):
    """A file given as Multi30k's is not the pinned one."""


def file_names(splits=tuple(SPLIT_FILES)) -> list[str]:
    return [f"{SPLIT_FILES[split]}.{language}.gz" for split in splits for language in LANGUAGES]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: Path, name: str) -> None:
    """Refuse a file that is not the pinned commit's ``name``."""
    expected = FILES[name][0]
    found = sha256(path)
    if found != expected:
        hint = (" The WMT16 task's copy of the validation set (used by some tutorials and "
                "Hugging Face's bentrevett/multi30k) differs from the repository's in 61 "
                "of 1,014 German lines; this project uses the repository's."
                if name.startswith("val.") else "")
        raise Multi30kDataError(
            f"{path} is not Multi30k's {name} of {REPOSITORY} at commit {COMMIT[:7]}: its "
            f"SHA-256 is {found[:12]}…, expected {expected[:12]}….{hint} Get the file from "
            f"{REPOSITORY_PATH}.")


def read_lines(path: Path) -> list[str]:
    """A raw file's sentences, one per line (gzip or plain text)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as text:
        return [line.rstrip("\n") for line in text]


def find_directory(source_path: str | None, manual_dir: Path | None) -> Path | None:
    """The folder that holds every file, or None (then they must be downloaded)."""
    if source_path:
        folder = Path(source_path).expanduser()
        missing = [name for name in file_names() if not (folder / name).is_file()]
        if missing:
            what = "is not a folder" if not folder.is_dir() else (
                f"lacks {', '.join(missing[:4])}{' …' if len(missing) > 4 else ''}")
            raise Multi30kDataMissingError(
                f"task.data_path={source_path!r} {what}: it must hold Multi30k's raw files "
                f"{{train,val,test_2016_flickr,test_2017_flickr,test_2017_mscoco,"
                f"test_2018_flickr}}.{{de,en}}.gz.\n" + HOW_TO_GET_IT)
        return folder
    if manual_dir and all((Path(manual_dir) / MANUAL_NAME / n).is_file() for n in file_names()):
        return Path(manual_dir) / MANUAL_NAME
    return None


def reachable(host: str = "raw.githubusercontent.com", timeout_s: float = 5.0) -> bool:
    """Whether the repository's host answers: TFDS's download manager retries for
    minutes before it gives up on a machine without the internet."""
    try:
        with socket.create_connection((host, 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def download(dl_manager) -> Path:
    """Every file through TFDS's download manager, into one folder; fail fast offline."""
    if not reachable():
        raise Multi30kDataMissingError(HOW_TO_GET_IT)
    try:
        paths = dl_manager.download({name: RAW_URL + name for name in file_names()})
    except Exception as error:  # noqa: BLE001 — requests, TFDS and OS errors alike
        raise Multi30kDataMissingError(
            f"downloading from {RAW_URL} failed ({type(error).__name__}: "
            f"{str(error)[:200]}).\n" + HOW_TO_GET_IT) from error
    folder = Path(dl_manager.download_dir) / f"{MANUAL_NAME}_{COMMIT[:7]}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in paths.items():  # TFDS names downloads by URL hash: give them theirs
        target = folder / name
        if not target.is_file():
            target.write_bytes(Path(path).read_bytes())
    return folder


class Multi30k(LocalFilesBuilder):
    """Multi30k task 1, German–English (see the module docstring)."""

    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": f"Task 1 raw files of {REPOSITORY} at {COMMIT[:7]}."}
    MANUAL_DOWNLOAD_INSTRUCTIONS = HOW_TO_GET_IT

    def _info(self) -> tfds.core.DatasetInfo:
        return self.dataset_info_from_configs(
            features=tfds.features.Translation(languages=LANGUAGES),
            supervised_keys=LANGUAGES,
            homepage=f"https://github.com/{REPOSITORY}",
            citation="Elliott, Frank, Sima'an & Specia 2016. Multi30K: Multilingual "
                     "English-German Image Descriptions. Proceedings of the 5th Workshop "
                     "on Vision and Language.",
            description=__doc__,
            # Record i is line i of its file, as in every other system's output on the
            # test sets: translations/test.*.txt line up with the published files.
            disable_shuffling=True)

    def _split_generators(self, dl_manager):
        manual_dir = self.manual_dir(dl_manager)
        folder = find_directory(self._source_path, manual_dir) or download(dl_manager)
        generators = {}
        for split, stem in SPLIT_FILES.items():
            columns = {}
            for language in LANGUAGES:
                name = f"{stem}.{language}.gz"
                check_file(folder / name, name)
                columns[language] = read_lines(folder / name)
            generators[split] = self._generate_examples(columns["de"], columns["en"])
        return generators

    def _generate_examples(self, german, english):
        for index, (de, en) in enumerate(zip(german, english, strict=True)):
            yield index, {"de": de, "en": en}
