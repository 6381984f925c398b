"""How scores become weights: the distribution over source positions, restricted to a
mask (padding, a local window, a causal mask), with exactly 0 outside it.

* ``softmax`` — exp(e_s) / Σ exp(e_s'), dense: every valid position gets some weight.
* ``sparsemax`` — Martins & Astudillo 2016, Eq. 2: the Euclidean projection of the
  scores onto the probability simplex, argmin_p ‖p − e‖² (optax's
  ``projection_simplex``). Positions whose score falls below a threshold τ get
  exactly 0.
* ``entmax15`` — α-entmax with α = 1.5 (Peters, Niculae & Martins 2019, Eq. 10 and
  Algorithm 2): p_s = [e_s/2 − τ]₊², τ found exactly by sorting. Between softmax
  (α = 1) and sparsemax (α = 2): sparse, yet smoother than sparsemax.

Every normaliser takes (scores [..., S], mask broadcasting to it) and returns weights
that sum to 1 over the mask, or all zeros for a row whose mask is empty (a local
window past the end of the source), never NaN.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import flax.linen as nn
from optax import projections


def _masked_scores(scores, mask):
    """Masked entries pushed far below every real score: they get exactly 0 from the
    sparse maps; a finite value, so no inf − inf reaches the gradient."""
    floor = jnp.min(jnp.where(mask, scores, jnp.inf), axis=-1, keepdims=True)
    floor = jnp.where(jnp.isfinite(floor), floor, 0.0)
    return jnp.where(mask, scores, floor - 1e4)


def masked_softmax(scores, mask):
    """Softmax over the last axis restricted to ``mask``; masked entries are exactly 0."""
    big_negative = jnp.finfo(scores.dtype).min
    scores = jnp.where(mask, scores, big_negative)
    weights = nn.softmax(scores, axis=-1)
    return jnp.where(mask, weights, 0.0)


def masked_sparsemax(scores, mask):
    """Sparsemax (Martins & Astudillo 2016) over the last axis, restricted to ``mask``."""
    mask = jnp.broadcast_to(mask, scores.shape)
    shifted = _masked_scores(scores, mask)
    rows = shifted.reshape(-1, shifted.shape[-1])
    weights = jax.vmap(projections.projection_simplex)(rows).reshape(scores.shape)
    return jnp.where(mask, weights, 0.0)


def masked_entmax15(scores, mask):
    """1.5-entmax (Peters et al. 2019, Algorithm 2) over the last axis, within ``mask``.

    With z = e/2 sorted in decreasing order, for each k the threshold that puts the
    top k in the support is τ_k = mean_k − sqrt((1 − k·(meansq_k − mean_k²)) / k)
    (the root of Σ_{j≤k} (z_j − τ)² = 1); the support is the largest k with
    τ_k ≤ z_k, and p = [z − τ]₊².
    """
    mask = jnp.broadcast_to(mask, scores.shape)
    z = _masked_scores(scores, mask) / 2
    z = z - jnp.max(z, axis=-1, keepdims=True)  # shift-invariant; keeps squares small
    ordered = -jnp.sort(-z, axis=-1)
    k = jnp.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    mean = jnp.cumsum(ordered, axis=-1) / k
    mean_square = jnp.cumsum(ordered ** 2, axis=-1) / k
    delta = (1 - k * (mean_square - mean ** 2)) / k
    # sqrt only where delta > 0: sqrt'(0) = inf would turn the zero cotangent of the
    # thresholds not chosen into NaN.
    positive = delta > 0
    tau = mean - jnp.where(positive, jnp.sqrt(jnp.where(positive, delta, 1.0)), 0.0)
    support = jnp.sum(tau <= ordered, axis=-1, keepdims=True)
    threshold = jnp.take_along_axis(tau, support - 1, axis=-1)
    weights = jnp.clip(z - threshold, 0) ** 2
    return jnp.where(mask, weights, 0.0)


NORMALIZERS = {"softmax": masked_softmax, "sparsemax": masked_sparsemax,
               "entmax15": masked_entmax15}
