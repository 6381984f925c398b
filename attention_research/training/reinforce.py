"""REINFORCE for stochastic hard attention (Xu et al. 2015, §4.1, Eq. 10-12).

The attention samples a position s̃_t ~ α_t at each target step; the sample is
not differentiable, so the score parameters learn from the score-function
estimator

    ∇ E[r] ≈ λ_r (r_t − b) ∇ log α_t(s̃_t) + λ_e ∇ H(α_t),

with reward r_t = log p(y_t | s̃, …) (the log-likelihood of the target token),
b a moving average of the reward (variance reduction) and H the entropy bonus.
``surrogate_loss`` is a function whose gradient is minus that estimate, so it is
simply added to the negative log-likelihood.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def recorded(records, name: str):
    """The one array a model recorded under ``name`` (e.g. 'log_prob'), as [B, T]."""
    found = [leaf for path, leaf in jax.tree_util.tree_leaves_with_path(records)
             if any(getattr(key, "key", None) == name for key in path)]
    if len(found) != 1:
        raise ValueError(f"expected one hard attention recording {name!r}, found {len(found)}")
    value = found[0]
    return value.reshape(value.shape[:2])


def surrogate_loss(log_prob, entropy, rewards, baseline, mask, reinforce_weight: float,
                   entropy_weight: float):
    """−(λ_r (r − b) log α(s̃) + λ_e H(α)), averaged over real target tokens.

    All of [B, T]; ``rewards`` and ``baseline`` carry no gradient.
    """
    advantage = jax.lax.stop_gradient(rewards - baseline)
    per_token = reinforce_weight * advantage * log_prob + entropy_weight * entropy
    return -jnp.sum(per_token * mask) / jnp.maximum(jnp.sum(mask), 1)


def update_baseline(baseline, rewards, mask, decay: float):
    """b ← decay · b + (1 − decay) · mean reward over real tokens (Xu et al. §4.1)."""
    mean = jnp.sum(rewards * mask) / jnp.maximum(jnp.sum(mask), 1)
    return decay * baseline + (1.0 - decay) * jax.lax.stop_gradient(mean)
