"""Symbol tasks sampled on device: ``copy`` and ``reverse``, and the ``SymbolTask`` base
every such task shares (``sort.py`` is another).

Tokens: 0 = PAD, 1 = BOS, 2 = EOS, symbols are 3 … num_symbols + 2. A source of
length L holds L symbols drawn uniformly; the target is the source symbols in the
order the task defines, followed by EOS. A task is that order alone
(``source_positions``): the source position each output step reads, which is also the
alignment an attention should find. Batches are pure functions of a key, so a
training step samples its own batch from (seed, step) inside jit: no host I/O, and a
resumed run sees exactly the batches the uninterrupted run saw.

Held out: a fixed set (``eval_examples_per_length`` of every length 1 …
eval_max_length, from its own seed) with its true alignment, reported per length
range (``length_ranges``: lengths seen in training and longer ones).
``training/evaluation/by_length.py`` runs the models over it (the task's ``evaluation``), and
``reports/figures.py`` draws its heat maps.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from attention_research.data import BOS, EOS, NUM_SPECIAL, PAD, Batch
from attention_research.errors import InputError, require
from attention_research.metric_names import eval_key, length_range


def length_ranges(train_max_length: int, eval_max_length: int, range_ends=()):
    """[(name, first, last)]: the seen range, then the longer lengths, in one range or
    cut after each of ``range_ends`` (e.g. (80,) with 1-20 seen, 200 held out:
    len1-20, len21-80, len81-200)."""
    ranges = [(length_range(1, train_max_length), 1, train_max_length)]
    first = train_max_length + 1
    for last in [*sorted(range_ends), eval_max_length]:
        if last >= first:
            ranges.append((length_range(first, last), first, last))
            first = last + 1
    return ranges


def heatmap_indices(lengths: np.ndarray, train_max_length: int, count: int):
    """Indices of ``count`` held-out examples spread over the lengths, seen and longer."""
    if count == 0:
        return []
    targets = np.linspace(min(10, train_max_length), lengths.max(), count).round()
    return [int(np.argmax(lengths >= t)) for t in targets]


class SymbolTask:
    """A task over random symbol sequences; subclasses define ``source_positions``."""

    name: ClassVar[str]
    curve_score: ClassVar[str] = "seq_acc"
    evaluation: ClassVar[str] = "by_length"  # training/evaluation/by_length.py runs models on it

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
        """The held-out length ranges metrics are reported in (``length_ranges``)."""
        task = config.task
        return length_ranges(task.train_max_length, task.eval_max_length,
                             task.eval_range_ends)

    @classmethod
    def selection_metrics(cls, config) -> tuple[str, ...]:
        """The held-out metrics ``train.best_metric`` may name: per length range."""
        return tuple(eval_key(metric, name) for name, _, _ in cls.length_ranges(config)
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
        self.heatmap_indices = heatmap_indices(
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

    # Inputs of one's own (attention_research/use/) ---------------------------------

    def encode(self, text: str) -> np.ndarray:
        """'3 14 15 9' (symbols by their index from 0, as the heat maps name them,
        separated by spaces or commas) -> source tokens."""
        count = self.config.task.num_symbols
        words = text.replace(",", " ").split()
        if not words:
            raise InputError(f"an empty input: give {self.name} a sequence of symbols "
                             f"0-{count - 1} separated by spaces, e.g. '3 1 4 1 5'")
        bad = [w for w in words if not (w.isdigit() and int(w) < count)]
        if bad:
            raise InputError(f"{', '.join(map(repr, dict.fromkeys(bad)))} in {text!r} "
                             f"{'is not a symbol' if len(set(bad)) == 1 else 'are not symbols'} "
                             f"of this run: its symbols are 0-{count - 1} (task.num_symbols="
                             f"{count}), separated by spaces")
        return np.asarray([int(w) + NUM_SPECIAL for w in words], np.int32)

    def decode(self, tokens) -> str:
        """Output tokens up to EOS -> '9 15 14 3'."""
        shown = []
        for token in map(int, tokens):
            if token == EOS:
                break
            if token != PAD:
                shown.append(self.label(token))
        return " ".join(shown)

    @staticmethod
    def output_length(source_width: int) -> int:
        return source_width + 1  # a target is its source's symbols and EOS

    @staticmethod
    def label(token: int) -> str:
        return {PAD: "<pad>", BOS: "<s>", EOS: "</s>"}.get(int(token),
                                                           str(int(token) - NUM_SPECIAL))

    # The held-out set, as evaluations read it -------------------------------------

    def held_out_chunks(self, count: int | None = None) -> list[Batch]:
        """The held-out set (or its first ``count`` examples) in chunks of
        ``task.eval_batch_size``, each cut to its own width (``_trim``); built once. The
        last chunk wraps to the start; its repeats are trimmed from the results."""
        count = len(self.eval_lengths) if count is None else count
        chunk = min(self.config.task.eval_batch_size, len(self.eval_lengths))
        return [_trim(jax.tree_util.tree_map(
            lambda x: x[np.arange(start, start + chunk) % count], self.eval_set))
            for start in range(0, count, chunk)]

    @functools.cached_property
    def heatmap_reference(self) -> np.ndarray:
        """[H, T]: the true alignment of the heat-map examples (fixed: computed once)."""
        return self.eval_alignment[np.asarray(self.heatmap_indices, int)]


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
