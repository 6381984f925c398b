"""A sweep member that another sweep has already trained: ``launch.py --adopt_from=DIR``.

Two sweeps can hold the same training run under two names. explicit_vs_implicit's
Multi30k RNNs, for one, are luong_table4's ``score-additive`` and ``score-dot`` members
with an analysis added after training. A member whose config equals a finished member
of the sweep in DIR in every field but those read only after training
(``AFTER_TRAINING``: the run's name and the implicit analysis) and the resource fields
starts from that member's last checkpoint and its training logs instead of training
again: training is seeded by ``config.seed`` alone, so the run would be the same. Its
final evaluation, analysis, plots and summary are its own; summary.json says where the
training came from (``adopted_from``, with the donor's wall time).

Only a member alone in its cohort adopts (``max_cohort_members=1``), and only from a
donor alone in its own, whose checkpoint is of its last step and passes its checksum
(``Checkpoints.restore``). Nothing in DIR is written. A member that has a checkpoint of
its own resumes from it, as always.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from attention_research.checkpoints import Checkpoints
from attention_research.workdir import (EVALUATIONS, RESOURCE_FIELDS, config_differences,
                                        read_json, write_atomically)

# Fields a run reads only once it has trained: its name (the sweep's) and what the final
# analysis measures. A run that differs in nothing else trained the same parameters.
AFTER_TRAINING = ("name", "analysis.")
ADOPTED_FILE = "adopted.json"  # in the member's directory: where its training came from


@dataclass(frozen=True)
class Donor:
    """A finished member of another sweep that trained what a member would."""
    member: Path  # its directory (config.json, metrics.jsonl, summary.json, …)
    checkpoints: Path  # its cohort's checkpoint directory
    step: int  # its last step, the checkpoint adopted


def _after_training(field: str) -> bool:
    return any(field == prefix or field.startswith(prefix) for prefix in AFTER_TRAINING)


def training_differences(saved: dict, config) -> list[tuple[str, object, object]]:
    """(field, saved, now) for the fields in which ``config`` trains otherwise than the
    run of ``saved`` (a config as JSON): all but the resource and after-training ones."""
    return [d for d in config_differences(saved, config)
            if d[0] not in RESOURCE_FIELDS and not _after_training(d[0])]


def _finished_at(member: Path, steps: int) -> dict | None:
    path = member / "summary.json"
    summary = read_json(path) if path.is_file() else {}
    return summary if (summary.get("status") == "finished"
                       and summary.get("steps") == steps) else None


def find_donor(config, donor_sweep) -> Donor | None:
    """The finished member of the sweep in ``donor_sweep`` that trained what ``config``
    would, with its cohort's checkpoint of its last step; None if it has none."""
    root, steps = Path(donor_sweep), config.train.num_steps
    members = [m for m in sorted((root / "members").glob("*/"))
               if (m / "config.json").is_file() and _finished_at(m, steps)
               and not training_differences(read_json(m / "config.json"), config)]
    if not members:
        return None
    for directory in sorted(root.glob("cohorts/*/checkpoints")):
        if not (directory / str(steps)).is_dir():
            continue
        checkpoints = Checkpoints(directory)
        try:
            saved = checkpoints.saved_configs(steps)
        finally:
            checkpoints.close()
        if saved is not None and len(saved) == 1 and not training_differences(saved[0], config):
            return Donor(members[0], directory, steps)
    return None


def take_logs(donor: Donor, member: Path):
    """Copy the donor's training history into the member's directory ``member``: its
    metrics.jsonl, its evaluations' pictures and its config history; and write
    adopted.json. Not its config, plots, translations or summary: those are the
    member's own, written when its final evaluation runs."""
    member.mkdir(parents=True, exist_ok=True)
    summary = read_json(donor.member / "summary.json")
    write_atomically(member / ADOPTED_FILE, json.dumps({
        "member": str(donor.member.absolute()), "checkpoint": str(donor.checkpoints.absolute()),
        "step": donor.step, "wall_time_s": summary.get("wall_time_s")}, indent=2) + "\n")
    for name in ("metrics.jsonl", "config_history.json"):
        if (donor.member / name).is_file():
            write_atomically(member / name, (donor.member / name).read_text())
    if (donor.member / EVALUATIONS).is_dir():
        shutil.rmtree(member / EVALUATIONS, ignore_errors=True)
        shutil.copytree(donor.member / EVALUATIONS, member / EVALUATIONS)


def adopted(member: Path) -> dict | None:
    """What adopted.json of the member's directory says, or None."""
    path = Path(member) / ADOPTED_FILE
    return read_json(path) if path.is_file() else None


def restore_into(donor: Donor, template, checkpoints: Checkpoints, configs: list[dict]):
    """The donor's state of its last step (checked against its checksum), saved as the
    member's own checkpoint of that step under the member's config, so that a member
    stopped during its final evaluation resumes from its own directory."""
    source = Checkpoints(donor.checkpoints)
    try:
        state = source.restore(donor.step, template)
    finally:
        source.close()
    checkpoints.save(donor.step, state, configs)
    checkpoints.check()
    return state
