"""REINFORCE for stochastic hard attention (Xu et al. 2015, §4.1, Eq. 10-12): the
training signal that hard attention owns.

The attention samples a position s̃_t ~ α_t at each target step; the sample is
not differentiable, so the score parameters learn from the score-function
estimator

    ∇ E[r] ≈ λ_r (r_t − b) ∇ log α_t(s̃_t) + λ_e ∇ H(α_t),

with reward r_t = log p(y_t | s̃, …) (the log-likelihood of the target token),
b a moving average of the reward (variance reduction) and H the entropy bonus.
``surrogate_loss`` is a function whose gradient is minus that estimate, so it is
simply added to the negative log-likelihood.

The training loop knows none of this. It asks the alignment's registry entry for a
*training signal* (``Reinforce`` for hard attention, ``NoSignal`` for every other
alignment), applies the model with the signal's ``collections`` mutable (where the
attention records log α(s̃) and H(α)), and adds what the signal returns to the loss;
the signal's state (here the baseline b) rides in the train state between steps.
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


class NoSignal:
    """The likelihood alone: what every alignment but ``hard`` trains with."""

    collections: tuple = ()

    def init_state(self) -> dict:
        return {}

    def __call__(self, records, state, log_likelihood, mask):
        return 0.0, state


class Reinforce:
    """The REINFORCE surrogate of hard attention, with its moving-average baseline.

    Built from the config's ``model.attention`` section (its ``hard`` fields).
    """

    collections = ("reinforce",)  # where Attention records log α(s̃) and H(α)

    def __init__(self, attention_config):
        hard = attention_config.hard
        self.reinforce_weight = hard.reinforce_weight
        self.entropy_weight = hard.entropy_weight
        self.baseline_decay = hard.baseline_decay

    def init_state(self) -> dict:
        return {"reward_baseline": jnp.zeros((), jnp.float32)}

    def __call__(self, records, state, log_likelihood, mask):
        """(extra loss, new state) from what the model recorded and the per-token
        log-likelihood [B, T] of the targets (the rewards) on real tokens ``mask``."""
        rewards = jax.lax.stop_gradient(log_likelihood)
        baseline = state["reward_baseline"]
        loss = surrogate_loss(recorded(records, "log_prob"), recorded(records, "entropy"),
                              rewards, baseline, mask, self.reinforce_weight,
                              self.entropy_weight)
        return loss, {"reward_baseline": update_baseline(baseline, rewards, mask,
                                                          self.baseline_decay)}
