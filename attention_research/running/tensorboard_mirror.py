"""TensorBoard's view of a work directory (running/workdir.py): its event files are a
replay of the files the run writes, never a record of their own.

Opened once per process, the mirror deletes the event files and rebuilds them from
config.json, metrics.jsonl, evaluations/, summary.json, plots/ and hparams.json, so
that a killed process's unflushed or extra events can leave no gaps or duplicates;
after that, each value the run logs is added as it is written.
"""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

import numpy as np

from attention_research.errors import RunError, explain
from attention_research.metric_names import HELD_OUT

EVALUATIONS = "evaluations"  # each evaluation's pictures, step_NNNNNNN/ (TensorBoard's)


def read_png(path: Path) -> np.ndarray:
    """[H, W, 3] floats in [0, 1] (an alpha channel dropped), as TensorBoard takes them."""
    import matplotlib.image
    return matplotlib.image.imread(path)[..., :3]


def _quiet_tensorboard_threads():
    """Drop the traceback of tensorboardX's writer thread (the error is raised, named,
    from the main thread); any other thread's error is shown as before."""
    shown = threading.excepthook
    if getattr(shown, "quiets_tensorboard", False):
        return

    def hook(args):
        if type(args.thread).__name__ != "_EventLoggerThread":
            shown(args)
    hook.quiets_tensorboard = True
    threading.excepthook = hook


class TensorBoardMirror:
    """The event files in ``path``, rebuilt from the run's files when first opened.
    ``read_metrics``: metrics.jsonl's records and ``read_json``: a JSON file (the work
    directory's readers, which name a damaged file); ``error``: the exception class a
    failed write is raised as."""

    def __init__(self, path: Path, read_metrics, read_json, error: type[RunError] = RunError):
        self.path = Path(path)
        self._read_metrics = read_metrics
        self._read_json = read_json
        self._error = error
        self._writer = None
        self.summary_shown = False  # the open writer shows summary.json's plots, hparams

    @property
    def is_open(self) -> bool:
        return self._writer is not None

    @contextlib.contextmanager
    def errors(self):
        """A failed write of TensorBoard's event file (a full disk, EFBIG) is one
        error naming the file. The writer is abandoned first: tensorboardX would
        otherwise retry the flush when Python exits, and print its traceback again."""
        try:
            yield
        except OSError as error:
            writer, self._writer = self._writer, None
            for file_writer in getattr(writer, "all_writers", {}).values():
                file_writer.event_writer._closed = True  # its atexit cleanup: a no-op
            _quiet_tensorboard_threads()  # its writer thread fails on the same file
            files = sorted(self.path.glob("events.out.tfevents.*"))
            raise self._error(
                f"cannot write TensorBoard's event file {files[-1] if files else self.path}: "
                f"{explain(error)}. metrics.jsonl holds every value logged; TensorBoard "
                "is rebuilt from it when the run resumes.") from None

    def writer(self):
        """The TensorBoard writer; the first time in a process, the event files are
        rebuilt from the files they show (``_replay``), so TensorBoard holds exactly
        what they hold."""
        if self._writer is None:
            from tensorboardX import SummaryWriter  # imported late: it is slow to import
            # Event files in tensorboard/ (before issue 38) would show the run twice.
            for old in [*self.path.glob("events.out.tfevents.*"),
                        *(self.path / "tensorboard").glob("events.out.tfevents.*")]:
                old.unlink()
            with contextlib.suppress(OSError):
                (self.path / "tensorboard").rmdir()
            self._writer = SummaryWriter(str(self.path))
            self.summary_shown = False
            with self.errors():
                self._replay(self._writer)
                self._writer.flush()
        return self._writer

    def _replay(self, writer):
        """Everything TensorBoard shows, from the files that hold it: the config (text),
        the metrics, each evaluation's pictures and, once the run has its summary, its
        plots and, for a sweep member, its settings as hparams."""
        if (self.path / "config.json").is_file():
            writer.add_text("config", "```\n" + (self.path / "config.json").read_text()
                            + "```", 0)
        for record in self._read_metrics():
            add_scalars(writer, record)
        for folder in sorted((self.path / EVALUATIONS).glob("step_*")):
            add_pictures(writer, folder, int(folder.name.removeprefix("step_")))
        if (self.path / "summary.json").is_file():
            self.add_summary(self._read_json(self.path / "summary.json"))

    def add_summary(self, summary: dict):
        """A finished run's plots, and a sweep member's settings as hparams."""
        self.summary_shown = True
        if summary.get("status") == "finished":
            for plot in sorted((self.path / "plots").glob("*.png")):
                self._writer.add_image(f"plots/{plot.stem}", read_png(plot),
                                       int(summary["steps"]), dataformats="HWC")
        if (self.path / "hparams.json").is_file():
            _add_hparams(self._writer, self._read_json(self.path / "hparams.json"), summary)

    def close(self):
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def add_scalars(writer, record: dict):
    for key, value in record.items():
        if key not in ("step", "member") and value is not None:
            writer.add_scalar(key, float(value), int(record["step"]))


def add_pictures(writer, folder: Path, step: int):
    for image in sorted(folder.glob("[!.]*.png")):  # not a kill's partial file
        writer.add_image(f"evaluation/{image.stem}", read_png(image), step,
                         dataformats="HWC")
    for text in sorted(folder.glob("*.md")):
        writer.add_text(f"evaluation/{text.stem}", text.read_text(), step)


def _add_hparams(writer, settings: dict, summary: dict):
    """The member's settings beside its final metrics, so that a sweep's members
    compare in TensorBoard's HParams table (it reads each metric's last scalar)."""
    from tensorboardX.summary import hparams
    values = {k: v if isinstance(v, (bool, int, float, str)) else json.dumps(v)
              for k, v in settings.items()}
    final = {k: 0.0 for m in summary.get("members", [])
             for k, v in m.get("final", {}).items()
             if isinstance(v, (int, float)) and k.startswith(HELD_OUT)}
    for part in hparams(values, final):
        writer.file_writer.add_summary(part)
