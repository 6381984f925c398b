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

from attention_research.running import adopt, peaks, preemption
from attention_research.running.checkpoints import Checkpoints
from attention_research.running.lock import DirectoryLock
from attention_research.running.workdir import (WorkDir, check_checkpoint_config, code_version,
                                                read_json, software_versions)
from attention_research.training import health, memory
from attention_research.training.config_checks import validate
from attention_research.training.loop import Cohort, train_steps


class RunEnvironment:
    """What the training loop asks of the run around it: the code and software that
    train (summary.json names them), the CPU and the device's peak FLOP/s (peaks.py),
    whether a signal asked to stop (preemption.py), and the finished run of another
    sweep the cohort starts from, if any (``donor``, adopt.py)."""

    def __init__(self, donor: adopt.Donor | None = None):
        self.donor = donor

    code = staticmethod(code_version)
    software = staticmethod(software_versions)
    cpu = staticmethod(peaks.cpu_description)
    device_peak = staticmethod(peaks.device_peak)
    stop_requested = staticmethod(preemption.requested)

    @staticmethod
    def stop(step: int):
        """Stop here: the loop has saved what a resume needs."""
        raise preemption.Preempted(preemption.requested(), step)

    def restore_donor(self, template, kept_step):
        return adopt.restore(self.donor, template, kept_step)

    def mark_adopted(self, member: Path):
        adopt.mark(self.donor, member)

    forget_adoption = staticmethod(adopt.forget)

    @staticmethod
    def adopted_from(member: Path, final: dict) -> dict | None:
        """adopted.json's record beside this run's final metrics, for an adopted member."""
        record = adopt.adopted(member)
        return adopt.compare_final(record, final) if record else None


def train_cohort(configs, workdirs, checkpoint_dir, *, start_time: float | None = None,
                 hooks: Sequence[Callable[[int], None]] = (), progress: bool = True,
                 resume_with=frozenset(), refinish: bool = False,
                 adopt_from: adopt.Donor | None = None) -> list:
    """Train (or resume) the members of one cohort together; returns their summaries.

    ``configs`` must differ only in per-member fields (see ``sweeps.PER_MEMBER_FIELDS``).
    The directory holding ``checkpoint_dir`` (the run's, or in a sweep the cohort's)
    is locked while the cohort trains. ``hooks`` are called with the step after
    every jit call (tests use one to interrupt a run). Nothing written before an
    error is lost. A member that fails (non-finite) gets a summary with
    ``status: failed``; the others train on. ``resume_with``: the training fields
    (``workdir.parse_resume_with``) that may differ from the checkpoint's config; each
    change is recorded, with its step, in config_history.json and summary.json.
    A cohort whose every member has finished (``finished_summaries``) is not touched:
    its saved summaries are returned, unless ``refinish`` asks for its final
    evaluation, plots and summaries again. ``adopt_from``: for a cohort of one member
    with no checkpoint yet, the finished run of another sweep it starts from
    (``adopt.py``): its logs are copied in once the lock is held.
    """
    # The code this process runs is the checkout's when it begins, not when a summary is
    # written hours later (code_version is cached from its first call; an audit found a
    # sweep's later members named a commit made while they trained).
    code_version()
    for config in configs:
        validate(config)
    finished = None if refinish else finished_summaries(configs, workdirs, resume_with)
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
                        RunEnvironment(donor=None))
        # Averaging needs the last k checkpoints on disk; one more is room for a
        # checkpoint saved on a stop (preemption.py), deleted after the next regular one.
        train_config = configs[0].train
        checkpoints = Checkpoints(
            checkpoint_dir, max_to_keep=max(2, train_config.average_last) + 1,
            regular=lambda step: (step % train_config.checkpoint_every == 0
                                  or step == train_config.num_steps))
        if adopt_from is not None and checkpoints.latest_step() is None:
            if cohort.is_writer:  # under the lock: no other process trains it now
                adopt.take_logs(adopt_from, cohort.workdirs[0].path)
            cohort.environment.donor = adopt_from
        try:
            _check_identity(cohort, checkpoints, frozenset(resume_with))
            # At every train call: stop if the lock file was deleted under this run.
            with preemption.stop_on_signals():
                return train_steps(cohort, checkpoints, (lock.verify, *hooks), progress)
        finally:
            checkpoints.close()
            for workdir in cohort.workdirs:
                workdir.close()
            cohort.stopwatch.close()
    finally:
        lock.release()


def finished_summaries(configs, workdirs, resume_with=frozenset()) -> list | None:
    """Every member's saved summary when all of them finished their steps (or stopped
    early) under this config and their logs reach that step; else None (a config that
    differs is refused here, as a resume would refuse it)."""
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


def _check_identity(cohort: Cohort, checkpoints: Checkpoints, resume_with: frozenset):
    """Refuse to resume a checkpoint trained under another config (the checkpoint's own
    record is checked, then config.json), before anything is written; then write
    config.json (rebuilt if it was lost) and record the changes ``resume_with`` allowed."""
    step = checkpoints.latest_step()
    saved = checkpoints.saved_configs(step) if step is not None else None
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
