"""Attention = score function + alignment (how scores become weights).

Every attention maps (queries [B, T, dq], memory) to (context [B, T, dv],
weights [B, T, S]). Weights are recorded with ``sow('intermediates',
'attention_weights', ...)`` for plotting; padding gets exactly zero weight.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import jax.numpy as jnp
import flax.linen as nn


class Memory(NamedTuple):
    """What a decoder attends over, prepared once per source sequence."""

    values: jnp.ndarray  # [B, S, dv] encoder states h̄_s
    features: Any  # the score's prepare(values): e.g. U_a h̄_s for additive
    mask: jnp.ndarray  # [B, S] True on real tokens
    summary: jnp.ndarray  # [B, dv] final encoder state, the fixed context of `none`


def masked_softmax(scores, mask):
    """Softmax over the last axis restricted to ``mask``; masked entries are exactly 0.

    ``mask`` broadcasts against ``scores``. A row with no valid position gets all
    zeros rather than NaN (it only occurs for padding examples).
    """
    big_negative = jnp.finfo(scores.dtype).min
    scores = jnp.where(mask, scores, big_negative)
    weights = nn.softmax(scores, axis=-1)
    return jnp.where(mask, weights, 0.0)


class Attention(nn.Module):
    """Soft (global) attention: softmax over all valid source positions.

    Bahdanau et al. 2015, Eq. (5)-(6); Luong et al. 2015, Eq. (7):
    a_t(s) = exp(score(h_t, h̄_s)) / Σ_s' exp(score(h_t, h̄_s')), c_t = Σ_s a_t(s) h̄_s.
    """

    score_fn: nn.Module
    alignment: str = "global"

    def prepare(self, values, mask, summary) -> Memory:
        return Memory(values, self.score_fn.prepare(values), mask, summary)

    def __call__(self, queries, memory: Memory, step: Optional[jnp.ndarray] = None):
        scores = self.score_fn(queries, memory.features)  # [B, T, S]
        weights = masked_softmax(scores, memory.mask[:, None, :])
        self.sow("intermediates", "attention_weights", weights)
        context = jnp.einsum("bts,bsd->btd", weights, memory.values)
        return context, weights


class NoAttention(nn.Module):
    """No attention: the fixed-context encoder-decoder baseline.

    Cho et al. 2014 / Sutskever et al. 2014: every decoder step sees the same
    summary c of the source (here the final encoder state). Returns no weights.
    """

    def prepare(self, values, mask, summary) -> Memory:
        return Memory(values, None, mask, summary)

    def __call__(self, queries, memory: Memory, step: Optional[jnp.ndarray] = None):
        context = jnp.broadcast_to(memory.summary[:, None, :],
                                   queries.shape[:2] + memory.summary.shape[-1:])
        return context, None
