"""Monotonic attention (Raffel, Luong, Liu, Weiss & Eck 2017, "Online and Linear-Time
Attention by Enforcing Monotonic Alignments").

At output step i the decoder reads the memory from where it stopped at step i − 1,
t_{i−1}, onwards, and stops at the first position j whose stopping probability
p_{i,j} = σ(e_{i,j}) (Eq. 11-12; e any score plus a learned scalar bias r, Eq. 16's r)
says so; it attends to that one state. Nothing before t_{i−1} can be read again, so
the alignment is monotone by construction.

* **Training** uses the expected alignment under that process (Eq. 9):

      α_{i,j} = p_{i,j} Σ_{k≤j} α_{i−1,k} Π_{l=k}^{j−1} (1 − p_{i,l}),

  which Eq. 13-14 write as the first-order linear recurrence
  q_{i,j} = (1 − p_{i,j−1}) q_{i,j−1} + α_{i−1,j}, α_{i,j} = p_{i,j} q_{i,j}.
  Raffel et al.'s parallel solution (App. C.1) divides by the cumulative product of
  (1 − p), which underflows to 0 a few confident positions in, so they clip it. We
  solve the same recurrence with an associative scan over (a, b) pairs,
  (a₁, b₁) ∘ (a₂, b₂) = (a₁a₂, a₂b₁ + b₂): it only multiplies and adds numbers in
  [0, 1], so it is exact and stable at any length, and log-depth.
  Zero-mean Gaussian noise of standard deviation ``noise`` is added to the energy
  before the sigmoid (§2.4), which pushes p towards 0 or 1 so that the hard
  process at test time behaves like training.
* **Test** (no ``sample`` rng): the hard process of §2.2 with z_{i,j} = 1[p_{i,j} ≥ 0.5],
  the same recurrence on thresholded p: from a one-hot α_{i−1} it gives the one-hot
  of the first stop at or after t_{i−1}, or all zeros when no position stops (the
  context is then the zero vector, as in the paper).
* α_0 = δ_1: before the first step the decoder stands at the first position
  (``History.start(mask, "first")``, as the registry's ``history_start`` says). Padding has p = 0, so exactly zero
  weight; the weights sum to at most 1 — what is left is attention to "nothing".

The recurrence reads α_{i−1}, which only the RNN decoder carries: like location-aware
attention, monotonic attention is RNN-only and single-headed.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _first_order_scan(a, b):
    """q_j = a_j q_{j−1} + b_j along the last axis, q_{−1} = 0, for every j at once."""
    def combine(earlier, later):
        a1, b1 = earlier
        a2, b2 = later
        return a1 * a2, a2 * b1 + b2
    return jax.lax.associative_scan(combine, (a, b), axis=-1)[1]


def expected_alignment(p, previous):
    """Raffel et al. Eq. 13-14: stopping probabilities p [..., T, S] (0 off the mask)
    and the previous alignment α_{i−1} [..., S] -> α_i [..., T, S]."""
    # a_j = 1 − p_{j−1}; a_0 multiplies q_{−1} = 0, so its value does not matter.
    keep_going = jnp.concatenate([jnp.ones_like(p[..., :1]), 1.0 - p[..., :-1]], axis=-1)
    arrived = jnp.broadcast_to(previous[..., None, :], p.shape).astype(p.dtype)
    return p * _first_order_scan(keep_going, arrived)


def stopping_probabilities(energy, valid, noise_key=None, noise: float = 0.0):
    """p = σ(e + ε), ε ~ N(0, noise²) in training (``noise_key`` given), 0 off ``valid``;
    at test (no key) the hard decision 1[σ(e) ≥ 0.5] = 1[e ≥ 0]."""
    if noise_key is None:
        return jnp.where(valid & (energy >= 0), 1.0, 0.0).astype(energy.dtype)
    if noise > 0:
        energy = energy + noise * jax.random.normal(noise_key, energy.shape, energy.dtype)
    return jnp.where(valid, jax.nn.sigmoid(energy), 0.0)
