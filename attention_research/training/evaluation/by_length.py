"""The evaluation of a task with a held-out set of every length and a known alignment
(the symbol tasks: ``tasks/synthetic.py`` holds the set, its chunks and its alignment):
jit(vmap(eval)) over members, scored per length range (``ranges.py``) by
teacher-forced loss and token accuracy, greedy exact match, alignment accuracy and
attention entropy; at the end accuracy by length and position, and, with
``analysis.implicit``, the implicit analysis (``held_out.py``) on the final parameters.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from attention_research.analysis import agreement
from attention_research.attention import entropy
from attention_research.data import PAD, Batch
from attention_research.metric_names import (FIRST_STEP_SOLVED, SOLVED_SEQ_ACC, TIME,
                                             TIME_TO_SOLVED, as_column, eval_key)
from attention_research.training import held_out
from attention_research.training.decoding import greedy_decode
from attention_research.training.evaluation import Final, ranges
from attention_research.training.steps import over_members, teacher_forced

class LengthEvaluation:
    """The held-out set scored in chunks of ``task.eval_batch_size`` sequences (the last
    is padded with repeats and trimmed). The set is sorted by length, and each chunk is
    cut to the widths its own longest example needs (the task's ``held_out_chunks``):
    a chunk of short sequences is not decoded, nor attended over, to the set's longest
    length. Every model masks padding, so the scores do not depend on the width;
    evaluating to 10× the trained length costs a third to a half as much. Each chunk
    also returns the greedy outputs at the heat-map indices that fall in it, padded back
    to the set's widths."""

    curve_evaluation = True

    def __init__(self, task, model, placement):
        self.task, self.config = task, task.config
        lengths = task.eval_lengths
        self.num_examples = num_examples = len(lengths)
        self.chunk = chunk = min(self.config.task.eval_batch_size, num_examples)
        heatmaps = np.asarray(task.heatmap_indices, np.int32)
        full_width = task.eval_set.targets.shape[1]

        def evaluate_member(params, batch: Batch, heatmap_rows):
            stats, weights = teacher_forced(model, params, batch, per_position=True)
            # Token accuracy by target position (issue 35: a model right on its first 20
            # positions and wrong after them shows as such), padded to the set's width
            # so that chunks of any width concatenate.
            for key in ("correct_at", "real_at"):
                stats[key] = jnp.pad(stats[key], ((0, 0), (0, full_width - stats[key].shape[1])))
            real = batch.targets != PAD
            if weights is not None:
                position = task.alignment_targets(batch)
                stats["align_hits"], stats["align_steps"] = agreement.argmax_hits(
                    weights, position)
                stats["align_any_hits"], _ = agreement.argmax_hits(
                    weights, position, task.alignment_matches(batch))
                # How spread attention is: entropy of each real target step's weights
                # (multi-head: of the head-averaged weights).
                stats["entropy"] = jnp.sum(entropy(weights) * real, axis=1)
                # How sparse: the share of real source positions with weight exactly 0
                # (sparsemax and entmax15 give exact zeros; softmax only by underflow).
                source = (batch.source != PAD)[:, None, :]
                zeros = jnp.sum((weights == 0) & source, -1) / jnp.maximum(
                    jnp.sum(source, -1), 1)
                stats["zero_share"] = jnp.sum(zeros * real, axis=1)
            tokens, greedy_weights = greedy_decode(model, params, batch.source,
                                                   batch.targets.shape[1])
            stats["exact"] = jnp.all((tokens == batch.targets) | ~real, axis=1)
            examples = {"tokens": tokens[heatmap_rows], "weights": greedy_weights[heatmap_rows]}
            return stats, examples

        self.compiled = over_members(evaluate_member, placement, shared=2)
        self.chunks = task.held_out_chunks()
        # Every chunk returns the rows at heatmaps % chunk; each example is kept from
        # the chunk that holds it, heatmaps // chunk.
        self.holder, self.rows = heatmaps // chunk, heatmaps % chunk
        # The seen lengths alone (train.curve_eval_every): the first of the sorted set.
        self.seen = int(np.sum(lengths <= self.config.task.train_max_length))
        self.seen_chunks = task.held_out_chunks(self.seen)
        self.analyse = None
        if held_out.enabled(self.config):
            take = lambda x, start: x[np.arange(start, start + chunk) % num_examples]
            draws = held_out.probes(lengths, self.config.analysis.target_steps)
            self.analyse = self._make_analysis(
                model, placement, [tuple(take(d, start) for d in draws)
                                   for start in range(0, num_examples, chunk)])

    def over_chunks(self, function, params, *per_chunk):
        """(stats {k: [M, N]}, examples {k: [M, H, ...]}) of a compiled
        ``function(params, chunk, heat-map rows, *more)`` over every chunk."""
        calls = zip(self.chunks, *per_chunk) if per_chunk else ((c,) for c in self.chunks)
        parts, found = zip(*(jax.device_get(function(params, batch, self.rows, *more))
                             for batch, *more in calls))
        stats = {k: np.concatenate([p[k] for p in parts], axis=1)[:, :self.num_examples]
                 for k in parts[0]}
        examples = {k: _stack_padded([f[k] for f in found])[self.holder, :,
                                                            np.arange(len(self.rows))]
                    .swapaxes(0, 1) for k in found[0]}  # [chunk, M, H, ...] -> [M, H, ...]
        return stats, examples

    def evaluate_seen(self, params) -> list[dict]:
        parts = [jax.device_get(self.compiled(params, batch, self.rows)[0])
                 for batch in self.seen_chunks]
        stats = {k: np.concatenate([p[k] for p in parts], axis=1)[:, :self.seen]
                 for k in parts[0]}
        lengths, seen_range = self.task.eval_lengths[:self.seen], self.task.ranges[:1]
        return [{"metrics": ranges.range_metrics(
            {k: v[member] for k, v in stats.items()}, lengths, seen_range)}
            for member in range(len(stats["exact"]))]

    def __call__(self, params, seen_only: bool = False) -> list[dict]:
        if seen_only:
            return self.evaluate_seen(params)
        stats, examples = self.over_chunks(self.compiled, params)
        lengths, seen_max = self.task.eval_lengths, self.config.task.train_max_length
        results = []
        for member in range(len(stats["exact"])):
            member_stats = {k: v[member] for k, v in stats.items()}
            results.append({
                "metrics": ranges.range_metrics(member_stats, lengths, self.task.ranges),
                "by_length": ranges.accuracy_by_length(member_stats, lengths),
                "token_by_length": ranges.token_accuracy_by_length(member_stats, lengths),
                "token_by_position": ranges.token_accuracy_by_position(member_stats),
                "token_beyond_seen": ranges.token_accuracy_beyond(
                    member_stats, lengths, seen_max),
                "token_beyond_seen_no_eos": ranges.token_accuracy_beyond(
                    member_stats, lengths, seen_max, eos=False),
                "examples": {k: v[member] for k, v in examples.items()},
                "exact": member_stats["exact"]})
        return results

    def precompile(self, params):
        """Compile the evaluation programs (one per chunk width) for ``params``' shapes
        without running them: the training loop does it in a background thread while
        the first train calls run (issue 39), and the evaluations then find them
        compiled (JAX reuses an ahead-of-time compilation for the same call)."""
        widths = {}
        for batch in self.chunks + self.seen_chunks:
            widths.setdefault(batch.source.shape, batch)
        for batch in widths.values():
            self.compiled.lower(params, batch, self.rows).compile()

    def _make_analysis(self, model, placement, probes):
        """``analyse(stacked params)`` -> per member (metrics, heat-map maps): the implicit
        analysis of the whole held-out set (training/held_out.py), run once, on the
        final parameters, because it costs several evaluation passes."""
        options, transformer = self.config.analysis, self.config.model.family == "transformer"
        task = self.task

        def analyse_member(params, batch: Batch, heatmap_rows, probe):
            _, weights = teacher_forced(model, params, batch)
            stats = held_out.analyse(model, params, batch, weights,
                                     task.alignment_targets(batch), probe, options, transformer,
                                     matches=task.alignment_matches(batch))
            shown = jax.tree_util.tree_map(lambda x: x[heatmap_rows], batch)
            maps = held_out.heatmap_maps(model, params, shown, options, transformer)
            if weights is not None:  # the teacher-forced weights the maps compare with
                maps["forced_weights"] = weights[heatmap_rows]
            return stats, maps

        compiled = over_members(analyse_member, placement, shared=3)

        def analyse(params) -> list[tuple[dict, dict]]:
            stats, maps = self.over_chunks(compiled, params, probes)
            members = range(len(stats["implicit_hits"]))
            return [(ranges.analysis_metrics({k: v[m] for k, v in stats.items()},
                                                 task.eval_lengths, task.ranges),
                     {k: v[m] for k, v in maps.items()}) for m in members]
        return analyse

    def progress_line(self, metrics) -> str:
        seen = self.task.ranges[0][0]
        return ", ".join(f"{as_column(k)}={v:.4f}" for k, v in metrics.items()
                         if "seq_acc" in k or ("align" in k and seen in k))

    def finish(self, params, results, runs, step: int) -> list[Final]:
        """Accuracy by length and position; when the seen range first reached 0.99; the
        implicit analysis and its heat-map maps (for the figures)."""
        seen = self.task.ranges[0][0]
        # The last held-out evaluation, in ``results``, is the final one; the implicit
        # analysis (analysis.implicit) runs once, here, on the final parameters.
        analysed = (self.analyse(params) if self.analyse is not None
                    else [({}, None)] * len(runs))
        finals = []
        for run, result, (analysis, maps) in zip(runs, results, analysed):
            solved = [r for r in run.workdir.read_metrics()
                      if (r.get(eval_key("seq_acc", seen)) or 0.0) >= SOLVED_SEQ_ACC]
            finals.append(Final(summary={}, log=analysis, figures={"maps": maps}, member={
                "seq_acc_by_length": result["by_length"],
                "token_acc_by_length": result["token_by_length"],
                "token_acc_by_position": result["token_by_position"],
                # Issue 35 (an audit as Shaw et al.): accuracy on the unseen positions alone.
                "token_acc_beyond_seen_by_length": result["token_beyond_seen"],
                "token_acc_beyond_seen_no_eos_by_length": result["token_beyond_seen_no_eos"],
                FIRST_STEP_SOLVED: solved[0]["step"] if solved else None,
                TIME_TO_SOLVED: solved[0][TIME] if solved else None}))
        return finals


def _stack_padded(arrays) -> np.ndarray:
    """Stack arrays whose shapes differ by chunk width, zero-padded (PAD for tokens,
    zero weight) at the end of each axis to the widest."""
    shape = np.max([a.shape for a in arrays], axis=0)
    return np.stack([np.pad(a, [(0, int(w) - n) for w, n in zip(shape, a.shape)])
                     for a in arrays])
