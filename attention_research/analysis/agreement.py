"""Do attention weights explain the model? Agreement of explicit and implicit maps,
and a test of faithfulness by ablation.

Jain & Wallace (2019, "Attention is not Explanation") compare attention weights
with gradient-based importance by Kendall τ; Wiegreffe & Pinter (2019) answer that
weights must be tested against what the model does. Copy, reverse and sort know the
true alignment, so here both maps can also be scored against it:

* ``argmax_hits`` — how often a map's argmax is the true source position (the
  alignment accuracy of training/evaluation/ranges.py, for any map, implicit ones included);
* ``kendall_tau`` — τ_b between two maps over a step's real source positions (ties,
  e.g. sparsemax's zeros, are τ_b's concern, not dropped);
* ``ablation_drops`` — the drop in a target token's log-probability when one source
  token's embedding is replaced by the zero baseline (the baseline integrated
  gradients starts from): a position a faithful map ranks highest should cost more
  than a random one.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def argmax_hits(maps, positions, matches=None):
    """(hits [B], steps [B]): target steps whose map argmax over the source is the true
    position ``positions`` [B, T] (-1: no true position, not counted).

    A step whose map is all zeros (hard monotonic attention that never stopped, say) is
    a miss: its argmax, 0, points nowhere. With ``matches`` [B, T, S] (the source
    positions that hold the symbol step t emits), any of them counts: on sort, where a
    symbol may occur twice, the stable-sort position is one right answer of several
    (issue 35)."""
    counted = positions >= 0
    chosen = jnp.argmax(maps, -1)
    if matches is None:
        hit = chosen == positions
    else:
        hit = jnp.take_along_axis(matches, chosen[..., None], axis=-1)[..., 0]
    hits = hit & (jnp.max(maps, -1) > 0) & counted
    return hits.sum(axis=1), counted.sum(axis=1)


def kendall_tau(a, b, real):
    """Kendall's τ_b [B, T] between maps ``a`` and ``b`` [B, T, S] over the real source
    positions (``real`` [B, S]), and whether it is defined there [B, T] (it is not when
    either map is constant over them, e.g. a one-token source).

    τ_b = Σ_{i<j} sgn(a_i − a_j) sgn(b_i − b_j) / √(n_a n_b), n_a (n_b) the pairs
    that ``a`` (``b``) does not tie (Kendall 1945). O(S²) per step, all vectorised."""
    pairs = (real[:, :, None] & real[:, None, :])[:, None]  # [B, 1, S, S]
    sign_a = jnp.sign(a[..., :, None] - a[..., None, :]) * pairs
    sign_b = jnp.sign(b[..., :, None] - b[..., None, :]) * pairs
    # Ordered pairs count each unordered pair twice, in numerator and denominator alike.
    concordance = jnp.sum(sign_a * sign_b, axis=(-2, -1))
    untied = jnp.sum(jnp.abs(sign_a), axis=(-2, -1)) * jnp.sum(jnp.abs(sign_b), axis=(-2, -1))
    defined = untied > 0
    return jnp.where(defined, concordance / jnp.sqrt(jnp.where(defined, untied, 1.0)), 0.0), defined


def ablation_drops(log_probs, x, steps, positions):
    """f_t(x) − f_t(x with source token s zeroed) [B, K] at one target step per example
    (``steps`` [B]), for each of K source positions per example (``positions`` [B, K]).
    ``log_probs``: x [B, S, E] -> f [B, T] (implicit.model_log_probs)."""
    rows = jnp.arange(x.shape[0])
    plain = log_probs(x)[rows, steps]

    def ablated(position):  # position [B]: one source token per example zeroed
        hit = jnp.arange(x.shape[1])[None, :] == position[:, None]
        return log_probs(jnp.where(hit[..., None], 0.0, x))[rows, steps]

    return plain[:, None] - jax.vmap(ablated, in_axes=1, out_axes=1)(positions)
