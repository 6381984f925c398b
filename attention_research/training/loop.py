"""The training loop: resume, train, log, evaluate, checkpoint, plot, summarise.

``train_cohort`` trains the members of one cohort together (one compiled
``jit(vmap(step))``); each member logs, plots and summarises into its own work
directory, and the cohort's stacked state is checkpointed once. ``train(config,
workdir)`` — what ``launch.py`` calls for a single run — is a cohort of one whose
member directory and checkpoints are the work directory itself. Everything a run
writes is listed in ``attention_research/workdir.py``. Rerunning on the same work
directory resumes from the newest checkpoint and ends with the same metrics.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Callable, Sequence

import jax
import numpy as np
from tqdm import tqdm

from attention_research import evaluation, models, plotting, tasks
from attention_research.attention import canonical_score
from attention_research.checkpoints import Checkpoints
from attention_research.config_checks import validate
from attention_research.training.mesh import Placement, make_mesh
from attention_research.training.state import (
    create_train_state, make_optimizer, member_hyperparams)
from attention_research.training.steps import make_evaluate, make_train_call
from attention_research.workdir import WorkDir

TARGET_SEQ_ACC = 0.99  # "solved": the summary records when the seen bucket first reaches it


def describe(config) -> str:
    """A short name for titles: formulation, decoder or model, cell."""
    model = config.model
    score = canonical_score(model.attention.score)
    alignment = "" if model.attention.alignment == "global" else f" {model.attention.alignment}"
    heads = f", {model.attention.num_heads} heads" if model.attention.num_heads > 1 else ""
    if model.family == "transformer":
        return f"{config.name}: Transformer, {score} attention{heads}"
    return (f"{config.name}: {score}{alignment} attention{heads}, {model.decoder_style} decoder, "
            f"{'bi' if model.bidirectional else 'uni'}-{model.cell.upper()}")


def peak_memory() -> dict:
    """Peak host RSS and, where the backend reports it, peak device memory, in MiB."""
    memory = {"host_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    stats = jax.local_devices()[0].memory_stats() or {}
    if "peak_bytes_in_use" in stats:
        memory["device_peak_mib"] = stats["peak_bytes_in_use"] / 2**20
    return memory


class _Cohort:
    """State of one cohort's training, split into small steps for readability."""

    def __init__(self, configs, workdirs, start_time):
        self.configs = configs
        self.config = configs[0]  # every member shares the structure
        self.start_time = start_time
        self.workdirs = [WorkDir(path) for path in workdirs]
        self.tx = make_optimizer(self.config.train)
        self.seeds = [c.seed for c in configs]
        self.placement = Placement(make_mesh(self.config.mesh), len(configs))
        self.time_offset = 0.0  # wall time spent before a resume
        self.setup()

    def setup(self):
        """The task's part: model, held-out set, compiled functions (synthetic here)."""
        config = self.config
        task = config.task
        vocab = tasks.vocab_size(task.num_symbols)
        self.model = models.make_model(config, vocab, vocab)
        self.eval_set = tasks.make_eval_set(task.name, task.num_symbols, 1, task.eval_max_length,
                                            task.eval_examples_per_length, task.eval_seed)
        self.eval_lengths = np.asarray(self.eval_set.source_lengths)
        self.buckets = evaluation.length_buckets(task.train_max_length, task.eval_max_length)
        self.heatmap_indices = evaluation.heatmap_indices(
            self.eval_lengths, task.train_max_length, config.train.num_heatmaps)
        self.train_call = make_train_call(self.model, self.tx, config, self.placement)
        self.evaluate = make_evaluate(self.model, task.name, self.heatmap_indices,
                                      self.placement)

    @property
    def is_writer(self):
        return self.workdirs[0].is_writer

    def elapsed(self) -> float:
        return self.time_offset + time.time() - self.start_time

    def example_batch(self):
        return jax.tree_util.tree_map(lambda x: x[:1], self.eval_set)

    def start_training(self, state, step, progress: bool):
        """A function (state, step) -> (state, call sums) that runs one train call."""
        compile_start = time.time()
        train_call = self.train_call.lower(state).compile()
        if self.is_writer and progress:
            print(f"compiled the train step of {len(self.configs)} member(s) in "
                  f"{time.time() - compile_start:.1f} s")
        return lambda state, step: train_call(state)

    def progress_line(self, metrics) -> str:
        seen = self.buckets[0][0]
        return ", ".join(f"{k.removeprefix('eval/')}={v:.4f}" for k, v in metrics.items()
                         if "seq_acc" in k or ("align" in k and seen in k))

    def finish(self, step, state, results):
        """Plots and summaries at the end of training; returns the summaries."""
        del state  # the held-out evaluation in ``results`` is the final one
        self.plot(step, results)
        return self.summarise(step, results)

    def initial_state(self):
        example = self.example_batch()
        return create_train_state(self.model, self.tx, example, self.seeds,
                                  member_hyperparams(self.configs), self.placement.members)

    def resume(self, checkpoints: Checkpoints):
        state, step = checkpoints.restore_latest(self.initial_state())
        for workdir in self.workdirs:
            workdir.keep_metrics_up_to(step)
        times = [r["time_s"] for r in self.workdirs[0].read_metrics() if "time_s" in r]
        self.time_offset = times[-1] if (step and times) else 0.0
        return state, step

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
        stats, examples = jax.device_get(self.evaluate(state.params, self.eval_set))
        results = []
        for member, workdir in enumerate(self.workdirs):
            mine = {k: v[member] for k, v in stats.items()}
            metrics = evaluation.bucket_metrics(mine, self.eval_lengths, self.buckets)
            if log:
                workdir.log(step, member, {**metrics, "time_s": self.elapsed()})
            results.append({"metrics": metrics,
                            "by_length": evaluation.accuracy_by_length(mine, self.eval_lengths),
                            "examples": {k: v[member] for k, v in examples.items()},
                            "exact": mine["exact"]})
        return results

    def plot(self, step, results):
        if not self.is_writer:
            return
        for config, workdir, result in zip(self.configs, self.workdirs, results):
            plots, title = workdir.plots_dir, describe(config)
            has_weights = any(k.startswith("eval/align_acc/") for k in result["metrics"])
            if self.heatmap_indices and has_weights:  # none and fused attention record none
                examples = [{"source": self.eval_set.source[i],
                             "output": result["examples"]["tokens"][j],
                             "weights": result["examples"]["weights"][j],
                             "correct": bool(result["exact"][i])}
                            for j, i in enumerate(self.heatmap_indices)]
                plotting.attention_heatmaps(plots / "attention.png", examples,
                                            f"{title} — {config.task.name}, step {step}")
            plotting.learning_curves(plots / "learning_curves.png", workdir.read_metrics(), title)
            plotting.accuracy_by_length(plots / "seq_acc_by_length.png",
                                        {f"seed {config.seed}": result["by_length"]},
                                        config.task.train_max_length,
                                        f"{title} — {config.task.name}, step {step}")

    def summarise(self, step, results):
        seen = self.buckets[0][0]
        summaries = []
        for member, (config, workdir, result) in enumerate(
                zip(self.configs, self.workdirs, results)):
            solved = [r for r in workdir.read_metrics()
                      if (r.get(f"eval/seq_acc/{seen}") or 0.0) >= TARGET_SEQ_ACC]
            summary = {
                "name": config.name, "description": describe(config), "task": config.task.name,
                "steps": step, "wall_time_s": self.elapsed(), "memory": peak_memory(),
                "devices": {"count": jax.device_count(), "platform": jax.devices()[0].platform,
                            "processes": jax.process_count(),
                            "mesh": dict(self.placement.mesh.shape),
                            "members_sharded": self.placement.member_axis is not None},
                "members": [{
                    "member": member, "seed": config.seed,
                    "learning_rate": config.train.learning_rate, "final": result["metrics"],
                    "seq_acc_by_length": result["by_length"],
                    f"first_step_seq_acc_{TARGET_SEQ_ACC}": solved[0]["step"] if solved else None,
                    f"time_to_seq_acc_{TARGET_SEQ_ACC}_s": solved[0]["time_s"] if solved else None,
                }]}
            workdir.write_summary(summary)
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
    cohort_class = _Cohort
    if configs[0].task.name == "translation":
        from attention_research.training.translation import TranslationCohort
        cohort_class = TranslationCohort
    cohort = cohort_class(configs, workdirs, time.time() if start_time is None else start_time)
    for config, workdir in zip(configs, cohort.workdirs):
        workdir.check_or_write_config(config)
    checkpoints = Checkpoints(checkpoint_dir)
    train_config = cohort.config.train
    try:
        state, step = cohort.resume(checkpoints)
        train_call = cohort.start_training(state, step, progress)
        bar = tqdm(total=train_config.num_steps, initial=step, unit="step", dynamic_ncols=True,
                   disable=not (progress and cohort.is_writer))
        results = None
        if step == 0 and train_config.eval_at_start:
            cohort.run_eval(0, state)
        pending, last_log_time = [], time.time()
        while step < train_config.num_steps:
            state, metrics = train_call(state, step)
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
                bar.write(f"step {step}: " + cohort.progress_line(results[0]["metrics"])
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
