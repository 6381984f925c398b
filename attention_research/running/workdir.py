"""The work-directory contract: what a run writes, and where.

    config.json     the resolved config (a rerun must match it, and the checkpoint's
                    own copy of it, to resume; rebuilt from the checkpoint if lost)
    config_history.json  the fields changed on resume with --resume_with, each with
                    the step it took effect from (absent while none was)
    adopted.json    a sweep member started from another sweep's run (--adopt_from,
                    running/adopt.py): which run and checkpoint step, its code,
                    software, devices, wall time and final metrics
    metrics.jsonl   one JSON object per logged step and member
    events.out.tfevents.*  TensorBoard's event files (tensorboardX), in the run's own
                    folder so that ``tensorboard --logdir runs`` names the run by its
                    folder: a replay of metrics.jsonl, evaluations/, config.json,
                    hparams.json and the finished run's plots/, rebuilt from them when a
                    run resumes, so they always agree (running/tensorboard_mirror.py)
    evaluations/    step_NNNNNNN/ per evaluation: heat maps (PNG) and sample outputs
                    (Markdown), shown in TensorBoard's Images and Text tabs
    hparams.json    a sweep member's settings (its overrides), TensorBoard's hparams
    lock            locked (``lock.py``) while a process writes here: its pid and host
    checkpoints/    orbax checkpoints (a sweep keeps them per cohort instead)
    plots/          learning curves, and the task's figures: heat maps, accuracy or
                    BLEU by length
    summary.json    final metrics per member; ``status`` is "finished" or "failed"
                    (then ``failure`` says at which step and why)
    translations/   the task's outputs where it writes them (translation: the
                    eval split's sources, references and hypotheses)

A sweep's work directory adds ``members/``, ``cohorts/``, ``commands.txt`` and the
comparison (``running/sweep.py``). ``kind.json`` says which of the two a directory
holds, and of which config (``kinds.claim``): one kind per directory, since a run and
a sweep write plots of the same names.

Only process 0 writes, so many hosts can share one directory. config.json and
summary.json are written whole or not at all (write, then rename); a line of
metrics.jsonl torn by a kill is dropped on resume.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import jax
import numpy as np

from attention_research.errors import RunError, os_reason
from attention_research.metric_names import (TIME, TRAIN_GFLOP_PER_S, TRAIN_LOSS,
                                             TRAIN_TOKENS_PER_S)
from attention_research.running.config_changes import (CHANGEABLE_PREFIX, ConfigMismatchError,
                                                       RESOURCE_FIELDS, config_differences)
from attention_research.running.tensorboard_mirror import (EVALUATIONS, TensorBoardMirror,
                                                           add_pictures, add_scalars)


# The fields of a metrics.jsonl row that measure the machine, not the model: they
# differ between a run and its resumed twin, everything else is equal.
TIMING_FIELDS = (TIME, TRAIN_TOKENS_PER_S, TRAIN_GFLOP_PER_S)


class WorkDirError(RunError):
    """A work directory that cannot be written, or a file in it that cannot be read."""


def ensure_writable(path) -> Path:
    """Create ``path`` if needed and prove it can be written, before anything runs."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        reason = os_reason(error)
        raise WorkDirError(f"cannot write to the work directory {path}: {reason}. "
                           "Pass a --workdir you can write to.") from None
    return path


def write_atomically(path, text: str):
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one,
    never a half-written one (a kill or a full disk midway leaves the old)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_json(path):
    """A JSON file this package wrote; a damaged one is named in the error."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except IsADirectoryError:
        raise WorkDirError(f"{path} is a directory, where this file should be: move it away "
                           "and rerun the same command") from None
    except ValueError as error:
        raise WorkDirError(f"{path} is damaged ({error}). Delete it and rerun the same "
                           "command: the run resumes from its last checkpoint.") from None


def _json_safe(value):
    """NaN/inf are not JSON; write them as null, anywhere in a nested structure."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _parse_metrics(path: Path, text: str | None = None):
    """The records of metrics.jsonl (``text``: its contents, if already read). A last
    line torn by a kill is dropped; a damaged line elsewhere is an error naming the
    file and the line."""
    if text is None:
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:  # issue 72: named neither file nor line
            number = raw[:error.start].count(b"\n") + 1
            raise WorkDirError(f"{path} line {number} is damaged: not UTF-8 (byte "
                               f"{raw[error.start]:#04x}). Delete that line (or the whole "
                               "file) and rerun the same command.") from None
    lines = text.splitlines(keepends=True)
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if number == len(lines) and not line.endswith("\n"):
                continue  # the tail of an append a kill cut short
            record = None
        # A line that parses but is no log row (issue 72: one without "member" trained
        # the whole run again, then crashed with KeyError: 'member').
        if not (isinstance(record, dict) and isinstance(record.get("step"), int)
                and isinstance(record.get("member"), int)
                and all(isinstance(v, (int, float)) or v is None
                        for k, v in record.items() if k not in ("step", "member"))):
            raise WorkDirError(f"{path} line {number} is damaged: {line[:80]!r} (a log row "
                               "holds an integer 'step' and 'member' and numbers). Delete that "
                               "line (or the whole file) and rerun the same command.") from None
        records.append(record)
    return records


class WorkDir:
    def __init__(self, path):
        self.path = Path(path)
        self.is_writer = jax.process_index() == 0
        self._tensorboard = TensorBoardMirror(self.path, self.read_metrics, read_json,
                                              WorkDirError)

    @property
    def metrics_path(self):
        return self.path / "metrics.jsonl"

    def changed_fields(self, config) -> list[tuple[str, object, object]]:
        """(field, saved, now) for every field in which ``config`` differs from the
        saved config.json (a field it lacks: ``ADDED_FIELDS``); [] when none is saved."""
        saved_path = self.path / "config.json"
        if not saved_path.exists():
            return []
        return config_differences(read_json(saved_path), config)

    def check_config(self, config, changeable=frozenset()):
        """Refuse a config that differs from the saved config.json in anything but
        ``RESOURCE_FIELDS`` and the ``changeable`` fields (``--resume_with``): this
        directory holds another run, which is left as it is."""
        differences = [d for d in self.changed_fields(config)
                       if d[0] not in RESOURCE_FIELDS and d[0] not in changeable]
        if differences:
            lines = "\n".join(f"  {k}: was {a!r}, now {b!r}" for k, a, b in differences)
            raise ConfigMismatchError(
                f"{self.path} holds a run of another config, so it cannot be resumed:\n"
                f"{lines}\nPass another --workdir, or rerun with the saved config"
                + (" (or, for training fields, name them in --resume_with to change them "
                   "from the last checkpoint on)" if any(
                       d[0].startswith(CHANGEABLE_PREFIX) for d in differences) else "")
                + ".")

    def check_or_write_config(self, config, changeable=frozenset()):
        """Write config.json, or, when resuming, refuse a config that differs from it
        in anything but ``RESOURCE_FIELDS`` and ``changeable`` (``check_config``)."""
        self.check_config(config, changeable)
        saved_path = self.path / "config.json"
        if saved_path.exists() and not self.changed_fields(config):
            return
        current = json.loads(config.to_json())
        if self.is_writer:
            self.path.mkdir(parents=True, exist_ok=True)
            write_atomically(saved_path, json.dumps(current, indent=2, sort_keys=True) + "\n")

    @property
    def history_path(self):
        return self.path / "config_history.json"

    def config_history(self) -> list[dict]:
        """The changes made on resume (``--resume_with``), oldest first."""
        return read_json(self.history_path) if self.history_path.exists() else []

    def record_changes(self, step: int, changes):
        """Add each (field, was, now) changed on resume at ``step`` to
        config_history.json; a change already recorded (a rerun of the same resume)
        is not added again."""
        if not self.is_writer or not changes:
            return
        history = self.config_history()
        for field, was, now in changes:
            entry = {"step": int(step), "field": field, "was": was, "now": now}
            if entry not in history:
                history.append(entry)
        write_atomically(self.history_path, json.dumps(history, indent=2) + "\n")

    def has_train_log(self, step: int) -> bool:
        """Whether metrics.jsonl holds the training log of ``step`` (0: nothing to hold)."""
        return step <= 0 or any(r["step"] == step and TRAIN_LOSS in r
                                for r in self.read_metrics())

    def failed(self) -> bool:
        """Whether this member's summary.json says it failed (its log stops there)."""
        path = self.path / "summary.json"
        return path.is_file() and read_json(path).get("status") == "failed"

    def check_log_reaches(self, step: int, log_step: int):
        """Refuse to resume at checkpoint ``step`` when metrics.jsonl lacks its training
        log at ``log_step`` (the last one written before that checkpoint): the log then
        belongs to another attempt (e.g. a restart from step 0 that was killed before it
        got there), and resuming would join two histories in one record."""
        if not self.is_writer or log_step <= 0:
            return
        if not any(r["step"] == log_step and TRAIN_LOSS in r for r in self.read_metrics()):
            logged = [r["step"] for r in self.read_metrics()]
            raise RunError(
                f"{self.metrics_path} ends at step {max(logged, default=0)} but the "
                f"checkpoint being resumed is at step {step} and its log at step "
                f"{log_step} is missing: the log is of another attempt. Nothing was "
                f"changed; move {self.path} away (and, in a sweep, its cohort's "
                "checkpoints) to train it again.")

    def resume_at(self, step: int) -> list[dict]:
        """Drop what was logged after the checkpoint being resumed (it will be logged
        again), rebuild TensorBoard from what is kept, and return the kept records."""
        if not self.is_writer:
            return self.read_metrics()
        kept = []
        if self.metrics_path.exists():
            text = self.metrics_path.read_text()
            # At step 0 nothing was restored: everything logged is logged again.
            kept = [r for r in _parse_metrics(self.metrics_path, text)
                    if step and r["step"] <= step]
            kept_text = "".join(json.dumps(r) + "\n" for r in kept)
            if kept_text != text:
                write_atomically(self.metrics_path, kept_text)
        for folder in (self.path / EVALUATIONS).glob("step_*"):
            if not step or int(folder.name.removeprefix("step_")) > step:
                shutil.rmtree(folder)  # to be evaluated again, like the metrics
        self.close()
        self._tensorboard.writer()
        return kept

    def read_metrics(self):
        if not self.metrics_path.exists():
            return []
        return _parse_metrics(self.metrics_path)

    def unlogged(self, step: int, metrics: dict) -> dict:
        """The entries of ``metrics`` that metrics.jsonl does not hold at ``step`` yet."""
        logged = {k for r in self.read_metrics() if r["step"] == step for k in r}
        return {k: v for k, v in metrics.items() if k not in logged}

    def log(self, step: int, member: int, metrics: dict):
        """Append one line to metrics.jsonl and the same scalars to TensorBoard.

        Every member of a sweep has its own directory, so the tags are the same in
        all of them (``eval/…``, ``train/…``): TensorBoard overlays the seeds.
        """
        if not self.is_writer:
            return
        writer = self._tensorboard.writer()
        record = {"step": int(step), "member": int(member),
                  **{k: _json_safe(float(v)) for k, v in metrics.items()}}
        with open(self.metrics_path, "a") as f:
            f.write(json.dumps(record) + "\n")
        with self._tensorboard.errors():
            add_scalars(writer, record)
            writer.flush()  # a kill loses nothing TensorBoard has shown

    def log_pictures(self, step: int, images: dict, texts: dict):
        """Save one evaluation's pictures under evaluations/step_NNNNNNN/ (``images``:
        name -> [H, W, 3] uint8 pixels; ``texts``: name -> Markdown) and show them in
        TensorBoard. The writer is opened first: its replay must not show them twice."""
        if not self.is_writer or not (images or texts):
            return
        writer = self._tensorboard.writer()
        folder = self.path / EVALUATIONS / f"step_{int(step):07d}"
        folder.mkdir(parents=True, exist_ok=True)
        import matplotlib.image  # late: slow to import, and only a writer needs it
        for name, pixels in images.items():
            # Written whole or not at all, as summary.json: a torn PNG would stop the
            # replay of every later resume.
            partial = folder / f".{name}.tmp-{os.getpid()}.png"
            matplotlib.image.imsave(partial, pixels)
            os.replace(partial, folder / f"{name}.png")
        for name, text in texts.items():
            write_atomically(folder / f"{name}.md", text)
        with self._tensorboard.errors():
            add_pictures(writer, folder, step)
            writer.flush()

    def write_summary(self, summary: dict):
        if not self.is_writer:
            return
        text = json.dumps(_json_safe(summary), indent=2, allow_nan=False)
        write_atomically(self.path / "summary.json", text + "\n")
        if self._tensorboard.is_open:  # now with the plots and hparams
            if self._tensorboard.summary_shown:  # a summary rewritten (--refinish): shown once
                self.close()
                self._tensorboard.writer()
            else:
                with self._tensorboard.errors():
                    self._tensorboard.add_summary(json.loads(text))
                    self._tensorboard.writer().flush()

    def stop_writing(self):
        """This process writes nothing more here (a member that failed keeps its
        failure summary and the plots and metrics from before the failure)."""
        self.close()
        self.is_writer = False

    @property
    def plots_dir(self) -> Path:
        path = self.path / "plots"
        if self.is_writer:
            path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self):
        self._tensorboard.close()
