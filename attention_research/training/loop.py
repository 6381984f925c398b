"""The training loop: resume, train, log, evaluate, checkpoint, plot, summarise.

``train_cohort`` trains the members of one cohort together (one compiled
``jit(vmap(step))``); each member logs, plots and summarises into its own work
directory, and the cohort's stacked state is checkpointed once. ``train(config,
workdir)`` — what ``launch.py`` calls for a single run — is a cohort of one whose
member directory and checkpoints are the work directory itself. Everything a run
writes is listed in ``attention_research/workdir.py``. Rerunning on the same work
directory resumes from the newest checkpoint and ends with the same metrics.

The loop names no task and no model family: the task (from the task registry)
supplies batches, evaluation and the final evaluation; the model comes from the
family registry; the alignment's training signal from the attention registry.
"""

from __future__ import annotations

import itertools
import resource
import time
from pathlib import Path
from typing import Callable, Sequence

import jax
import numpy as np
from tqdm import tqdm

from attention_research import models, plotting
from attention_research.attention import training_signal
from attention_research.checkpoints import Checkpoints
from attention_research.config_checks import validate
from attention_research.tasks import Run, get_task
from attention_research.training.mesh import Placement, make_mesh
from attention_research.training.state import (
    create_train_state, make_optimizer, member_hyperparams)
from attention_research.training.steps import make_train_call
from attention_research.workdir import WorkDir


def describe(config) -> str:
    """A short name for titles: the config's name, then the family's description."""
    return f"{config.name}: {models.FAMILIES[config.model.family].describe(config)}"


def peak_memory() -> dict:
    """Peak host RSS and, where the backend reports it, peak device memory, in MiB."""
    memory = {"host_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    stats = jax.local_devices()[0].memory_stats() or {}
    if "peak_bytes_in_use" in stats:
        memory["device_peak_mib"] = stats["peak_bytes_in_use"] / 2**20
    return memory


class Cohort:
    """State of one cohort's training, split into small steps for readability."""

    def __init__(self, configs, workdirs, start_time):
        self.configs = configs
        self.config = config = configs[0]  # every member shares the structure
        self.start_time = start_time
        self.workdirs = [WorkDir(path) for path in workdirs]
        self.seeds = [c.seed for c in configs]
        self.placement = Placement(make_mesh(config.mesh), len(configs))
        self.time_offset = 0.0  # wall time spent before a resume
        self.tx = make_optimizer(config.train)
        self.signal = training_signal(config.model.attention)
        self.task = get_task(config.task.name)(config, self.seeds, verbose=self.is_writer)
        self.model = models.make_model(config, self.task.vocab_size, self.task.vocab_size)
        self.train_call = make_train_call(self.model, self.tx, config, self.placement,
                                          sample_batch=self.task.sample_batch)
        self.evaluate = self.task.make_evaluation(self.model, self.placement)

    @property
    def is_writer(self):
        return self.workdirs[0].is_writer

    def elapsed(self) -> float:
        return self.time_offset + time.time() - self.start_time

    def initial_state(self):
        return create_train_state(self.model, self.tx, self.task.example_batch(), self.seeds,
                                  member_hyperparams(self.configs), self.placement.members,
                                  self.signal)

    def resume(self, checkpoints: Checkpoints):
        state, step = checkpoints.restore_latest(self.initial_state())
        for workdir in self.workdirs:
            workdir.keep_metrics_up_to(step)
        times = [r["time_s"] for r in self.workdirs[0].read_metrics() if "time_s" in r]
        self.time_offset = times[-1] if (step and times) else 0.0
        return state, step

    def call_inputs(self, step: int):
        """What each train call takes besides the state, from ``step`` on: nothing for
        a task that samples on the device, else the host's batches of each call."""
        if self.task.sample_batch is not None:
            return itertools.repeat(())
        first_call = step // self.config.train.steps_per_call
        return ((batch,) for batch in self.task.host_batches(first_call, self.placement))

    def compile_train_call(self, state, inputs, progress: bool):
        """The train call compiled ahead of time, so its cost is reported apart."""
        if self.task.sample_batch is None:
            return self.train_call  # host batches vary in width: jit compiles each width
        compile_start = time.time()
        compiled = self.train_call.lower(state, *inputs).compile()
        if self.is_writer and progress:  # through tqdm, not across its progress bar
            tqdm.write(f"compiled the train step of {len(self.configs)} member(s) in "
                       f"{time.time() - compile_start:.1f} s")
        return compiled

    def log_train(self, step, pending, since):
        """Average the pending train-call sums and log them per member.

        Fetching the sums waits for the device, so the clock read after it measures
        computation since ``since``, not just asynchronous dispatch.
        """
        sums = jax.tree_util.tree_map(lambda *xs: np.sum(xs, axis=0), *jax.device_get(pending))
        steps = len(pending) * self.config.train.steps_per_call
        tokens_per_s = float(np.sum(sums["tokens"])) / (time.time() - since)
        rows = []
        for member, workdir in enumerate(self.workdirs):
            row = {"train/loss": sums["loss"][member] / steps,
                   "train/token_acc": sums["correct"][member] / sums["tokens"][member],
                   "train/tokens_per_s": tokens_per_s, "time_s": self.elapsed()}
            workdir.log(step, member, row)
            rows.append(row)
        return rows

    def run_eval(self, step, state, log=True):
        results = self.evaluate(state.params)
        if log:
            for member, (workdir, result) in enumerate(zip(self.workdirs, results)):
                workdir.log(step, member, {**result["metrics"], "time_s": self.elapsed()})
        return results

    def finish(self, step, state, results):
        """The task's final evaluation and plots, learning curves, summary.json."""
        runs = [Run(config, workdir, describe(config))
                for config, workdir in zip(self.configs, self.workdirs)]
        finals = self.task.finish(state.params, results, runs, step)
        summaries = []
        for member, (run, result, final) in enumerate(zip(runs, results, finals)):
            if final.log:
                run.workdir.log(step, member, {**final.log, "time_s": self.elapsed()})
            if self.is_writer:
                plotting.learning_curves(run.workdir.plots_dir / "learning_curves.png",
                                         run.workdir.read_metrics(), run.title,
                                         score=self.task.curve_score)
            summary = {
                "name": run.config.name, "description": run.title, "task": self.task.name,
                "steps": step, "wall_time_s": self.elapsed(), "memory": peak_memory(),
                "devices": {"count": jax.device_count(), "platform": jax.devices()[0].platform,
                            "processes": jax.process_count(),
                            "mesh": dict(self.placement.mesh.shape),
                            "members_sharded": self.placement.member_axis is not None},
                **final.summary,
                "members": [{"member": member, "seed": run.config.seed,
                             "learning_rate": run.config.train.learning_rate,
                             "final": {**final.log, **result["metrics"]}, **final.member}]}
            run.workdir.write_summary(summary)
            summaries.append(summary)
        return summaries


def train_cohort(configs, workdirs, checkpoint_dir, *, start_time: float | None = None,
                 hooks: Sequence[Callable[[int], None]] = (), progress: bool = True) -> list:
    """Train (or resume) the members of one cohort together; returns their summaries.

    ``configs`` must differ only in per-member fields (see ``sweeps.PER_MEMBER_FIELDS``).
    ``hooks`` are called with the step after every jit call (tests use one to
    interrupt a run). Nothing written before an error is lost: pending checkpoint
    saves and metrics are flushed on the way out.
    """
    for config in configs:
        validate(config)
    cohort = Cohort(configs, workdirs, time.time() if start_time is None else start_time)
    for config, workdir in zip(configs, cohort.workdirs):
        workdir.check_or_write_config(config)
    checkpoints = Checkpoints(checkpoint_dir)
    train_config = cohort.config.train
    try:
        state, step = cohort.resume(checkpoints)
        inputs = cohort.call_inputs(step)
        train_call = None
        bar = tqdm(total=train_config.num_steps, initial=step, unit="step", dynamic_ncols=True,
                   disable=not (progress and cohort.is_writer))
        results = None
        if step == 0 and train_config.eval_at_start:
            cohort.run_eval(0, state)
        pending, last_log_time = [], time.time()
        while step < train_config.num_steps:
            call_inputs = next(inputs)
            if train_call is None:
                train_call = cohort.compile_train_call(state, call_inputs, progress)
            state, metrics = train_call(state, *call_inputs)
            pending.append(metrics)
            step += train_config.steps_per_call
            bar.update(train_config.steps_per_call)
            if step % train_config.log_every == 0 or step == train_config.num_steps:
                rows = cohort.log_train(step, pending, last_log_time)
                pending, last_log_time = [], time.time()
                bar.set_postfix(loss=f"{rows[0]['train/loss']:.3f}",
                                acc=f"{rows[0]['train/token_acc']:.3f}",
                                tok_s=f"{rows[0]['train/tokens_per_s']:.0f}")
            if step % train_config.eval_every == 0 or step == train_config.num_steps:
                results = cohort.run_eval(step, state)
                bar.write(f"step {step}: " + cohort.task.progress_line(results[0]["metrics"])
                          + (f" (member 0 of {len(configs)})" if len(configs) > 1 else ""))
                last_log_time = time.time()  # evaluation time is not training throughput
            if step % train_config.checkpoint_every == 0 or step == train_config.num_steps:
                checkpoints.save(step, state)
            for hook in hooks:
                hook(step)
        bar.close()
        if results is None:  # resumed a finished run: evaluate again, already logged
            results = cohort.run_eval(step, state, log=False)
        summaries = cohort.finish(step, state, results)
    finally:
        checkpoints.close()
        for workdir in cohort.workdirs:
            workdir.close()
    return summaries


def train(config, workdir, **kwargs) -> dict:
    """Train (or resume) one run in ``workdir``; returns its summary (see train_cohort)."""
    return train_cohort([config], [workdir], Path(workdir) / "checkpoints", **kwargs)[0]
