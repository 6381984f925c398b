"""The work-directory contract: what a run writes, and where.

    config.json     the resolved config (a rerun must match it to resume)
    metrics.jsonl   one JSON object per logged step and member
    tensorboard/    TensorBoard event files (tensorboardX)
    checkpoints/    orbax checkpoints (a sweep keeps them per cohort instead)
    plots/          learning curves, and the task's figures: heat maps, accuracy or
                    BLEU by length
    summary.json    final metrics per member
    translations/   the task's outputs where it writes them (translation: the
                    eval split's sources, references and hypotheses)

A sweep's work directory adds ``members/``, ``cohorts/``, ``commands.txt`` and the
comparison (``training/sweep.py``).

Only process 0 writes, so many hosts can share one directory.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import jax


class ConfigMismatchError(ValueError):
    pass


def _flatten(tree, prefix=""):
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _json_safe(value):
    """NaN/inf are not JSON; write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class WorkDir:
    def __init__(self, path):
        self.path = Path(path)
        self.is_writer = jax.process_index() == 0
        self._tensorboard = None

    @property
    def metrics_path(self):
        return self.path / "metrics.jsonl"

    def check_or_write_config(self, config):
        """Write config.json, or, when resuming, refuse a config that differs from it."""
        current = json.loads(config.to_json())
        saved_path = self.path / "config.json"
        if saved_path.exists():
            saved = _flatten(json.loads(saved_path.read_text()))
            now = _flatten(current)
            differences = [(k, saved.get(k), now.get(k)) for k in sorted(set(saved) | set(now))
                           if saved.get(k) != now.get(k)]
            if differences:
                lines = "\n".join(f"  {k}: was {a!r}, now {b!r}" for k, a, b in differences)
                raise ConfigMismatchError(
                    f"{self.path} holds a run of another config, so it cannot be resumed:\n"
                    f"{lines}\nPass another --workdir, or rerun with the saved config.")
            return
        if self.is_writer:
            self.path.mkdir(parents=True, exist_ok=True)
            saved_path.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")

    def keep_metrics_up_to(self, step: int):
        """On resume, drop lines logged after the checkpoint: they will be logged again."""
        if not (self.is_writer and self.metrics_path.exists()):
            return
        lines = self.metrics_path.read_text().splitlines(keepends=True)
        up_to_step = [line for line in lines if line.strip() and json.loads(line)["step"] <= step]
        if len(up_to_step) != len(lines):
            tmp = self.metrics_path.with_suffix(".jsonl.tmp")
            tmp.write_text("".join(up_to_step))
            os.replace(tmp, self.metrics_path)

    def read_metrics(self):
        if not self.metrics_path.exists():
            return []
        return [json.loads(line) for line in self.metrics_path.read_text().splitlines() if line]

    def log(self, step: int, member: int, metrics: dict):
        """Append one line to metrics.jsonl and the same scalars to TensorBoard."""
        if not self.is_writer:
            return
        record = {"step": int(step), "member": int(member),
                  **{k: _json_safe(float(v)) for k, v in metrics.items()}}
        with open(self.metrics_path, "a") as f:
            f.write(json.dumps(record) + "\n")
        if self._tensorboard is None:
            from tensorboardX import SummaryWriter  # imported late: it is slow to import
            self._tensorboard = SummaryWriter(str(self.path / "tensorboard"))
        for key, value in metrics.items():
            tag = key if member == 0 else f"member_{member}/{key}"
            self._tensorboard.add_scalar(tag, float(value), int(step))

    def write_summary(self, summary: dict):
        if not self.is_writer:
            return
        text = json.dumps(summary, indent=2, default=_json_safe, allow_nan=False)
        (self.path / "summary.json").write_text(text + "\n")

    @property
    def plots_dir(self) -> Path:
        path = self.path / "plots"
        if self.is_writer:
            path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self):
        if self._tensorboard is not None:
            self._tensorboard.close()
            self._tensorboard = None
