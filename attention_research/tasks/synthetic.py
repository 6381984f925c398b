"""Symbol tasks sampled on device: ``copy`` and ``reverse``, and the ``SymbolTask`` base
every such task shares (``sort.py`` is another).

Tokens: 0 = PAD, 1 = BOS, 2 = EOS, symbols are 3 … num_symbols + 2. A source of
length L holds L symbols drawn uniformly; the target is the source symbols in the
order the task defines, followed by EOS. A task is that order alone
(``source_positions``): the source position each output step reads, which is also the
alignment an attention should find. Batches are pure functions of a key, so a
training step samples its own batch from (seed, step) inside jit: no host I/O, and a
resumed run sees exactly the batches the uninterrupted run saw.

Evaluation: a fixed held-out set (``eval_examples_per_length`` of every length
1 … eval_max_length, from its own seed), scored per length range — lengths seen in
training and longer ones — by teacher-forced loss and token accuracy, greedy exact
match, alignment accuracy and attention entropy.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from attention_research.analysis import agreement
from attention_research.attention import entropy
from attention_research.data import BOS, EOS, NUM_SPECIAL, PAD, Batch
from attention_research.errors import require
from attention_research.reports import plotting, tables
from attention_research.tasks.protocol import Final
from attention_research.training import evaluation, held_out
from attention_research.training.decoding import greedy_decode
from attention_research.training.steps import over_members, teacher_forced

TARGET_SEQ_ACC = 0.99  # "solved": the summary records when the seen range first reaches it


class SymbolTask:
    """A task over random symbol sequences; subclasses define ``source_positions``."""

    name: ClassVar[str]
    curve_score: ClassVar[str] = "seq_acc"
    curve_evaluation: ClassVar[bool] = True
    write_sweep_report = staticmethod(tables.write_accuracy_report)

    @staticmethod
    def source_positions(source, lengths):
        """[B, S]: the source position output step t reads (t < L; any at padding)."""
        raise NotImplementedError

    @staticmethod
    def draw_symbols(key, shape, num_symbols: int):
        """Raw source symbols (values in [0, num_symbols)): uniform over all of them."""
        return jax.random.randint(key, shape, 0, num_symbols)

    @staticmethod
    def target_tokens(read):
        """The target token of each step from the source token it reads (PAD stays)."""
        return read

    # The config fragment -----------------------------------------------------------

    @classmethod
    def configure(cls, config):
        task = config.task
        task.num_symbols = 50  # distinct symbols, besides PAD/BOS/EOS
        task.train_min_length = 1  # shortest training source
        task.train_max_length = 25  # longest training source
        task.eval_max_length = 50  # held-out lengths run 1 … eval_max_length
        task.eval_examples_per_length = 32  # held-out examples of each length
        # Longer held-out lengths are one range, or cut after each of these lengths
        # (e.g. (80,): len1-25, len26-80, len81-eval_max_length).
        task.eval_range_ends = ()
        task.eval_seed = 12345  # the held-out set is drawn from this seed alone
        # Held-out sequences per evaluation call: bounds evaluation memory (a 5-member
        # cohort scoring all 1,600 sequences at once at d_k = 1024 needed 17.5 GB).
        task.eval_batch_size = 512

    @classmethod
    def shrink(cls, config):
        config.task.update(num_symbols=6, train_max_length=4, eval_max_length=6,
                           eval_examples_per_length=2, eval_range_ends=())

    @classmethod
    def validate(cls, config):
        task = config.task
        require(task.num_symbols >= 1, f"task.num_symbols must be >= 1, got {task.num_symbols}")
        require(1 <= task.train_min_length <= task.train_max_length,
                f"need 1 <= task.train_min_length <= task.train_max_length, got "
                f"{task.train_min_length} and {task.train_max_length}")
        require(task.eval_max_length >= task.train_max_length,
                f"task.eval_max_length ({task.eval_max_length}) must be >= "
                f"task.train_max_length ({task.train_max_length})")
        require(task.eval_examples_per_length >= 1,
                "task.eval_examples_per_length must be >= 1")
        require(all(task.train_max_length < end < task.eval_max_length
                    for end in task.eval_range_ends),
                f"task.eval_range_ends {tuple(task.eval_range_ends)} must lie between "
                f"task.train_max_length ({task.train_max_length}) and task.eval_max_length "
                f"({task.eval_max_length})")
        require(task.eval_batch_size >= 1,
                f"task.eval_batch_size must be >= 1, got {task.eval_batch_size}")

    @staticmethod
    def length_ranges(config):
        """The held-out length ranges metrics are reported in (``evaluation.py``)."""
        task = config.task
        return evaluation.length_ranges(task.train_max_length, task.eval_max_length,
                                        task.eval_range_ends)

    @classmethod
    def selection_metrics(cls, config) -> tuple[str, ...]:
        """The held-out metrics ``train.best_metric`` may name: per length range."""
        return tuple(f"eval/{metric}/{name}" for name, _, _ in cls.length_ranges(config)
                     for metric in ("seq_acc", "token_acc", "loss"))

    # Batches -----------------------------------------------------------------------

    def __init__(self, config, seeds=(), verbose: bool = False):
        del seeds, verbose  # every member samples its own batches from its seed
        self.config = config
        task = config.task
        self.vocab_size = task.num_symbols + NUM_SPECIAL
        self.eval_set, self.eval_alignment = self.make_eval_set(
            task.num_symbols, 1, task.eval_max_length, task.eval_examples_per_length,
            task.eval_seed, with_alignment=True)
        self.eval_lengths = np.asarray(self.eval_set.source_lengths)
        self.ranges = self.length_ranges(config)
        self.heatmap_indices = evaluation.heatmap_indices(
            self.eval_lengths, task.train_max_length, config.train.num_heatmaps)

    @classmethod
    def make_batch(cls, symbols, lengths) -> Batch:
        """Build a batch from raw symbols [B, S] (values in [0, num_symbols)) and lengths [B]."""
        positions = jnp.arange(symbols.shape[1])[None, :]
        valid = positions < lengths[:, None]
        source = jnp.where(valid, symbols + NUM_SPECIAL, PAD).astype(jnp.int32)
        body = jnp.take_along_axis(source, cls.source_positions(source, lengths), axis=1)
        body = cls.target_tokens(jnp.where(valid, body, PAD))
        padded = jnp.pad(body, ((0, 0), (0, 1)))
        targets = jnp.where(jnp.arange(padded.shape[1])[None, :] == lengths[:, None], EOS, padded)
        target_inputs = jnp.pad(targets, ((0, 0), (1, 0)), constant_values=BOS)[:, :-1]
        target_inputs = jnp.where(target_inputs == EOS, PAD, target_inputs)
        return Batch(source, target_inputs, targets.astype(jnp.int32), lengths.astype(jnp.int32))

    @classmethod
    def random_batch(cls, key, batch_size: int, num_symbols: int, min_length: int,
                     max_length: int) -> Batch:
        """A fresh batch with lengths uniform in [min_length, max_length]; jit-friendly."""
        length_key, symbol_key = jax.random.split(key)
        lengths = jax.random.randint(length_key, (batch_size,), min_length, max_length + 1)
        symbols = cls.draw_symbols(symbol_key, (batch_size, max_length), num_symbols)
        return cls.make_batch(symbols, lengths)

    @classmethod
    def make_eval_set(cls, num_symbols: int, min_length: int, max_length: int,
                      examples_per_length: int, seed: int, with_alignment: bool = False):
        """The fixed held-out set: ``examples_per_length`` examples of every length
        (and, ``with_alignment``, its true alignment [N, T], ``alignment_targets``).

        Drawn from its own seed, so it is the same for every run, member and resume.
        """
        lengths = np.repeat(np.arange(min_length, max_length + 1), examples_per_length)

        def draw(lengths):
            symbols = cls.draw_symbols(jax.random.PRNGKey(seed), (len(lengths), max_length),
                                       num_symbols)
            batch = cls.make_batch(symbols, lengths)
            return batch, cls.alignment_targets(batch)

        # One program, not some thirty eager ones (about 2 s of a cold start, issue
        # 39); integer arithmetic, so the set is the same bit for bit either way.
        batch, alignment = jax.tree_util.tree_map(
            np.asarray, jax.jit(draw)(lengths.astype(np.int32)))
        return (batch, alignment) if with_alignment else batch

    def sample_batch(self, key) -> Batch:
        """One training batch, drawn on the device inside the train step."""
        task = self.config.task
        return self.random_batch(key, self.config.train.batch_size, task.num_symbols,
                                 task.train_min_length, task.train_max_length)

    def host_batches(self, first_call, placement):
        raise NotImplementedError(f"{self.name} samples its batches on the device")

    def example_batch(self) -> Batch:
        return jax.tree_util.tree_map(lambda x: x[:1], self.eval_set)

    @classmethod
    def alignment_targets(cls, batch: Batch):
        """[B, T]: the source position of the symbol output step t emits; -1 at EOS and
        padding (t >= L)."""
        lengths = batch.source_lengths[:, None]
        positions = cls.source_positions(batch.source, batch.source_lengths)
        steps = batch.targets.shape[1]
        positions = jnp.pad(positions, ((0, 0), (0, steps - positions.shape[1])))
        return jnp.where(jnp.arange(steps)[None, :] < lengths, positions, -1)

    @classmethod
    def alignment_matches(cls, batch: Batch):
        """[B, T, S]: the real source positions that hold the symbol output step t emits
        (none at EOS and padding). On copy and reverse the true position is one of them;
        where a symbol repeats, so are its other occurrences, and on sort, where the
        stable-sort position is only a convention, any of them is right (issue 35)."""
        positions = cls.alignment_targets(batch)
        real = (batch.source != PAD)[:, None, :]
        same = batch.source[:, None, :] == batch.targets[:, :, None]
        return same & real & (positions >= 0)[:, :, None]

    # Evaluation ----------------------------------------------------------------------

    def make_evaluation(self, model, placement):
        """jit(vmap(eval)) over members, on the fixed held-out set shared by all.

        The set is scored in chunks of ``task.eval_batch_size`` sequences (the last is
        padded with repeats and trimmed). The set is sorted by length, and each chunk is
        cut to the widths its own longest example needs (``_trim``): a chunk of short
        sequences is not decoded, nor attended over, to the set's longest length. Every
        model masks padding, so the scores do not depend on the width; evaluating to
        10× the trained length costs a third to a half as much. Each chunk also returns the greedy outputs at the
        heat-map indices that fall in it, padded back to the set's widths.
        """
        num_examples = len(self.eval_lengths)
        chunk = min(self.config.task.eval_batch_size, num_examples)
        heatmaps = np.asarray(self.heatmap_indices, np.int32)

        full_width = self.eval_set.targets.shape[1]

        def evaluate_member(params, batch: Batch, heatmap_rows):
            stats, weights = teacher_forced(model, params, batch, per_position=True)
            # Token accuracy by target position (issue 35: a model right on its first 20
            # positions and wrong after them shows as such), padded to the set's width
            # so that chunks of any width concatenate.
            for key in ("correct_at", "real_at"):
                stats[key] = jnp.pad(stats[key], ((0, 0), (0, full_width - stats[key].shape[1])))
            real = batch.targets != PAD
            if weights is not None:
                position = self.alignment_targets(batch)
                stats["align_hits"], stats["align_steps"] = agreement.argmax_hits(
                    weights, position)
                stats["align_any_hits"], _ = agreement.argmax_hits(
                    weights, position, self.alignment_matches(batch))
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

        compiled = over_members(evaluate_member, placement, shared=2)
        starts = range(0, num_examples, chunk)
        take = lambda x, start: x[np.arange(start, start + chunk) % num_examples]
        chunks = self.held_out_chunks()
        # Every chunk returns the rows at heatmaps % chunk; each example is kept from
        # the chunk that holds it, heatmaps // chunk.
        holder, rows = heatmaps // chunk, heatmaps % chunk

        def over_chunks(function, params, *per_chunk):
            """(stats {k: [M, N]}, examples {k: [M, H, ...]}) of a compiled
            ``function(params, chunk, heat-map rows, *more)`` over every chunk."""
            calls = zip(chunks, *per_chunk) if per_chunk else ((c,) for c in chunks)
            parts, found = zip(*(jax.device_get(function(params, batch, rows, *more))
                                 for batch, *more in calls))
            stats = {k: np.concatenate([p[k] for p in parts], axis=1)[:, :num_examples]
                     for k in parts[0]}
            examples = {k: _stack_padded([f[k] for f in found])[holder, :, np.arange(len(rows))]
                        .swapaxes(0, 1) for k in found[0]}  # [chunk, M, H, ...] -> [M, H, ...]
            return stats, examples

        # The seen lengths alone (train.curve_eval_every): the first of the sorted set.
        seen = int(np.sum(self.eval_lengths <= self.config.task.train_max_length))
        seen_chunks = self.held_out_chunks(seen)

        def evaluate_seen(params) -> list[dict]:
            parts = [jax.device_get(compiled(params, batch, rows)[0]) for batch in seen_chunks]
            stats = {k: np.concatenate([p[k] for p in parts], axis=1)[:, :seen]
                     for k in parts[0]}
            return [{"metrics": evaluation.range_metrics(
                {k: v[member] for k, v in stats.items()}, self.eval_lengths[:seen],
                self.ranges[:1])} for member in range(len(stats["exact"]))]

        if held_out.enabled(self.config):
            draws = held_out.probes(self.eval_lengths, self.config.analysis.target_steps)
            self.analyse = self._make_analysis(
                model, placement, over_chunks,
                [tuple(take(d, start) for d in draws) for start in starts])

        def evaluate(params, seen_only: bool = False) -> list[dict]:
            if seen_only:
                return evaluate_seen(params)
            stats, examples = over_chunks(compiled, params)
            results = []
            for member in range(len(stats["exact"])):
                member_stats = {k: v[member] for k, v in stats.items()}
                results.append({
                    "metrics": evaluation.range_metrics(member_stats, self.eval_lengths,
                                                        self.ranges),
                    "by_length": evaluation.accuracy_by_length(member_stats, self.eval_lengths),
                    "token_by_length": evaluation.token_accuracy_by_length(member_stats,
                                                                           self.eval_lengths),
                    "token_by_position": evaluation.token_accuracy_by_position(member_stats),
                    "token_beyond_seen": evaluation.token_accuracy_beyond(
                        member_stats, self.eval_lengths, self.config.task.train_max_length),
                    "token_beyond_seen_no_eos": evaluation.token_accuracy_beyond(
                        member_stats, self.eval_lengths, self.config.task.train_max_length,
                        eos=False),
                    "examples": {k: v[member] for k, v in examples.items()},
                    "exact": member_stats["exact"]})
            return results

        def precompile(params):
            """Compile the evaluation programs (one per chunk width) for ``params``'
            shapes without running them: the training loop does it in a background thread
            while the first train calls run (issue 39), and the evaluations then find them
            compiled (JAX reuses an ahead-of-time compilation for the same call)."""
            widths = {}
            for batch in chunks + seen_chunks:
                widths.setdefault(batch.source.shape, batch)
            for batch in widths.values():
                compiled.lower(params, batch, rows).compile()

        evaluate.precompile = precompile
        return evaluate

    def held_out_chunks(self, count: int | None = None) -> list[Batch]:
        """The held-out set (or its first ``count`` examples) in chunks of
        ``task.eval_batch_size``, each cut to its own width (``_trim``); built once. The
        last chunk wraps to the start; its repeats are trimmed from the results."""
        count = len(self.eval_lengths) if count is None else count
        chunk = min(self.config.task.eval_batch_size, len(self.eval_lengths))
        return [_trim(jax.tree_util.tree_map(
            lambda x: x[np.arange(start, start + chunk) % count], self.eval_set))
            for start in range(0, count, chunk)]

    def _make_analysis(self, model, placement, over_chunks, probes):
        """``analyse(stacked params)`` -> per member (metrics, heat-map maps): the implicit
        analysis of the whole held-out set (training/held_out.py), run once, on the
        final parameters, because it costs several evaluation passes."""
        options, transformer = self.config.analysis, self.config.model.family == "transformer"

        def analyse_member(params, batch: Batch, heatmap_rows, probe):
            _, weights = teacher_forced(model, params, batch)
            stats = held_out.analyse(model, params, batch, weights,
                                     self.alignment_targets(batch), probe, options, transformer,
                                     matches=self.alignment_matches(batch))
            shown = jax.tree_util.tree_map(lambda x: x[heatmap_rows], batch)
            maps = held_out.heatmap_maps(model, params, shown, options, transformer)
            if weights is not None:  # the teacher-forced weights the maps compare with
                maps["forced_weights"] = weights[heatmap_rows]
            return stats, maps

        compiled = over_members(analyse_member, placement, shared=3)

        def analyse(params) -> list[tuple[dict, dict]]:
            stats, maps = over_chunks(compiled, params, probes)
            members = range(len(stats["implicit_hits"]))
            return [(evaluation.analysis_metrics({k: v[m] for k, v in stats.items()},
                                                 self.eval_lengths, self.ranges),
                     {k: v[m] for k, v in maps.items()}) for m in members]
        return analyse

    def progress_line(self, metrics) -> str:
        seen = self.ranges[0][0]
        return ", ".join(f"{k.removeprefix('eval/')}={v:.4f}" for k, v in metrics.items()
                         if "seq_acc" in k or ("align" in k and seen in k))

    def pictures(self, result) -> tuple[dict, dict]:
        """The heat-map examples' weights (none without explicit attention) and their
        greedy outputs beside the targets."""
        examples = self._heatmap_examples(result)
        has_weights = any(k.startswith("eval/align_acc/") for k in result["metrics"])
        trimmed = [plotting.trim_example(e) for e in examples]
        images = ({f"attention_{j + 1}_length_{len(source)}": plotting.heatmap_pixels(e)
                   for j, (e, (source, _, _)) in enumerate(zip(examples, trimmed))}
                  if has_weights else {})
        names = lambda tokens: " ".join(plotting.token_labels(
            t for t in tokens if t not in (PAD, EOS)))
        texts = {"samples": plotting.samples_markdown([
            {"length": len(source), "source": names(source), "target": names(e["target"]),
             "output": names(output), "correct": e["correct"]}
            for e, (source, output, _) in zip(examples, trimmed)])}
        return images, texts

    @functools.cached_property
    def _heatmap_reference(self) -> np.ndarray:
        """[H, T]: the true alignment of the heat-map examples (fixed: computed once)."""
        return self.eval_alignment[np.asarray(self.heatmap_indices, int)]

    def _heatmap_examples(self, result) -> list[dict]:
        """``plotting.attention_heatmaps``' dicts of the held-out heat-map examples."""
        return [{"source": self.eval_set.source[i], "target": self.eval_set.targets[i],
                 "output": result["examples"]["tokens"][j],
                 "weights": result["examples"]["weights"][j],
                 "correct": bool(result["exact"][i]), "reference": self._heatmap_reference[j]}
                for j, i in enumerate(self.heatmap_indices)]

    def finish(self, params, results, runs, step: int) -> list[Final]:
        """Heat maps and accuracy by length; when the seen range first reached 0.99."""
        seen = self.ranges[0][0]
        # The last held-out evaluation, in ``results``, is the final one; the implicit
        # analysis (analysis.implicit) runs once, here, on the final parameters.
        analysed = (self.analyse(params) if held_out.enabled(self.config)
                    else [({}, None)] * len(runs))
        finals = []
        for run, result, (analysis, maps) in zip(runs, results, analysed):
            if run.workdir.is_writer:
                self._plot(run, result, step)
                if maps is not None and self.heatmap_indices:
                    self._plot_explicit_vs_implicit(run, maps, step)
            solved = [r for r in run.workdir.read_metrics()
                      if (r.get(f"eval/seq_acc/{seen}") or 0.0) >= TARGET_SEQ_ACC]
            finals.append(Final(summary={}, log=analysis, member={
                "seq_acc_by_length": result["by_length"],
                "token_acc_by_length": result["token_by_length"],
                "token_acc_by_position": result["token_by_position"],
                # Issue 35 (an audit as Shaw et al.): accuracy on the unseen positions alone.
                "token_acc_beyond_seen_by_length": result["token_beyond_seen"],
                "token_acc_beyond_seen_no_eos_by_length": result["token_beyond_seen_no_eos"],
                f"first_step_seq_acc_{TARGET_SEQ_ACC}": solved[0]["step"] if solved else None,
                f"time_to_seq_acc_{TARGET_SEQ_ACC}_s": solved[0]["time_s"] if solved else None}))
        return finals

    def _plot_explicit_vs_implicit(self, run, maps, step):
        shown = self.heatmap_indices
        examples = held_out.side_by_side(maps, self.eval_set.source[shown],
                                         self.eval_set.targets[shown],
                                         run.config.analysis.implicit)
        for example, reference in zip(examples, self._heatmap_reference):
            example["reference"] = reference  # teacher forced: the same true alignment
        title = f"{run.title} — {self.name}, step {step}"
        plots = run.workdir.plots_dir
        plotting.explicit_vs_implicit(plots / "explicit_vs_implicit.png", examples, title)
        layers = held_out.head_layers(maps, 0)
        if layers:  # a Transformer: every head of the first (shortest) example
            first = self.heatmap_indices[0]
            plotting.attention_heads(plots / "attention_heads.png", self.eval_set.source[first],
                                     self.eval_set.targets[first], layers, title)

    def _plot(self, run, result, step):
        plots, config = run.workdir.plots_dir, run.config
        has_weights = any(k.startswith("eval/align_acc/") for k in result["metrics"])
        if self.heatmap_indices and has_weights:  # none and fused attention record none
            plotting.attention_heatmaps(plots / "attention.png", self._heatmap_examples(result),
                                        f"{run.title} — {self.name}, step {step}")
        plotting.accuracy_by_length(plots / "seq_acc_by_length.png",
                                    {f"seed {config.seed}": result["by_length"]},
                                    config.task.train_max_length,
                                    f"{run.title} — {self.name}, step {step}")


# Chunk widths are rounded up to a multiple of the set's width / WIDTH_STEPS, and of
# at least MIN_WIDTH_STEP positions: at most this many compiled evaluation programs
# however many chunks. On this project's CPU one evaluation to length 200 took 167 s at
# the set's width, 50 s at each chunk's own (13 programs, 165 s to compile), 90 s in 4
# width steps (78 s to compile). Each program costs about 2 s to compile, so a short
# set is not cut finer than MIN_WIDTH_STEP: the default (lengths to 50) compiles two
# (widths 32 and 50), not four (issue 39).
WIDTH_STEPS = 8
MIN_WIDTH_STEP = 32


def _trim(batch: Batch) -> Batch:
    """A held-out chunk cut to the widths its longest example needs, rounded up (see
    ``WIDTH_STEPS``): sources to that width, targets (and target inputs) to it plus
    their EOS column."""
    full = batch.source.shape[1]
    extra = batch.targets.shape[1] - full  # a target is its source's symbols and EOS
    quantum = max(-(-full // WIDTH_STEPS), MIN_WIDTH_STEP)
    longest = max(int(np.max(np.sum(batch.source != PAD, axis=1))), 1)
    width = min(-(-longest // quantum) * quantum, full)
    assert np.all(np.sum(batch.targets != PAD, axis=1) <= width + extra)
    return Batch(batch.source[:, :width], batch.target_inputs[:, :width + extra],
                 batch.targets[:, :width + extra], batch.source_lengths)


def _stack_padded(arrays) -> np.ndarray:
    """Stack arrays whose shapes differ by chunk width, zero-padded (PAD for tokens,
    zero weight) at the end of each axis to the widest."""
    shape = np.max([a.shape for a in arrays], axis=0)
    return np.stack([np.pad(a, [(0, int(w) - n) for w, n in zip(shape, a.shape)])
                     for a in arrays])


class Copy(SymbolTask):
    """The output is the source: step t reads position t."""

    name = "copy"

    @staticmethod
    def source_positions(source, lengths):
        return jnp.broadcast_to(jnp.arange(source.shape[1]), source.shape)


class Reverse(SymbolTask):
    """The output is the source reversed: step t reads position L − 1 − t."""

    name = "reverse"

    @staticmethod
    def source_positions(source, lengths):
        positions = jnp.arange(source.shape[1])[None, :]
        return jnp.where(positions < lengths[:, None], lengths[:, None] - 1 - positions,
                         positions)
