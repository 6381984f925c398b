"""Copy and reverse: synthetic tasks sampled on device.

Tokens: 0 = PAD, 1 = BOS, 2 = EOS, symbols are 3 … num_symbols + 2. A source of
length L holds L symbols drawn uniformly; the target is the source (copy) or the
source reversed (reverse), followed by EOS. Batches are pure functions of a key,
so a training step samples its own batch from (seed, step) inside jit: no host
I/O, and a resumed run sees exactly the batches the uninterrupted run saw.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

PAD, BOS, EOS = 0, 1, 2
NUM_SPECIAL = 3
TASKS = ("copy", "reverse")


class Batch(NamedTuple):
    source: jnp.ndarray  # [B, S] int32, PAD after the source length
    target_inputs: jnp.ndarray  # [B, S + 1]: BOS y_1 … y_L, then PAD
    targets: jnp.ndarray  # [B, S + 1]: y_1 … y_L EOS, then PAD
    source_lengths: jnp.ndarray  # [B] int32


def vocab_size(num_symbols: int) -> int:
    return num_symbols + NUM_SPECIAL


def make_batch(name: str, symbols, lengths) -> Batch:
    """Build a batch from raw symbols [B, S] (values in [0, num_symbols)) and lengths [B]."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; valid choices: {', '.join(TASKS)}")
    positions = jnp.arange(symbols.shape[1])[None, :]
    valid = positions < lengths[:, None]
    source = jnp.where(valid, symbols + NUM_SPECIAL, PAD).astype(jnp.int32)
    if name == "reverse":
        index = jnp.where(valid, lengths[:, None] - 1 - positions, positions)
        body = jnp.take_along_axis(source, index, axis=1)
    else:
        body = source
    padded = jnp.pad(body, ((0, 0), (0, 1)))
    targets = jnp.where(jnp.arange(padded.shape[1])[None, :] == lengths[:, None], EOS, padded)
    target_inputs = jnp.pad(targets, ((0, 0), (1, 0)), constant_values=BOS)[:, :-1]
    target_inputs = jnp.where(target_inputs == EOS, PAD, target_inputs)
    return Batch(source, target_inputs, targets.astype(jnp.int32), lengths.astype(jnp.int32))


def sample_batch(key, name: str, batch_size: int, num_symbols: int, min_length: int,
                 max_length: int) -> Batch:
    """A fresh batch with lengths uniform in [min_length, max_length]; jit-friendly."""
    length_key, symbol_key = jax.random.split(key)
    lengths = jax.random.randint(length_key, (batch_size,), min_length, max_length + 1)
    symbols = jax.random.randint(symbol_key, (batch_size, max_length), 0, num_symbols)
    return make_batch(name, symbols, lengths)


def make_eval_set(name: str, num_symbols: int, min_length: int, max_length: int,
                  examples_per_length: int, seed: int) -> Batch:
    """The fixed held-out set: ``examples_per_length`` examples of every length.

    Drawn from its own seed, so it is the same for every run, member and resume.
    """
    lengths = np.repeat(np.arange(min_length, max_length + 1), examples_per_length)
    symbols = jax.random.randint(jax.random.PRNGKey(seed), (len(lengths), max_length),
                                 0, num_symbols)
    return jax.tree_util.tree_map(np.asarray,
                                  make_batch(name, symbols, jnp.asarray(lengths, jnp.int32)))


def alignment_targets(name: str, lengths, num_steps: int):
    """The source position each target step should attend to: t (copy), L-1-t (reverse).

    Returns [B, num_steps]; entries at t >= L (EOS, padding) are -1.
    """
    t = jnp.arange(num_steps)[None, :]
    lengths = lengths[:, None]
    position = t if name == "copy" else lengths - 1 - t
    return jnp.where(t < lengths, position, -1)
