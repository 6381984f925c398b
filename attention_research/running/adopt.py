"""A sweep member that another sweep has already trained: ``launch.py --adopt_from=DIR``.

Two sweeps can hold the same training run under two names. explicit_vs_implicit's
Multi30k RNNs, for one, are luong_table4's ``score-additive`` and ``score-dot`` members
with an analysis added after training. A member whose config equals a finished member
of the sweep in DIR in every field but those read only after training
(``AFTER_TRAINING``: the run's name, the implicit analysis, extra splits translated at
the end, the search of a tuned length penalty) and the resource fields (but
``_NOT_ADOPTABLE_RESOURCES``) starts from that member's last checkpoint and logs
instead of training again: training is seeded by ``config.seed`` alone, so the run
would be the same. Its final evaluation, analysis, plots and summary are its own;
summary.json says where the training came from (``adopted_from``: the donor's run,
code, devices and wall time, whether every final metric the donor measured came out
the same, and, where the donor was adopted too, its own ``donor_adopted_from``).

Two more differences leave the run the same. Fields the member's model family never
reads (``Family.ignores``: a Transformer's RNN fields). And ``train.best_metric``, which
only chooses which parameters are kept, when the donor's log shows that the member's
metric would have kept the same step's parameters as the donor's did (the first step
of its best value, as ``BestParameters`` keeps them) and nothing stops early
(``train.patience`` 0); the kept value is then the member's metric's, from that log.

Only a member alone in its cohort adopts (``max_cohort_members=1``), and only from a
donor alone in its own and never resumed under changed fields, whose checkpoint is of
its last step, passes its checksum (``Checkpoints.restore``) and keeps the step the
donor's summary names. Nothing in DIR is written. A member that has a checkpoint of its
own resumes from it, as always.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_research.models import FAMILIES
from attention_research.running.checkpoints import Checkpoints
from attention_research.running.config_changes import RESOURCE_FIELDS, config_differences
from attention_research.running.workdir import EVALUATIONS, WorkDir, read_json, write_atomically
from attention_research.training.selection import lower_is_better

# Fields a run reads only once it has trained: its name (the sweep's), what the final
# analysis measures and which more splits the final evaluation translates.
# The tuned length penalty's search (task.py, ``_at_tuned_length_penalty``) translates
# again once training is over. Beam search's own fields stay compared: no adoption yet
# has needed them to differ, and a wrong entry here would adopt a different run.
AFTER_TRAINING = ("name", "analysis.", "task.also_translate", "task.length_penalty_search",
                  "task.length_penalty_min_ratio", "task.length_penalty_select",
                  "task.length_penalty_long_words")
SELECTION = "train.best_metric"  # which parameters are kept: checked against the log
ADOPTED_FILE = "adopted.json"  # in the member's directory: where its training came from


@dataclass(frozen=True)
class Donor:
    """A finished member of another sweep that trained what a member would."""
    member: Path  # its directory (config.json, metrics.jsonl, summary.json, …)
    checkpoints: Path  # its cohort's checkpoint directory
    step: int  # its last step, the checkpoint adopted
    kept_value: float | None = None  # the member's metric at the kept step, when the
    # donor kept its parameters by another metric (``SELECTION``)


def _after_training(field: str) -> bool:
    return any(field == entry or (entry.endswith(".") and field.startswith(entry))
               for entry in AFTER_TRAINING)


# Resource fields that may still change what is computed, so an adopted run must match
# them: the evaluation batch sets the greedy decoding's length limit (and so the kept
# step), and fast compilation is equal only up to rounding.
_NOT_ADOPTABLE_RESOURCES = frozenset({"task.eval_batch_size", "train.fast_compile"})


def training_differences(saved: dict, config) -> list[tuple[str, object, object]]:
    """(field, saved, now) for the fields in which ``config`` trains otherwise than the
    run of ``saved`` (a config as JSON): all but the resource and after-training ones,
    and those the model family of both ignores; ``SELECTION`` is among them."""
    family = config.model.family
    ignored = FAMILIES[family].ignores if saved.get("model", {}).get("family") == family \
        else frozenset()
    return [d for d in config_differences(saved, config)
            if (d[0] not in RESOURCE_FIELDS or d[0] in _NOT_ADOPTABLE_RESOURCES)
            and not _after_training(d[0]) and d[0] not in ignored]


def kept(rows, metric: str) -> tuple[int, float] | None:
    """(step, value) of the parameters ``BestParameters`` keeps by ``metric`` over the
    evaluations logged in ``rows``: the first step of its best finite value."""
    sign = 1.0 if lower_is_better(metric) else -1.0
    best = None
    for row in rows:
        value = row.get(metric)
        if value is None or not np.isfinite(value):
            continue
        signed = np.float32(sign * value)  # compared as BestParameters compares
        if best is None or signed < best[2]:
            best = (int(row["step"]), float(value), signed)
    return None if best is None else best[:2]


def _same_kept(member: Path, summary: dict, saved: dict, config) -> tuple[bool, float | None]:
    """Whether the member's ``train.best_metric`` keeps what the donor kept by its own,
    and the member's metric's value there (None when the metrics are the same)."""
    mine, theirs = config.train.best_metric, saved.get("train", {}).get("best_metric", "")
    if mine == theirs:
        return True, None
    selected = (summary.get("members") or [{}])[0].get("selected") or {}
    # Curve evaluations log metrics that keep nothing: with them the log is no replay.
    if (not mine or not theirs or config.train.patience or config.train.curve_eval_every
            or selected.get("metric") != theirs):
        return False, None
    rows = WorkDir(member).read_metrics()
    if any(theirs in row and mine not in row for row in rows):
        return False, None  # an evaluation the member's metric would not have seen
    choice, donors = kept(rows, mine), kept(rows, theirs)
    if choice is None or donors is None or not choice[0] == donors[0] == selected["step"]:
        return False, None
    return True, choice[1]


def _finished_at(member: Path, steps: int) -> dict | None:
    path = member / "summary.json"
    summary = read_json(path) if path.is_file() else {}
    return summary if (summary.get("status") == "finished"
                       and summary.get("steps") == steps) else None


def _trains_the_same(saved: dict, config) -> bool:
    """Whether the run of ``saved`` trained what ``config`` would, up to which
    parameters it kept (``_same_kept`` checks those against its log)."""
    return all(d[0] == SELECTION for d in training_differences(saved, config))


def find_donor(config, donor_sweep) -> Donor | None:
    """The finished member of the sweep in ``donor_sweep`` that trained what ``config``
    would and kept the parameters it would keep, with its cohort's checkpoint of its
    last step; None if it has none."""
    root, steps = Path(donor_sweep), config.train.num_steps
    if config.train.average_last:  # its mean needs the last k checkpoints: not adopted
        return None
    for member in sorted((root / "members").glob("*/")):
        summary = _finished_at(member, steps) if (member / "config.json").is_file() else None
        saved = read_json(member / "config.json") if summary else None
        # A donor resumed under changed fields (--resume_with) did not train as its
        # config.json says from step 0.
        if (not summary or summary.get("config_history")
                or (member / "config_history.json").exists()
                or not _trains_the_same(saved, config)):
            continue
        same, value = _same_kept(member, summary, saved, config)
        checkpoints = _checkpoints_of(root, saved, steps) if same else None
        if checkpoints is not None:
            return Donor(member, checkpoints, steps, value)
    return None


def _checkpoints_of(root: Path, saved: dict, steps: int) -> Path | None:
    """The checkpoint directory in ``root`` of a cohort of one whose checkpoint of
    ``steps`` was trained under ``saved`` (the donor member's config.json), up to the
    resource fields. config.json is written when a run begins and each checkpoint keeps
    the config of its day, so a field added since then is read at the value that gives
    the old behaviour (``ADDED_FIELDS``), as a resume reads it."""
    import ml_collections
    for directory in sorted(root.glob("cohorts/*/checkpoints")):
        if not (directory / str(steps)).is_dir():
            continue
        checkpoints = Checkpoints(directory)
        try:
            configs = checkpoints.saved_configs(steps)
        finally:
            checkpoints.close()
        if configs is not None and len(configs) == 1 and not [
                d for d in config_differences(saved, ml_collections.ConfigDict(configs[0]))
                if d[0] not in RESOURCE_FIELDS]:
            return directory
    return None


def take_logs(donor: Donor, member: Path):
    """Copy the donor's history into the member's directory ``member``: its
    metrics.jsonl (training, evaluations, and the final metrics it logged, which the
    member's own final evaluation finds logged and does not log twice) and its
    evaluations' pictures. Not its config, plots, translations or summary: those are
    the member's own. Called with the cohort's lock held, before its resume."""
    member.mkdir(parents=True, exist_ok=True)
    write_atomically(member / "metrics.jsonl", (donor.member / "metrics.jsonl").read_text())
    shutil.rmtree(member / EVALUATIONS, ignore_errors=True)
    if (donor.member / EVALUATIONS).is_dir():
        shutil.copytree(donor.member / EVALUATIONS, member / EVALUATIONS)


def mark(donor: Donor, member: Path):
    """Write adopted.json once the donor's state is the member's own checkpoint: where
    its training came from, with the donor's name, code, software, devices, wall time
    and final metrics (``compare_final`` reads them)."""
    summary = read_json(donor.member / "summary.json")
    write_atomically(member / ADOPTED_FILE, json.dumps({
        "member": str(donor.member.absolute()), "checkpoint": str(donor.checkpoints.absolute()),
        "step": donor.step, "wall_time_s": summary.get("wall_time_s"),
        **{key: summary.get(key) for key in ("name", "code", "software", "devices")},
        # A donor that was itself adopted names the run that trained it: kept, so that a
        # chain of adoptions still ends at the training.
        **({"donor_adopted_from": summary["adopted_from"]}
           if summary.get("adopted_from") else {}),
        "final": (summary.get("members") or [{}])[0].get("final", {})}, indent=2) + "\n")


def forget(member: Path):
    """A member that trains from step 0 after all was adopted by no one: drop the mark."""
    (Path(member) / ADOPTED_FILE).unlink(missing_ok=True)


def compare_final(record: dict, final: dict) -> dict:
    """adopted.json's record with, for its summary, whether every final metric the
    donor measured came out the same here (``same_final``), and which did not."""
    donor = record.get("final") or {}
    differing = sorted(k for k in donor if k in final and donor[k] != final[k])
    out = {k: v for k, v in record.items() if k != "final"}
    return {**out, "same_final": not differing,
            **({"differing_final": {k: [donor[k], final[k]] for k in differing}}
               if differing else {})}


def adopted(member: Path) -> dict | None:
    """What adopted.json of the member's directory says, or None."""
    path = Path(member) / ADOPTED_FILE
    return read_json(path) if path.is_file() else None


class AdoptionError(RuntimeError):
    pass


def restore(donor: Donor, template, kept_step=None):
    """The donor's state of its last step, checked against its checksum and, given
    ``kept_step`` (state -> the step whose parameters it keeps), against the step its
    summary says it kept. The member saves it as its own checkpoint of that step under
    its own config (``loop.py``), so that a member stopped during its final evaluation
    resumes from its own directory."""
    source = Checkpoints(donor.checkpoints)
    try:
        state = source.restore(donor.step, template)
    finally:
        source.close()
    selected = ((read_json(donor.member / "summary.json").get("members") or [{}])[0]
                .get("selected") or {})
    if kept_step is not None and selected and kept_step(state) != selected.get("step"):
        raise AdoptionError(
            f"the checkpoint in {donor.checkpoints} keeps the parameters of step "
            f"{kept_step(state)}, but {donor.member / 'summary.json'} says step "
            f"{selected.get('step')}: it is not that run's. Nothing was written; rerun "
            "without --adopt_from to train this member.")
    return state

