"""The training loop of one cohort: resume, train, log, evaluate, checkpoint, summarise.

A ``Cohort`` holds what its members share (one compiled ``jit(vmap(step))``, the task,
the model) and each member's work directory; ``train_steps`` runs it from its newest
checkpoint to the last step and its final evaluation. The run around it
(``running/run.py``: the lock, the checkpoints, the config checks on resume, signals,
adoption) builds both and hands them in; the loop imports none of that, and asks the
run what it must know through ``cohort.environment``.

A run never reports garbage (``health.py``): a member whose loss, gradient norm or
parameters become non-finite stops at its last finite state. Its ``summary.json``
says why (``status: failed``), and the other members of its cohort train on.

The loop names no task and no model family: the task (from the task registry)
supplies batches, evaluation and the final evaluation; the model comes from the
family registry; the alignment's training signal from the attention registry.
"""

from __future__ import annotations

import itertools
import json
import resource
import time

import jax
import numpy as np
from tqdm import tqdm

from attention_research import models

from attention_research.reports import plotting
from attention_research.attention import training_signal
from attention_research.tasks import Run, get_task
from attention_research.training import compile_ahead, health, memory, timing
from attention_research.training.mesh import Placement, fetch, make_mesh
from attention_research.training.selection import BestParameters, average_parameters
from attention_research.training.state import (
    make_initializer, make_optimizer, member_hyperparams, with_member_hyperparams)
from attention_research.training.steps import make_gradient_statistics, make_train_call
from attention_research.errors import RunError


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

    def __init__(self, configs, workdirs, start_time, environment=None):
        self.configs = configs
        self.config = config = configs[0]  # every member shares the structure
        self.start_time = start_time
        # Every second from start_time on is charged to one phase (timing.py).
        self.stopwatch = timing.Stopwatch(start_time)
        self.resumed_at_step = 0
        # What the run around the loop answers (running/run.py's RunEnvironment): where
        # the code came from, stop requests, adoption (None: a cohort that only builds).
        self.environment = environment
        self.train_calls = 0  # made by this process
        self.workdirs = list(workdirs)  # each member's WorkDir (running/workdir.py)
        # This process writes (process 0). Fixed here: a failed member's directory
        # stops taking writes, the cohort's progress output does not.
        self.is_writer = self.workdirs[0].is_writer
        self.seeds = [c.seed for c in configs]
        self.placement = Placement(make_mesh(config.mesh), len(configs))
        self.time_offset = 0.0  # wall time spent before a resume
        self.tx = make_optimizer(config.train)
        self.signal = training_signal(config.model.attention)
        self.task = get_task(config.task.name)(config, self.seeds, verbose=self.is_writer)
        self.model = models.make_model(config, self.task.vocab_size, self.task.vocab_size)
        self.monitors = [health.DivergenceMonitor(self.task.vocab_size) for _ in configs]
        self.failures: dict[int, dict] = {}  # member -> its failure (see check_health)
        self.last_checkpoint = None  # the step of the newest checkpoint on disk
        self.train_program = compile_ahead.TrainProgram(
            make_train_call(self.model, self.tx, config, self.placement,
                            sample_batch=self.task.sample_batch), len(configs))
        self.evaluate = self.task.make_evaluation(self.model, self.placement)
        self.precompiled_evaluation = compile_ahead.EvaluationPrecompile(self.evaluate)
        self.selection = None  # BestParameters with train.best_metric (set by resume)
        self.final_choice = [{} for _ in configs]  # how each member's final params were chosen
        self.gradient_statistics = None
        if config.train.gradient_batches:
            alternative = None
            if config.train.gradient_alt_soft_fraction >= 0:  # same parameters, other estimator
                alt_config = config.copy_and_resolve_references()
                alt_config.model.attention.hard.soft_fraction = (
                    config.train.gradient_alt_soft_fraction)
                alternative = models.make_model(alt_config, self.task.vocab_size,
                                                self.task.vocab_size)
            self.gradient_statistics = make_gradient_statistics(
                self.model, config, self.placement, self.task.sample_batch, alternative)
        # One jitted initialiser: the shapes checked here and the state made later share
        # its trace.
        self.initializer = make_initializer(self.model, self.tx, self.task.example_batch(),
                                            self.placement.members, self.signal)
        self.state_shapes = jax.eval_shape(self.initial_state)
        memory.check_state(self.state_shapes)  # before it is allocated

    def elapsed(self) -> float:
        return self.time_offset + time.time() - self.start_time

    def initial_state(self):
        return self.initializer(self.seeds, member_hyperparams(self.configs))

    def log_step(self, step: int) -> int:
        """The last training log written before the checkpoint of ``step``."""
        train = self.config.train
        return step if step == train.num_steps else step // train.log_every * train.log_every

    def keep_checkpoints_the_logs_reach(self, checkpoints):
        """A metrics.jsonl cut short or lost (issue 37): resume from the newest checkpoint
        whose training log every member still holds, and log onward; the newer ones are
        set aside (``Checkpoints.set_aside``), not deleted. Refused, naming what is
        missing and what to run, when no checkpoint is reached."""
        steps = checkpoints.all_steps()
        logging = [w for w in self.workdirs if not w.failed()]  # a failed one stopped
        if not steps or not self.is_writer:
            return
        reached = [s for s in steps if all(w.has_train_log(self.log_step(s)) for w in logging)]
        if reached and reached[-1] == steps[-1]:
            return
        short = next(w for w in logging if not w.has_train_log(self.log_step(steps[-1])))
        logged = [r["step"] for r in short.read_metrics() if "train/loss" in r]
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
        if self.is_writer:
            tqdm.write(f"warning: {short.metrics_path} {ends}: resuming from the checkpoint "
                       f"of step {reached[-1]}, the newest its log reaches, and logging on; "
                       f"the newer checkpoints were moved to {aside}")

    def resume(self, checkpoints):
        self.keep_checkpoints_the_logs_reach(checkpoints)
        template = self.initial_state()
        train = self.config.train
        if train.best_metric:  # the best parameters so far ride along in every checkpoint
            self.selection = BestParameters(train.best_metric, train.patience,
                                            train.eval_every, template.params)
        restored, step = checkpoints.restore_latest(self.checkpointed(template))
        donor = self.environment.donor
        adopted = not step and donor is not None  # another sweep trained it (adopt.py)
        if adopted:
            kept_step = (None if self.selection is None
                         else lambda both: int(np.asarray(jax.device_get(both[1]["step"]))[0]))
            restored = self.environment.restore_donor(self.checkpointed(template), kept_step)
            step = donor.step
        elif not step and self.is_writer:
            self.environment.forget_adoption(self.workdirs[0].path)  # one cut short
        if self.selection is not None:
            state, self.selection.state = restored
        else:
            state = restored
        if adopted:  # saved as this member's own, under its config (and kept value)
            if donor.kept_value is not None:
                self.selection.set_values([donor.kept_value])
            checkpoints.save(step, self.checkpointed(state), self.config_dicts())
            checkpoints.check()
            if self.is_writer:
                self.environment.mark_adopted(self.workdirs[0].path)
        if step:  # the optimiser's rates are the config's: they may change on resume
            state = with_member_hyperparams(state, member_hyperparams(self.configs))
        self.last_checkpoint = step or None
        self.resumed_at_step = step
        log_step = self.log_step(step)
        # Every member before any log is cut; a member that failed before the checkpoint
        # stopped logging when it failed, so only the healthy ones must reach it.
        failed_steps = np.asarray(fetch(state.failed_step)).reshape(-1)
        for workdir, failed_step in zip(self.workdirs, failed_steps):
            if not failed_step:
                workdir.check_log_reaches(step, log_step)
        kept = [workdir.resume_at(step) for workdir in self.workdirs]
        for records, monitor in zip(kept, self.monitors):
            for record in records:  # warn as an unbroken run would
                if record.get("train/loss") is not None:
                    monitor.update(record["step"], record["train/loss"])
        times = [r["time_s"] for r in kept[0] if "time_s" in r]
        self.time_offset = times[-1] if (step and times) else 0.0
        return state, step

    def healthy(self, member: int) -> bool:
        return member not in self.failures

    def check_health(self, failed_steps, failures) -> bool:
        """Take each member's health fields (fetched from the device); write a
        failure summary for each member newly found non-finite. False once every
        member has failed: nothing is left to train."""
        for member, (step, failure) in enumerate(zip(np.asarray(failed_steps),
                                                     np.asarray(failures))):
            if step and self.healthy(member):
                message = health.failure_message(self.configs[member], member, int(step),
                                                 int(failure), self.last_checkpoint)
                self.failures[member] = {"step": int(step),
                                         "quantity": health.describe_failure(int(failure)),
                                         "message": message}
                if self.is_writer and len(self.configs) > 1:
                    tqdm.write(f"error: {message} The other members go on.")
                workdir = self.workdirs[member]
                workdir.write_summary(self.summary(member, int(step), status="failed"))
                workdir.stop_writing()
        return len(self.failures) < len(self.configs)

    def call_inputs(self, step: int):
        """What each train call takes besides the state, from ``step`` on: nothing for
        a task that samples on the device, else the host's batches of each call."""
        if self.task.sample_batch is not None:
            return itertools.repeat(())
        first_call = step // self.config.train.steps_per_call
        return ((batch,) for batch in self.task.host_batches(first_call, self.placement))

    def compile_train_call(self, state, inputs, progress: bool):
        """The train call compiled ahead of time for these inputs' shapes (host batches
        vary in width: one program per width), its cost charged to ``train_compile``
        (compile_ahead.py). The program ``start_train_compile`` compiled beside setup is
        taken when it fits the state."""
        with self.stopwatch.phase("train_compile"):
            compile_start = time.time()
            early = None if inputs else self.train_program.take_early(state)
            compiled = early[0] if early else self.train_program.compile(state, inputs)
        if self.is_writer and progress and self.task.sample_batch is not None:
            words = (f"{early[1]:.1f} s, beside the initial state" if early
                     else f"{time.time() - compile_start:.1f} s")
            tqdm.write(f"compiled the train step of {len(self.configs)} member(s) in "
                       f"{words}")  # through tqdm, not across its bar
        return compiled

    def start_train_compile(self):
        """Compile the train call beside setup (compile_ahead.py), for a task that samples
        its batches on the device, whose train call takes the state alone; host batches'
        widths are known once they are read. Counted under ``background``."""
        if self.task.sample_batch is not None:
            self.train_program.start_early(self.state_shapes, self.placement.members)

    def throughput(self, seconds: float) -> dict:
        """Achieved matrix FLOP/s over this process's training phase (``seconds``), per
        device and per member, beside the device's peak (flops.py). Host batches vary in
        width: their count is the first width's, so it is marked approximate."""
        if not self.train_program.matmul_flops_per_call or not self.train_calls or seconds <= 0:
            return {}
        members, devices = len(self.configs), jax.device_count()
        steps = self.config.train.steps_per_call
        achieved = self.train_program.matmul_flops_per_call * self.train_calls / seconds
        result = {"matmul_gflop_per_member_step":
                      self.train_program.matmul_flops_per_call / members / steps / 1e9,
                  "xla_cost_analysis_gflop_per_call": (
                      None if self.train_program.xla_flops_per_call is None else self.train_program.xla_flops_per_call / 1e9),
                  "gflop_per_s_per_device": achieved / devices / 1e9,
                  "gflop_per_s_per_member": achieved / members / 1e9,
                  "counted": ("exact" if self.task.sample_batch is not None
                              else "approximate: the first batch width's FLOPs per step")}
        peak = self.environment.device_peak()
        if peak is not None:
            result.update(peak_gflop_per_s_per_device=peak[0] / 1e9, peak_source=peak[1],
                          fraction_of_peak=achieved / devices / peak[0])
        return result

    def log_train(self, step, pending, since):
        """Average the pending train-call sums, check health, log per healthy member.

        Fetching the sums waits for the device, so the clock read after it measures
        computation since ``since``, not just asynchronous dispatch. Returns whether
        any member is still healthy, and the first healthy member's row (for the
        progress bar; None if none is).
        """
        pending = jax.device_get(pending)
        last = pending[-1]  # the health fields are the state's, not sums
        alive = self.check_health(last["failed_step"], last["failure"])
        sums = jax.tree_util.tree_map(lambda *xs: np.sum(xs, axis=0),
                                      *[{k: p[k] for k in ("loss", "correct", "tokens",
                                                           "grad_norm")} for p in pending])
        steps = len(pending) * self.config.train.steps_per_call
        seconds = time.time() - since
        tokens_per_s = float(np.sum(sums["tokens"])) / seconds
        # Achieved matrix FLOP/s of the cohort per device (flops.py; host batches: the
        # first batch width's count).
        gflop_per_s = (self.train_program.matmul_flops_per_call * len(pending) / seconds
                       / jax.device_count() / 1e9) if self.train_program.matmul_flops_per_call else None
        first_row = None
        for member, workdir in enumerate(self.workdirs):
            if not self.healthy(member):
                continue
            row = {"train/loss": sums["loss"][member] / steps,
                   "train/token_acc": sums["correct"][member] / sums["tokens"][member],
                   "train/grad_norm": sums["grad_norm"][member] / steps,
                   "train/tokens_per_s": tokens_per_s,
                   **({"train/gflop_per_s": gflop_per_s} if gflop_per_s else {}),
                   "time_s": self.elapsed()}
            workdir.log(step, member, row)
            for warning in self.monitors[member].update(step, float(row["train/loss"])):
                if self.is_writer:
                    tqdm.write(f"warning: member {member}: {warning}")
            first_row = first_row or row
        return alive, first_row

    def config_dicts(self) -> list[dict]:
        """Each member's config as JSON, saved in every checkpoint (its identity)."""
        return [json.loads(config.to_json()) for config in self.configs]

    def checkpointed(self, state):
        """What a checkpoint holds: the train state, and the best parameters if kept."""
        return state if self.selection is None else (state, self.selection.state)

    def stopped_early(self, step: int) -> bool:
        return self.selection is not None and self.selection.exhausted(step, self.healthy)

    def run_eval(self, step, state, log=True, kind="full"):
        jax.block_until_ready(state.params)  # the queued train steps are training's time
        with self.stopwatch.evaluation(step, kind):
            self.precompiled_evaluation.wait()  # the evaluation's time: training waits for it
            return self._run_eval(step, state, log)

    def _run_eval(self, step, state, log):
        results = self.evaluate(state.params)
        if log and self.selection is not None:
            self.selection.update(step, state.params, results, self.healthy)
        if self.gradient_statistics is not None:
            gradients = fetch(self.gradient_statistics(state))
            for member, result in enumerate(results):
                result["metrics"].update({f"eval/{name}/attention": float(value[member])
                                          for name, value in gradients.items()})
        if log:
            for member, (workdir, result) in enumerate(zip(self.workdirs, results)):
                if self.healthy(member):
                    workdir.log(step, member, {**result["metrics"], "time_s": self.elapsed()})
                    if workdir.is_writer:  # heat maps and samples for TensorBoard
                        workdir.log_pictures(step, *self.task.pictures(result))
        return results

    def run_curve_eval(self, step, state):
        """The seen lengths alone (train.curve_eval_every), logged; no selection."""
        jax.block_until_ready(state.params)
        with self.stopwatch.evaluation(step, "seen lengths"):
            self.precompiled_evaluation.wait()
            results = self.evaluate(state.params, seen_only=True)
        for member, (workdir, result) in enumerate(zip(self.workdirs, results)):
            if self.healthy(member):
                workdir.log(step, member, {**result["metrics"], "time_s": self.elapsed()})

    def summary(self, member: int, step: int, status: str, final=None, result=None) -> dict:
        """A member's summary.json; ``final`` and ``result`` for a finished one."""
        config = self.configs[member]
        entry = {"member": member, "seed": config.seed,
                 "learning_rate": config.train.learning_rate, "final": {}}
        if final is not None:
            entry.update(final=({**final.log, **result["metrics"]}), **final.member,
                         **self.final_choice[member])
        report = self.stopwatch.report()
        timed = {**report, "throughput": self.throughput(report["phases_s"]["training"]),
                 **({"resumed_at_step": self.resumed_at_step} if self.resumed_at_step else {})}
        return {
            "name": config.name, "description": describe(config), "task": self.task.name,
            "status": status, **({"failure": self.failures[member]} if status == "failed"
                                 else {}),
            "steps": step, "wall_time_s": self.elapsed(), "time": timed,
            "memory": peak_memory(),
            "code": self.environment.code(), "software": self.environment.software(),
            "devices": {"count": jax.device_count(), "platform": jax.devices()[0].platform,
                        "kind": jax.devices()[0].device_kind,
                        # A GPU's "default" runs float32 matrix products in TF32; set
                        # by JAX_DEFAULT_MATMUL_PRECISION (docs/speed.md).
                        "matmul_precision": jax.config.jax_default_matmul_precision
                        or "default",
                        "processes": jax.process_count(),
                        "mesh": dict(self.placement.mesh.shape),
                        "members_sharded": self.placement.member_axis is not None,
                        **({"cpu": self.environment.cpu()}
                           if jax.devices()[0].platform == "cpu" else {})},
            "warnings": self.monitors[member].warnings,
            **({"stopped_early": step < config.train.num_steps and status == "finished"}
               if config.train.patience else {}),
            **(final.summary if final is not None else {}),
            **({"config_history": history}
               if (history := self.workdirs[member].config_history()) else {}),
            **({"adopted_from": adopted}
               if (adopted := self.environment.adopted_from(self.workdirs[member].path,
                                                            entry["final"])) else {}),
            "members": [entry]}

    def final_parameters(self, step, state, checkpoints, results):
        """The parameters the final evaluation uses, and their held-out results: the
        last, the best by ``train.best_metric``, or the mean of the last
        ``train.average_last`` checkpoints (``selection.py``). ``results``: the last
        evaluation's, or None for a resumed finished run (evaluated again if needed)."""
        train = self.config.train
        if self.selection is not None:
            params = self.selection.state["params"]
            self.final_choice = [{"selected": self.selection.describe(m)}
                                 for m in range(len(self.configs))]
        elif train.average_last:
            params, steps = average_parameters(checkpoints, self.initial_state(),
                                               train.average_last)
            self.final_choice = [{"averaged_steps": steps} for _ in self.configs]
        else:
            if results is None:  # a resumed finished run: evaluate again, already logged
                results = self.run_eval(step, state, log=False, kind="final")
            return state.params, results
        with self.stopwatch.evaluation(step, "final"):
            self.precompiled_evaluation.wait()
            return params, self.evaluate(params)

    def finish(self, step, params, results):
        """The task's final evaluation and plots, learning curves, summary.json.

        A failed member's directory takes no more writes (``check_health``): it keeps
        its failure summary, and no plot is made of its frozen parameters."""
        runs = [Run(config, workdir, describe(config))
                for config, workdir in zip(self.configs, self.workdirs)]
        finals = self.task.finish(params, results, runs, step)
        summaries = []
        for member, (run, result, final) in enumerate(zip(runs, results, finals)):
            if not self.healthy(member):
                summaries.append(self.summary(member, self.failures[member]["step"],
                                              status="failed"))
                continue
            # A resumed finished run has logged its final metrics already; a run adopted
            # from another sweep (adopt.py) has logged those its donor measured, and
            # logs only its own (its analysis).
            if unlogged := run.workdir.unlogged(step, final.log):
                run.workdir.log(step, member, {**unlogged, "time_s": self.elapsed()})
            if run.workdir.is_writer:
                plotting.learning_curves(run.workdir.plots_dir / "learning_curves.png",
                                         run.workdir.read_metrics(), run.title,
                                         score=self.task.curve_score)
            summary = self.summary(member, step, "finished", final, result)
            run.workdir.write_summary(summary)
            summaries.append(summary)
        return summaries

    def failed_summaries(self):
        return [self.summary(member, self.failures[member]["step"], status="failed")
                for member in range(len(self.configs))]


def show_progress(bar, row):
    if row is not None:
        bar.set_postfix(loss=f"{row['train/loss']:.3f}", acc=f"{row['train/token_acc']:.3f}",
                        tok_s=f"{row['train/tokens_per_s']:.0f}")


def train_steps(cohort: Cohort, checkpoints, hooks, progress: bool) -> list:
    train_config = cohort.config.train
    watch = cohort.stopwatch
    watch.switch("setup")
    if (checkpoints.latest_step() or 0) < train_config.num_steps:  # steps left to train
        cohort.start_train_compile()
    state, step = cohort.resume(checkpoints)
    alive = cohort.check_health(*fetch((state.failed_step, state.failure)))
    inputs = cohort.call_inputs(step)
    # Host batches vary in width: one compiled program per width (its shapes' key).
    compiled, shapes_of = {}, lambda tree: tuple(x.shape for x in jax.tree_util.tree_leaves(tree))
    bar = tqdm(total=train_config.num_steps, initial=step, unit="step", dynamic_ncols=True,
               disable=not (progress and cohort.is_writer))
    try:
        results = None
        if step == 0 and train_config.eval_at_start:
            cohort.run_eval(0, state)
        pending, last_log_time = [], time.time()
        while alive and step < train_config.num_steps and not cohort.stopped_early(step):
            call_inputs = next(inputs)
            shapes = shapes_of(call_inputs)
            if shapes not in compiled:
                compile_start = time.time()
                compiled[shapes] = cohort.compile_train_call(state, call_inputs, progress)
                if cohort.environment.stop_requested() and not cohort.train_calls:
                    cohort.environment.stop(step)  # asked while starting
                if not cohort.train_calls:
                    watch.switch("training")
                last_log_time += time.time() - compile_start  # not training throughput
            state, metrics = compiled[shapes](state, *call_inputs)
            if not cohort.train_calls:  # the device is busy: compile evaluation beside it
                cohort.precompiled_evaluation.start(state.params)
            cohort.train_calls += 1
            pending.append(metrics)
            step += train_config.steps_per_call
            bar.update(train_config.steps_per_call)
            at = lambda every: step % every == 0 or step == train_config.num_steps
            curve_step = bool(train_config.curve_eval_every) and at(train_config.curve_eval_every)
            # Health is read with the logged sums; evaluations and checkpoints read it
            # too (they wait for the device anyway), so none of them uses a failed state.
            if at(train_config.log_every):
                with watch.phase("checkpoints"):
                    checkpoints.check()  # a failed save stops training here
                alive, row = cohort.log_train(step, pending, last_log_time)
                pending, last_log_time = [], time.time()
                show_progress(bar, row)
            elif at(train_config.eval_every) or at(train_config.checkpoint_every) or curve_step:
                alive = cohort.check_health(*jax.device_get(
                    (pending[-1]["failed_step"], pending[-1]["failure"])))
            if not alive:
                break
            if at(train_config.eval_every):
                results = cohort.run_eval(step, state)
                first = min(m for m in range(len(cohort.configs)) if cohort.healthy(m))
                line = f"step {step}: " + cohort.task.progress_line(results[first]["metrics"])
                if len(cohort.configs) > 1:
                    line += f" (member {first} of {len(cohort.configs)})"
                if progress and cohort.is_writer:
                    bar.write(line)
                last_log_time = time.time()  # evaluation time is not training throughput
            elif curve_step:
                cohort.run_curve_eval(step, state)
                last_log_time = time.time()
            # Stopping early saves where it stops, so a resumed run stays stopped.
            stop = cohort.stopped_early(step)
            if at(train_config.checkpoint_every) or stop:
                jax.block_until_ready(state.params)  # the queued steps are training's
                with watch.phase("checkpoints"):
                    checkpoints.save(step, cohort.checkpointed(state), cohort.config_dicts())
                cohort.last_checkpoint = step
            for hook in hooks:
                hook(step)
            if cohort.environment.stop_requested() and at(train_config.log_every):
                _stop_on_signal(cohort, checkpoints, step, state)
            if stop and progress and cohort.is_writer:
                bar.write(f"step {step}: no member has improved "
                          f"{train_config.best_metric} for {train_config.patience} "
                          "evaluations; stopping early")
        with watch.phase("checkpoints"):
            checkpoints.check()  # the last save, too, must have succeeded
    finally:
        bar.close()  # before an error is printed, so it is not drawn over
    if not alive:  # every member failed: nothing to evaluate
        return cohort.failed_summaries()
    if cohort.environment.stop_requested():  # before the final evaluation; it is saved
        cohort.environment.stop(step)
    watch.switch("final")
    params, results = cohort.final_parameters(step, state, checkpoints, results)
    return cohort.finish(step, params, results)


def _stop_on_signal(cohort: Cohort, checkpoints, step: int, state):
    """A signal asked to stop (preemption.py): at this log boundary everything an
    uninterrupted run does here is done; save a checkpoint unless one was saved here,
    wait for it, and stop. The work directories are flushed as the error leaves."""
    if cohort.last_checkpoint != step:
        checkpoints.save(step, cohort.checkpointed(state), cohort.config_dicts())
        cohort.last_checkpoint = step
    checkpoints.check()
    cohort.environment.stop(step)
