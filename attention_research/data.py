"""What every task's batches are made of: the special tokens and the Batch.

Token ids 0, 1 and 2 are PAD, BOS and EOS in every task (the SentencePiece model of
a corpus is trained with the same ids), so models, decoding, metrics and plots treat
every task alike.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

PAD, BOS, EOS = 0, 1, 2
NUM_SPECIAL = 3


class Batch(NamedTuple):
    source: jnp.ndarray  # [B, S] int32, PAD after the source length
    target_inputs: jnp.ndarray  # [B, T]: BOS y_1 … y_n, then PAD (teacher forcing)
    targets: jnp.ndarray  # [B, T]: y_1 … y_n EOS, then PAD
    source_lengths: jnp.ndarray  # [B] int32
