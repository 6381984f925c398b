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

The loop names no task, no model family and no figure: the task (from the task
registry) supplies batches and held-out data, its evaluation (``evaluation/``)
runs the models over that data, the model comes from the family registry, the
alignment's training signal from the attention registry, and the figures from the
caller (``Cohort(figures=...)``; ``attention_research.api`` hands reports' in).
"""

from __future__ import annotations

import itertools
import json
import time

import jax
import numpy as np
from tqdm import tqdm

from attention_research import models
from attention_research.attention import training_signal
from attention_research.metric_names import (TIME, TRAIN_GFLOP_PER_S, TRAIN_GRAD_NORM, TRAIN_LOSS,
                                             TRAIN_TOKEN_ACC, TRAIN_TOKENS_PER_S, eval_key)
from attention_research.tasks import get_task
from attention_research.training import compile_ahead, health, memory, timing
from attention_research.training.evaluation import Run, make_evaluation
from attention_research.training.mesh import Placement, fetch, make_mesh
from attention_research.training.selection import average_parameters
from attention_research.training.state import make_initializer, make_optimizer, member_hyperparams
from attention_research.training.steps import (alternative_estimator, make_gradient_statistics,
                                               make_train_call)
from attention_research.training.summary import describe, member_summary


class Cohort:
    """State of one cohort's training, split into small steps for readability."""

    def __init__(self, configs, workdirs, start_time, environment=None, figures=None):
        self.configs = configs
        self.config = config = configs[0]  # every member shares the structure
        self.start_time = start_time
        # Every second from start_time on is charged to one phase (timing.py).
        self.stopwatch = timing.Stopwatch(start_time)
        self.resumed_at_step = 0
        # What the run around the loop answers (running/run.py's RunEnvironment): where
        # the code came from, the device's peak, stop requests (None: a cohort that only
        # builds its state).
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
        # The task's evaluation runs the models over its held-out data (evaluation/);
        # what is drawn from it is the reports layer's, handed in (``figures(task)``:
        # reports/figures.py's ``figures_for``; None draws nothing).
        self.evaluate = make_evaluation(self.task, self.model, self.placement)
        self.figures = figures(self.task) if figures is not None else None
        self.precompiled_evaluation = compile_ahead.EvaluationPrecompile(self.evaluate)
        self.selection = None  # BestParameters with train.best_metric (set by resume)
        self.final_choice = [{} for _ in configs]  # how each member's final params were chosen
        self.gradient_statistics = None
        if config.train.gradient_batches:
            self.gradient_statistics = make_gradient_statistics(
                self.model, config, self.placement, self.task.sample_batch,
                alternative_estimator(config, self.task.vocab_size))
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
        per_call = self.train_program.matmul_flops_per_call
        gflop_per_s = (per_call * len(pending) / seconds / jax.device_count() / 1e9
                       if per_call else None)
        first_row = None
        for member, workdir in enumerate(self.workdirs):
            if not self.healthy(member):
                continue
            row = {TRAIN_LOSS: sums["loss"][member] / steps,
                   TRAIN_TOKEN_ACC: sums["correct"][member] / sums["tokens"][member],
                   TRAIN_GRAD_NORM: sums["grad_norm"][member] / steps,
                   TRAIN_TOKENS_PER_S: tokens_per_s,
                   **({TRAIN_GFLOP_PER_S: gflop_per_s} if gflop_per_s else {}),
                   TIME: self.elapsed()}
            workdir.log(step, member, row)
            for warning in self.monitors[member].update(step, float(row[TRAIN_LOSS])):
                if self.is_writer:
                    tqdm.write(f"warning: member {member}: {warning}")
            first_row = first_row or row
        return alive, first_row

    def record(self, step: int) -> tuple[list[dict], list[dict] | None]:
        """What a checkpoint of ``step`` keeps beside the state: each member's config, and
        the run's segments so far (the environment's, running/segments.py)."""
        segments = getattr(self.environment, "segments", None)
        return self.config_dicts(), (segments.until(step) if segments is not None else None)

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
                result["metrics"].update({eval_key(name, "attention"): float(value[member])
                                          for name, value in gradients.items()})
        if log:
            for member, (workdir, result) in enumerate(zip(self.workdirs, results)):
                if self.healthy(member):
                    workdir.log(step, member, {**result["metrics"], TIME: self.elapsed()})
                    if workdir.is_writer and self.figures is not None:  # for TensorBoard
                        workdir.log_pictures(step, *self.figures.pictures(result))
        return results

    def run_curve_eval(self, step, state):
        """The seen lengths alone (train.curve_eval_every), logged; no selection."""
        jax.block_until_ready(state.params)
        with self.stopwatch.evaluation(step, "seen lengths"):
            self.precompiled_evaluation.wait()
            results = self.evaluate(state.params, seen_only=True)
        for member, (workdir, result) in enumerate(zip(self.workdirs, results)):
            if self.healthy(member):
                workdir.log(step, member, {**result["metrics"], TIME: self.elapsed()})

    def summary(self, member: int, step: int, status: str, final=None, result=None) -> dict:
        """A member's summary.json (summary.py); ``final`` and ``result`` for a finished one."""
        return member_summary(self, member, step, status, final, result)

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
        """The final evaluation, the figures (heat maps, learning curves), summary.json.

        A failed member's directory takes no more writes (``check_health``): it keeps
        its failure summary, and no plot is made of its frozen parameters."""
        runs = [Run(config, workdir, describe(config))
                for config, workdir in zip(self.configs, self.workdirs)]
        finals = self.evaluate.finish(params, results, runs, step)
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
                run.workdir.log(step, member, {**unlogged, TIME: self.elapsed()})
            if run.workdir.is_writer and self.figures is not None:
                self.figures.draw(run, step, result, final)
            self.monitors[member].finish()  # a run that learned nothing says so
            summary = self.summary(member, step, "finished", final, result)
            run.workdir.write_summary(summary)
            summaries.append(summary)
        return summaries

    def failed_summaries(self):
        return [self.summary(member, self.failures[member]["step"], status="failed")
                for member in range(len(self.configs))]


def train_steps(cohort: Cohort, checkpoints, state, step: int, hooks, progress: bool) -> list:
    """Train ``cohort`` from ``state`` at ``step`` (resumed by running/run.py) to its last
    step, evaluating, logging and checkpointing (into ``checkpoints``) on the way, then
    its final evaluation; its members' summaries. ``hooks`` are called with the step
    after every train call."""
    train_config = cohort.config.train
    watch = cohort.stopwatch
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
                if row is not None:  # the first healthy member's, on the progress bar
                    bar.set_postfix(loss=f"{row[TRAIN_LOSS]:.3f}",
                                    acc=f"{row[TRAIN_TOKEN_ACC]:.3f}",
                                    tok_s=f"{row[TRAIN_TOKENS_PER_S]:.0f}")
            elif at(train_config.eval_every) or at(train_config.checkpoint_every) or curve_step:
                alive = cohort.check_health(*jax.device_get(
                    (pending[-1]["failed_step"], pending[-1]["failure"])))
            if not alive:
                break
            if at(train_config.eval_every):
                results = cohort.run_eval(step, state)
                first = min(m for m in range(len(cohort.configs)) if cohort.healthy(m))
                line = f"step {step}: " + cohort.evaluate.progress_line(results[first]["metrics"])
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
                    checkpoints.save(step, cohort.checkpointed(state), *cohort.record(step))
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
        checkpoints.save(step, cohort.checkpointed(state), *cohort.record(step))
        cohort.last_checkpoint = step
    checkpoints.check()
    cohort.environment.stop(step)
