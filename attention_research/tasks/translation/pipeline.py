"""The translation input pipeline: grain over ``tfds`` data sources, length buckets,
per-member shuffling, per-process shards, and a position that is just the call index.

Tokenising: every split is read once through ``grain.MapDataset`` (threads, in order)
and SentencePiece-encoded. A source is its pieces; a target is its pieces + EOS; the
decoder input is BOS + pieces.

Training batches come in *calls* of ``steps_per_call`` batches, all of one length
bucket (every batch of a call has one shape, so one compiled step serves it). A pair
goes to the smallest bucket that holds both sides; pairs longer than the largest are
left out of training (and counted). One epoch has, per bucket, enough calls to use
each of its pairs at least once (the last call wraps round the bucket's shuffled
order). The order of the calls depends on ``data_seed`` alone, so members of a cohort
always train on one bucket at a time; which pairs fill a member's batches depends on
that member's seed. Everything is a pure function of (seeds, call index): a resumed
run continues with exactly the batches the uninterrupted one would have seen, and
only the call index needs saving. Each process builds only the rows of the global
batch that its devices hold (``jax.make_array_from_callback``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import jax
import numpy as np

from attention_research.data import BOS, EOS, PAD, Batch
from attention_research.tasks.translation.datasets import as_text

if TYPE_CHECKING:  # imported where used: a second of start-up that synthetic runs skip
    import grain

SUBWORD_STREAM = 1  # the last entry of a subword draw's generator key


@dataclass
class TokenizedSplit:
    """One split, encoded: ragged id arrays and the raw texts (for BLEU)."""

    sources: list  # [N] int32 arrays, no BOS/EOS
    targets: list  # [N] int32 arrays, no BOS/EOS
    source_texts: list
    target_texts: list

    def __len__(self):
        return len(self.sources)

    def head(self, count: int) -> "TokenizedSplit":
        """The first ``count`` pairs (all of them if ``count`` is 0)."""
        if not count or count >= len(self):
            return self
        return TokenizedSplit(self.sources[:count], self.targets[:count],
                              self.source_texts[:count], self.target_texts[:count])

    @functools.cached_property
    def source_lengths(self) -> np.ndarray:
        return np.array([len(s) for s in self.sources], np.int32)

    @functools.cached_property
    def target_lengths(self) -> np.ndarray:  # + 1 for EOS
        return np.array([len(t) + 1 for t in self.targets], np.int32)


def tokenize(corpus, split: str, processor, num_threads: int = 4) -> TokenizedSplit:
    """Read and encode a split with grain (threads for I/O, order kept)."""
    source_language, target_language = corpus.source_language, corpus.target_language

    def encode(record):
        source = as_text(record[source_language])
        target = as_text(record[target_language])
        return (np.asarray(processor.encode(source), np.int32),
                np.asarray(processor.encode(target), np.int32), source, target)

    import grain

    dataset = grain.MapDataset.source(corpus.splits[split]).map(encode)
    options = grain.ReadOptions(num_threads=num_threads, prefetch_buffer_size=256)
    rows = list(dataset.to_iter_dataset(options))
    if not rows:
        raise ValueError(f"split {split!r} of {corpus.name} is empty")
    sources, targets, source_texts, target_texts = map(list, zip(*rows))
    return TokenizedSplit(sources, targets, source_texts, target_texts)


def collate(sources: Sequence[np.ndarray], targets: Sequence[np.ndarray], width: int) -> Batch:
    """Pad pairs to ``width`` source tokens and ``width`` target steps (with EOS)."""
    count = len(sources)
    source = np.full((count, width), PAD, np.int32)
    target_inputs = np.full((count, width), PAD, np.int32)
    target_outputs = np.full((count, width), PAD, np.int32)
    for row, (s, t) in enumerate(zip(sources, targets)):
        s, t = s[:width], t[:width - 1]
        source[row, :len(s)] = s
        target_inputs[row, 0] = BOS
        target_inputs[row, 1:len(t) + 1] = t
        target_outputs[row, :len(t)] = t
        target_outputs[row, len(t)] = EOS
    lengths = np.array([min(len(s), width) for s in sources], np.int32)
    return Batch(source, target_inputs, target_outputs, lengths)


class TrainBatches:
    """The training stream of a cohort: call ``g`` -> Batch of [M, K, B, width] arrays."""

    def __init__(self, split: TokenizedSplit, boundaries: Sequence[int], batch_size: int,
                 steps_per_call: int, data_seed: int, member_seeds: Sequence[int],
                 batch_tokens: int = 0, row_multiple: int = 1, sampler=None):
        """``batch_tokens`` > 0: a batch of width w holds batch_tokens // w pairs (a
        multiple of ``row_multiple``, the devices a batch is split over) instead of
        ``batch_size``. ``sampler`` (``subwords.SubwordSampler``): segment each pair
        anew in every batch."""
        self.split = split
        self.boundaries = sorted(boundaries)
        self.batch_size, self.steps_per_call = batch_size, steps_per_call
        self.data_seed, self.member_seeds = data_seed, list(member_seeds)
        self.sampler = sampler
        longest = np.maximum(split.source_lengths, split.target_lengths)
        self.bucket_of = np.searchsorted(self.boundaries, longest)  # == len: too long
        self.skipped = int(np.sum(self.bucket_of == len(self.boundaries)))
        self.members_of_bucket = [np.flatnonzero(self.bucket_of == b)
                                  for b in range(len(self.boundaries))]
        # Token-based batches (as fairseq's --max-tokens and JoeyNMT's batch_type:
        # token count them): rows x padded width ≈ batch_tokens in every bucket.
        self.rows_of_bucket = [
            max(row_multiple, batch_tokens // width // row_multiple * row_multiple)
            if batch_tokens else batch_size for width in self.boundaries]
        self.calls_per_bucket = [-(-len(m) // (rows * steps_per_call)) for m, rows in
                                 zip(self.members_of_bucket, self.rows_of_bucket)]
        self.calls_per_epoch = sum(self.calls_per_bucket)
        if self.calls_per_epoch == 0:
            raise ValueError(f"no training pair fits the longest bucket "
                             f"({self.boundaries[-1]} tokens); raise task.length_buckets")

    def _epoch_order(self, epoch: int) -> np.ndarray:
        """Which bucket each call of the epoch uses: shared by every member."""
        order = np.repeat(np.arange(len(self.boundaries)), self.calls_per_bucket)
        return np.random.default_rng([self.data_seed, epoch]).permutation(order)

    def _locate(self, call: int) -> tuple[int, int, int]:
        """(epoch, bucket, how many calls of that bucket came earlier in the epoch)."""
        epoch, position = divmod(call, self.calls_per_epoch)
        order = self._epoch_order(epoch)
        bucket = int(order[position])
        return epoch, bucket, int(np.sum(order[:position] == bucket))

    def width(self, call: int) -> int:
        return self.boundaries[self._locate(call)[1]]

    def rows(self, call: int) -> int:
        """Pairs per batch in ``call``."""
        return self.rows_of_bucket[self._locate(call)[1]]

    def example_indices(self, call: int, member: int) -> np.ndarray:
        """[K, B] training-pair indices of ``member``'s batches in ``call``."""
        epoch, bucket, nth = self._locate(call)
        pool = self.members_of_bucket[bucket]
        rng = np.random.default_rng([self.member_seeds[member], epoch, bucket])
        order = pool[rng.permutation(len(pool))]
        rows = self.rows_of_bucket[bucket]
        per_call = rows * self.steps_per_call
        picks = np.arange(nth * per_call, (nth + 1) * per_call) % len(order)  # wrap round
        return order[picks].reshape(self.steps_per_call, rows)

    def _pair(self, index: int, width: int, key: list):
        """A training pair's ids: its best segmentation, or with a sampler one drawn by
        the generator of ``key`` (member seed, call, step, row: the same whichever
        process builds the row). A draw too long for the batch's width gives way to the
        best segmentation, which fits by construction."""
        source, target = self.split.sources[index], self.split.targets[index]
        if self.sampler is None:
            return source, target
        rng = np.random.default_rng(key)
        sampled_source = self.sampler.sample(self.split.source_texts[index], rng)
        sampled_target = self.sampler.sample(self.split.target_texts[index], rng)
        if len(sampled_source) <= width and len(sampled_target) < width:
            return sampled_source, sampled_target
        return source, target

    def block(self, call: int, members: slice = slice(None), rows: slice = slice(None)) -> Batch:
        """The [m, K, b, width] part of call ``call``: only these members and batch rows."""
        width = self.width(call)
        parts = []
        for member in range(len(self.member_seeds))[members]:
            indices = self.example_indices(call, member)
            first_row = rows.indices(indices.shape[1])[0]
            steps = []
            for step, step_indices in enumerate(indices[:, rows]):
                pairs = [self._pair(int(i), width, [self.member_seeds[member], call, step,
                                                    first_row + row, SUBWORD_STREAM])
                         for row, i in enumerate(step_indices)]
                steps.append(collate(*zip(*pairs), width))
            parts.append(Batch(*map(np.stack, zip(*steps))))
        return Batch(*map(np.stack, zip(*parts)))

    def global_shape(self, call: int) -> tuple[int, int, int, int]:
        return (len(self.member_seeds), self.steps_per_call, self.rows(call), self.width(call))

    def as_grain(self, start_call: int, members: slice = slice(None),
                 rows: slice = slice(None)) -> grain.IterDataset:
        """(call, this process's block) from ``start_call`` on, built ahead by grain."""
        import grain

        calls = grain.MapDataset.range(start_call, start_call + 10**9)
        return calls.map(lambda call: (call, self.block(call, members, rows))).to_iter_dataset(
            grain.ReadOptions(num_threads=1, prefetch_buffer_size=2))


def local_share(sharding, shape) -> tuple[slice, slice]:
    """The members and batch rows (axes 0 and 2) that this process's devices hold."""
    indices = sharding.addressable_devices_indices_map(shape).values()

    def span(axis):
        starts = [index[axis].start or 0 for index in indices]
        stops = [shape[axis] if index[axis].stop is None else index[axis].stop
                 for index in indices]
        return slice(min(starts), max(stops))
    return span(0), span(2)


def to_global(local: np.ndarray, shape, sharding, members: slice, rows: slice):
    """One global array of ``shape`` from this process's block ``local``, which holds
    the ``members`` (axis 0) and ``rows`` (axis 2) that ``local_share`` gave."""
    offset = (members.start, 0, rows.start)

    def shard(index):
        local_index = tuple(
            slice((i.start or 0) - offset[axis], (shape[axis] if i.stop is None else i.stop)
                  - offset[axis]) if axis < 3 else i for axis, i in enumerate(index))
        return local[local_index]
    return jax.make_array_from_callback(shape, sharding, shard)


def eval_batches(split: TokenizedSplit, batch_size: int, widths: Sequence[int]):
    """Fixed evaluation batches, by source length (little padding), in a fixed order.

    Yields (indices, Batch). A batch is as wide as the smallest of ``widths`` that holds
    it (the last one cuts what is longer), so only ``len(widths)`` shapes compile.
    """
    widths = sorted(widths)
    order = np.argsort(split.source_lengths, kind="stable")
    for start in range(0, len(order), batch_size):
        indices = order[start:start + batch_size]
        longest = max(int(split.source_lengths[indices].max()),
                      int(split.target_lengths[indices].max()))
        width = widths[min(int(np.searchsorted(widths, longest)), len(widths) - 1)]
        rows = list(indices) + [indices[-1]] * (batch_size - len(indices))  # fixed batch shape
        yield indices, collate([split.sources[i] for i in rows],
                               [split.targets[i] for i in rows], width)
