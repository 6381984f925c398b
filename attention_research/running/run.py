"""A cohort's run on disk: the lock, the checkpoints, the work directories, the config
checks on resume, signals and adoption around the training loop (training/loop.py).

``train_cohort`` trains the members of one cohort together (one compiled
``jit(vmap(step))``); each member logs, plots and summarises into its own work
directory, and the cohort's stacked state is checkpointed once. ``train(config,
workdir)``, what ``launch.py`` calls for a single run, is a cohort of one whose member
directory and checkpoints are the work directory itself. Everything a run writes is
listed in ``workdir.py``. Rerunning on the same work directory resumes from the newest
checkpoint and ends with the same metrics. The directory is locked while the cohort
trains (``lock.py``); SIGTERM and Ctrl-C stop it at a step boundary with a checkpoint
(``preemption.py``).

The loop imports none of this: what it asks of the run around it goes through
``RunEnvironment``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

import jax
import numpy as np
from tqdm import tqdm

from attention_research.errors import RunError
from attention_research.metric_names import TIME, TRAIN_LOSS
from attention_research.running import adopt, peaks, preemption
from attention_research.running.checkpoints import Checkpoints
from attention_research.running.lock import DirectoryLock
from attention_research.running.config_changes import (RESOURCE_FIELDS,
                                                       ConfigMismatchError,
                                                       check_checkpoint_config)
from attention_research.running.provenance import code_version, software_versions
from attention_research.running.segments import MESH, Segments
from attention_research.running.workdir import WorkDir, read_json
from attention_research.training import health, memory
from attention_research.training.config_checks import validate
from attention_research.training.mesh import fetch
from attention_research.training.selection import BestParameters
from attention_research.training.state import member_hyperparams, with_member_hyperparams
from attention_research.training.loop import Cohort, train_steps


class RunEnvironment:
    """What the training loop asks of the run around it: the code and software that
    train (summary.json names them), the CPU and the device's peak FLOP/s (peaks.py),
    whether a signal asked to stop (preemption.py), what an adopted member's donor
    measured (adopt.py), and the segments of the run so far (segments.py)."""

    code = staticmethod(code_version)
    software = staticmethod(software_versions)
    cpu = staticmethod(peaks.cpu_description)
    device_peak = staticmethod(peaks.device_peak)
    stop_requested = staticmethod(preemption.requested)

    def __init__(self):
        self.segments = Segments()  # which process trained which steps, on what

    @staticmethod
    def stop(step: int):
        """Stop here: the loop has saved what a resume needs."""
        raise preemption.Preempted(preemption.requested(), step)

    @staticmethod
    def adopted_from(member: Path, final: dict) -> dict | None:
        """adopted.json's record beside this run's final metrics, for an adopted member."""
        record = adopt.adopted(member)
        return adopt.compare_final(record, final) if record else None


def train_cohort(configs, workdirs, checkpoint_dir, *, start_time: float | None = None,
                 hooks: Sequence[Callable[[int], None]] = (), progress: bool = True,
                 resume_with=frozenset(), refinish: bool = False,
                 adopt_from: adopt.Donor | None = None, figures=None,
                 overrides: Sequence[str] = ()) -> list:
    """Train (or resume) the members of one cohort together; returns their summaries.

    ``configs`` must differ only in per-member fields (see ``sweeps.PER_MEMBER_FIELDS``).
    The directory holding ``checkpoint_dir`` (the run's, or in a sweep the cohort's)
    is locked while the cohort trains. ``hooks`` are called with the step after
    every jit call (tests use one to interrupt a run). Nothing written before an
    error is lost. A member that fails (non-finite) gets a summary with
    ``status: failed``; the others train on. ``resume_with``: the training fields
    (``config_changes.parse_resume_with``) that may differ from the checkpoint's config; each
    change is recorded, with its step, in config_history.json and summary.json.
    A cohort whose every member has finished (``finished_summaries``) is not touched:
    its saved summaries are returned, unless ``refinish`` asks for its final
    evaluation, plots and summaries again. ``adopt_from``: for a cohort of one member
    with no checkpoint yet, the finished run of another sweep it starts from
    (``adopt.py``): its logs are copied in once the lock is held. ``figures``: what
    draws the heat maps, samples and plots, from the cohort's task (reports/figures.py's
    ``figures_for``, which ``attention_research.api`` hands in); None draws nothing.
    ``overrides``: the config fields the command line set (``--config.FIELD=…``), checked
    when a checkpoint's config is lost (``_resume_without_config``).
    """
    # The code this process runs is the checkout's when it begins, not when a summary is
    # written hours later (code_version is cached from its first call; an audit found a
    # sweep's later members named a commit made while they trained).
    code_version()
    for config in configs:
        validate(config)
    finished = None if refinish else finished_summaries(configs, workdirs, resume_with,
                                                        checkpoint_dir)
    if finished is not None:
        if progress and jax.process_index() == 0:
            print(f"already finished: {', '.join(str(Path(w) / 'summary.json') for w in workdirs)}"
                  "; nothing was redone (--refinish evaluates its final parameters again)")
        return finished
    memory.check_config(configs[0], len(configs))  # before the task builds its data
    lock = DirectoryLock(Path(checkpoint_dir).parent)
    if jax.process_index() == 0:
        lock.acquire()
    try:
        cohort = Cohort(configs, [WorkDir(path) for path in workdirs],
                        time.time() if start_time is None else start_time,
                        RunEnvironment(), figures)
        # Averaging needs the last k checkpoints on disk; one more is room for a
        # checkpoint saved on a stop (preemption.py), deleted after the next regular one.
        train_config = configs[0].train
        checkpoints = Checkpoints(
            checkpoint_dir, max_to_keep=max(2, train_config.average_last) + 1,
            regular=lambda step: (step % train_config.checkpoint_every == 0
                                  or step == train_config.num_steps))
        donor = None
        if adopt_from is not None and checkpoints.latest_step() is None:
            if cohort.is_writer:  # under the lock: no other process trains it now
                adopt.take_logs(adopt_from, cohort.workdirs[0].path)
            donor = adopt_from
        try:
            _check_identity(cohort, checkpoints, frozenset(resume_with), overrides)
            # At every train call: stop if the lock file was deleted under this run.
            with preemption.stop_on_signals():
                cohort.stopwatch.switch("setup")
                if (checkpoints.latest_step() or 0) < train_config.num_steps:  # steps left
                    cohort.start_train_compile()  # beside the state made or restored here
                state, step = resume(cohort, checkpoints, donor, frozenset(resume_with))
                summaries = train_steps(cohort, checkpoints, state, step,
                                        (lock.verify, *hooks), progress)
                if preemption.requested() and cohort.is_writer:  # during the final part
                    tqdm.write(f"{preemption.signal_name()} arrived after the last step: the "
                               "final evaluation and summary were completed, not stopped")
                return summaries
        finally:
            checkpoints.close()
            for workdir in cohort.workdirs:
                workdir.close()
            cohort.stopwatch.close()
    finally:
        lock.release()


def log_step(train, step: int) -> int:
    """The last training log written before the checkpoint of ``step`` (``train``: the
    config's train fields)."""
    return step if step == train.num_steps else step // train.log_every * train.log_every


def keep_checkpoints_the_logs_reach(cohort, checkpoints):
    """A metrics.jsonl cut short or lost (issue 37): resume from the newest checkpoint
    whose training log every member still holds, and log onward; the newer ones are
    set aside (``Checkpoints.set_aside``), not deleted. Refused, naming what is
    missing and what to run, when no checkpoint is reached."""
    steps = checkpoints.all_steps()
    logging = [w for w in cohort.workdirs if not w.failed()]  # a failed one stopped
    if not steps or not cohort.is_writer:
        return
    train = cohort.config.train
    reached = [s for s in steps if all(w.has_train_log(log_step(train, s)) for w in logging)]
    if reached and reached[-1] == steps[-1]:
        return
    short = next(w for w in logging if not w.has_train_log(log_step(train, steps[-1])))
    logged = [r["step"] for r in short.read_metrics() if TRAIN_LOSS in r]
    ends = (f"ends at step {max(logged)}" if logged else
            "holds no training log" if short.metrics_path.exists() else "is missing")
    if not reached:
        raise RunError(
            f"{short.metrics_path} {ends}, before the log of every checkpoint (steps "
            f"{', '.join(map(str, steps))} in {checkpoints.directory}): a checkpoint "
            "holds the state, not the history, so the log cannot be rebuilt from one. "
            f"Nothing was changed. To train it again with a whole log, move {short.path} "
            "away (in a sweep, with its cohort's checkpoints) and rerun the same command.")
    aside = checkpoints.set_aside([s for s in steps if s > reached[-1]])
    if cohort.is_writer:
        tqdm.write(f"warning: {short.metrics_path} {ends}: resuming from the checkpoint "
                   f"of step {reached[-1]}, the newest its log reaches, and logging on; "
                   f"the newer checkpoints were moved to {aside}")


def resume(cohort, checkpoints, donor: adopt.Donor | None = None, resume_with=frozenset()):
    """The cohort's state and step from its newest checkpoint (the initial state at step 0
    where there is none), with its logs cut back to that step and its best parameters so
    far; or, for a member ``donor`` trained in another sweep (adopt.py), the donor's last
    state, saved as the member's own checkpoint first."""
    keep_checkpoints_the_logs_reach(cohort, checkpoints)
    template = cohort.initial_state()
    train = cohort.config.train
    if train.best_metric:  # the best parameters so far ride along in every checkpoint
        cohort.selection = BestParameters(train.best_metric, train.patience,
                                          train.eval_every, template.params)
    restored, step = checkpoints.restore_latest(cohort.checkpointed(template))
    adopted = not step and donor is not None  # another sweep trained it (adopt.py)
    if adopted:
        kept_step = (None if cohort.selection is None
                     else lambda both: int(np.asarray(jax.device_get(both[1]["step"]))[0]))
        restored = adopt.restore(donor, cohort.checkpointed(template), kept_step)
        step = donor.step
    elif not step and cohort.is_writer:
        adopt.forget(cohort.workdirs[0].path)  # a mark left by an adoption cut short
    if cohort.selection is not None:
        state, cohort.selection.state = restored
    else:
        state = restored
    if adopted:  # saved as this member's own, under its config (and kept value)
        if donor.kept_value is not None:
            cohort.selection.set_values([donor.kept_value])
        checkpoints.save(step, cohort.checkpointed(state), cohort.config_dicts(),
                         _adopted_segments(donor))
        checkpoints.check()
        if cohort.is_writer:
            adopt.mark(donor, cohort.workdirs[0].path)
    if step:  # the optimiser's rates are the config's: they may change on resume
        state = with_member_hyperparams(state, member_hyperparams(cohort.configs))
    change = cohort.environment.segments.begin(
        step, _adopted_segments(donor) if adopted else
        checkpoints.saved_segments(step) if step else None,
        dict(cohort.placement.mesh.shape), accept_mesh=MESH in resume_with)
    if change and cohort.is_writer:
        tqdm.write(change)
    cohort.last_checkpoint = step or None
    cohort.resumed_at_step = step
    logged_at = log_step(cohort.config.train, step)
    # Every member before any log is cut; a member that failed before the checkpoint
    # stopped logging when it failed, so only the healthy ones must reach it.
    failed_steps = np.asarray(fetch(state.failed_step)).reshape(-1)
    for workdir, failed_step in zip(cohort.workdirs, failed_steps):
        if not failed_step:
            workdir.check_log_reaches(step, logged_at)
    kept = [workdir.resume_at(step) for workdir in cohort.workdirs]
    for records, monitor in zip(kept, cohort.monitors):
        for record in records:  # warn as an unbroken run would
            if record.get(TRAIN_LOSS) is not None:
                monitor.update(record["step"], record[TRAIN_LOSS])
    times = [r[TIME] for r in kept[0] if TIME in r]
    cohort.time_offset = times[-1] if (step and times) else 0.0
    return state, step


def _adopted_segments(donor: adopt.Donor) -> list[dict]:
    """An adopted member's steps, as its segments name them: another sweep's run
    (adopted.json and summary.json's adopted_from say which, and on what)."""
    return [{"from_step": 0, "to_step": int(donor.step), "recorded": False,
             "adopted_from": str(donor.checkpoints)}]


def finished_summaries(configs, workdirs, resume_with=frozenset(),
                       checkpoint_dir=None) -> list | None:
    """Every member's saved summary when all of them finished their steps (or stopped
    early) under this config and their logs reach that step; else None (a config that
    differs is refused here, as a resume would refuse it: against config.json, or where
    that is lost against the checkpoint's own record, ``check_lost_configs``)."""
    if all((Path(w) / "summary.json").is_file() for w in workdirs):
        check_lost_configs(configs, workdirs, checkpoint_dir, resume_with)
    summaries = []
    for config, path in zip(configs, workdirs):
        workdir = WorkDir(path)
        summary_path = workdir.path / "summary.json"
        if not summary_path.is_file():
            return None
        workdir.check_config(config, resume_with)
        summary = read_json(summary_path)
        done = summary.get("status") == "finished" and (
            summary.get("steps") == config.train.num_steps or summary.get("stopped_early"))
        if not done or max((r["step"] for r in workdir.read_metrics()), default=-1) \
                != summary["steps"]:
            return None  # a log cut short is mended by resuming (keep_checkpoints_...)
        summaries.append(summary)
    return summaries


def check_lost_configs(configs, workdirs, checkpoint_dir, resume_with=frozenset()):
    """A run (or sweep member) with a summary.json but no config.json is checked against
    the config its newest checkpoint records, as config.json would be; with neither, it is
    refused: nothing could say which config made its summary (a rerun under other values
    printed "already finished" with the first run's metrics, issue 72)."""
    lost = [i for i, w in enumerate(workdirs) if (Path(w) / "summary.json").is_file()
            and not (Path(w) / "config.json").is_file()]
    if not lost:
        return
    saved, step = None, None
    if checkpoint_dir is not None and Path(checkpoint_dir).is_dir():
        checkpoints = Checkpoints(checkpoint_dir, read_only=True)
        try:
            step = checkpoints.latest_step()
            saved = checkpoints.saved_configs(step) if step is not None else None
        finally:
            checkpoints.close()
    for i in lost:
        workdir = Path(workdirs[i])
        was = _member_config(saved, configs, i)
        if was is None:
            raise ConfigMismatchError(
                f"{workdir / 'summary.json'} holds results, but {workdir / 'config.json'} is "
                f"missing and no checkpoint{f' in {checkpoint_dir}' if checkpoint_dir else ''}"
                " records the config that made them: nothing can check this command's "
                "config against them. Nothing was changed: restore config.json (from a copy, "
                f"or git), or move {workdir} away to train it again.")
        check_checkpoint_config([was], [configs[i]], step, checkpoint_dir, resume_with)


def _member_config(saved, configs, index: int):
    """Member ``index``'s entry in a checkpoint's configs: by place in a cohort saved as
    it is now, else by name (a cohort of another size); None where none is."""
    if not saved:
        return None
    if len(saved) == len(configs):
        return saved[index]
    return next((c for c in saved if c.get("name") == configs[index].name), None)


def _resume_without_config(cohort, step: int, where, resume_with, overrides):
    """The checkpoint of ``step`` records no config (one saved before checkpoints kept
    it) and a member's config.json is lost: nothing can check that this command trains
    the run the checkpoint began. A command that overrides fields of its config file is
    refused unless ``--resume_with`` names each of them; otherwise it resumes, says so, and
    config_history.json records that the config was lost at ``step``."""
    lost = [w for w in cohort.workdirs if not (w.path / "config.json").is_file()]
    if not lost:
        return
    unnamed = sorted(f for f in overrides if f not in resume_with and f not in RESOURCE_FIELDS)
    if unnamed:
        raise ConfigMismatchError(
            f"the config that trained the checkpoint of step {step} in {where} is lost (no "
            f"{lost[0].path / 'config.json'}, none in the checkpoint), and this command "
            f"overrides {', '.join(unnamed)}: nothing can tell whether those values trained "
            "it. Nothing was changed: rerun without the overrides, or name them in "
            f"--resume_with={','.join(unnamed)} to record them as set from step {step} on.")
    if cohort.is_writer:
        tqdm.write(f"warning: the config that trained the checkpoint of step {step} is lost "
                   f"(no config.json, none in the checkpoint): resuming under this command's "
                   f"config; {lost[0].path / 'config_history.json'} records it")
    for workdir in lost:
        workdir.record_changes(step, [("config", "lost", "the resuming command's")]
                               + [(f, "lost", None) for f in sorted(overrides)
                                  if f in resume_with])


def _check_identity(cohort: Cohort, checkpoints: Checkpoints, resume_with: frozenset,
                    overrides=()):
    """Refuse to resume a checkpoint trained under another config (the checkpoint's own
    record is checked, then config.json), before anything is written; then write
    config.json (rebuilt if it was lost) and record the changes ``resume_with`` allowed."""
    step = checkpoints.latest_step()
    saved = checkpoints.saved_configs(step) if step is not None else None
    if step:  # another mesh is refused here, before anything is written
        Segments().begin(step, checkpoints.saved_segments(step),
                         dict(cohort.placement.mesh.shape), accept_mesh=MESH in resume_with)
    if step and saved is None:
        _resume_without_config(cohort, step, checkpoints.directory, resume_with, overrides)
    changes = check_checkpoint_config(saved, cohort.configs, step, checkpoints.directory,
                                      resume_with)
    for config, workdir in zip(cohort.configs, cohort.workdirs):
        workdir.check_config(config, resume_with)
    for config, workdir, changed in zip(cohort.configs, cohort.workdirs, changes):
        if saved is None:  # an older checkpoint, or none: config.json tells what changed
            changed = workdir.changed_fields(config)
        workdir.check_or_write_config(config, resume_with)
        workdir.record_changes(step or 0, [d for d in changed if d[0] in resume_with])




def train(config, workdir, **kwargs) -> dict:
    """Train (or resume) one run in ``workdir``; returns its summary (see train_cohort).
    Raises ``health.NonFiniteError`` if it failed; its summary.json says so too."""
    summary = train_cohort([config], [workdir], Path(workdir) / "checkpoints", **kwargs)[0]
    if summary["status"] == "failed":
        raise health.NonFiniteError(summary["failure"]["message"])
    return summary
