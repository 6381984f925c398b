"""REINFORCE for stochastic hard attention (Xu et al. 2015, §4.1, Eq. 10-12): the
training signal that hard attention owns.

The attention samples a position s̃_t ~ α_t at each target step; the sample is
not differentiable, so the score parameters learn from the score-function
estimator. Two rewards (``hard.reward``):

* ``token`` (our default):  λ_r (r_t − b) ∇ log α_t(s̃_t),  r_t = log p(y_t | s̃, …):
  each step is credited with its own token's log-likelihood only. Lower variance,
  but biased where a sample also changes later tokens (a recurrent decoder
  carries the context forward).
* ``sequence`` (Xu Eq. 12 as printed):  λ_r (R − b) Σ_t ∇ log α_t(s̃_t),  R = log p(y | s̃)
  = Σ_t log p(y_t | s̃, …): unbiased, noisier the longer the sequence, and of a scale
  that grows with |y|; one scalar baseline then mixes sequences of every length.
* ``sequence_mean`` (Xu's reference code):  the same with R̄ = R / |y|, the per-token
  mean log-likelihood. arctic-captions' ``capgen.py`` (``RL_sumCost``, its default
  from commit de281ce, with ``alpha_entropy_c = 0.002``) credits every step with the
  time-averaged cost of its caption divided by 10, with Eq. 12's sign (an earlier
  commit's line had the opposite one), and keeps one moving-average baseline of that
  averaged cost; its batches share one length
  (``HomogeneousData``), so the baseline never mixes scales. Ours mix lengths 1–25 in
  a batch, and R̄ is what keeps one baseline meaningful for all of them. Xu's "/10" is
  ``reinforce_weight = 0.1``. (capgen.py adds that term per example while it averages
  the likelihood over the batch, so relative to the likelihood its weight also grows
  with the batch size, B/10 = 3.2 at our B = 32; experiments/hard_vs_soft.py sweeps λ_r
  over that range rather than pick one reading.)

Both add the entropy bonus λ_e ∇ H(α_t), and b is a moving average of the reward
(Xu §4.1: b_k = 0.9 b_{k−1} + 0.1 log p(y | s̃_k)). Steps that used the expected
context (``soft_fraction``; Xu set "the sampled attention location s̃ to its expected
value α" with probability 0.5 per image) sampled nothing: the attention records
log α = 0 there, so REINFORCE gets no term from them. ``surrogate_loss`` is a
function whose gradient is minus the estimate, so it is simply added to the mean
negative log-likelihood; like that loss it is divided by the number of real tokens.

The training loop knows none of this. It asks the alignment's registry entry for a
*training signal* (``Reinforce`` for hard attention, ``NoSignal`` for every other
alignment), applies the model with the signal's ``collections`` mutable (where the
attention records log α(s̃) and H(α)), and adds what the signal returns to the loss;
the signal's state (here the baseline b) rides in the train state between steps.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

REWARDS = ("token", "sequence", "sequence_mean")  # hard.reward
# hard.soft_unit: what one soft_fraction draw decides: each target step, each sequence
# (Xu et al.'s paper: "for a given image"), or the whole minibatch (their capgen.py draws
# one h_sampling_mask per update, so half the updates are wholly soft)
SOFT_UNITS = ("step", "sequence", "batch")
TEST_CONTEXTS = ("argmax", "expected")  # hard.test_context: the context at evaluation


def recorded(records, name: str):
    """The one array a model recorded under ``name`` (e.g. 'log_prob'), as [B, T]."""
    found = [leaf for path, leaf in jax.tree_util.tree_leaves_with_path(records)
             if any(getattr(key, "key", None) == name for key in path)]
    if len(found) != 1:
        raise ValueError(f"expected one attention recording {name!r}, found {len(found)}")
    value = found[0]
    return value.reshape(value.shape[:2])


def surrogate_loss(log_prob, entropy, rewards, baseline, mask, reinforce_weight: float,
                   entropy_weight: float):
    """−(λ_r (r − b) log α(s̃) + λ_e H(α)), summed over real target tokens and divided
    by their number.

    ``log_prob``, ``entropy`` and ``mask`` are [B, T]; ``rewards`` is [B, T] (a reward
    per token) or [B, 1] (one per sequence, which multiplies every step's log α);
    ``rewards`` and ``baseline`` carry no gradient.
    """
    advantage = jax.lax.stop_gradient(rewards - baseline)
    per_token = reinforce_weight * advantage * log_prob + entropy_weight * entropy
    return -jnp.sum(per_token * mask) / jnp.maximum(jnp.sum(mask), 1)


def update_baseline(baseline, rewards, mask, decay: float):
    """b ← decay · b + (1 − decay) · mean reward over ``mask`` (Xu et al. §4.1): real
    tokens [B, T] for per-token rewards, sequences [B, 1] for per-sequence ones."""
    mean = jnp.sum(rewards * mask) / jnp.maximum(jnp.sum(mask), 1)
    return decay * baseline + (1.0 - decay) * jax.lax.stop_gradient(mean)


class NoSignal:
    """The likelihood alone: what every alignment but ``hard`` trains with."""

    collections: tuple = ()

    def init_state(self) -> dict:
        return {}

    def __call__(self, records, state, log_likelihood, mask, step=0):
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
        self.reward = hard.reward

    def init_state(self) -> dict:
        return {"reward_baseline": jnp.zeros((), jnp.float32)}

    def __call__(self, records, state, log_likelihood, mask, step=0):
        """(extra loss, new state) from what the model recorded and the per-token
        log-likelihood [B, T] of the targets (the rewards) on real tokens ``mask``."""
        rewards, averaged_over = jax.lax.stop_gradient(log_likelihood), mask
        if self.reward != "token":  # R = log p(y | s̃) (or R / |y|), credited to every step
            rewards = jnp.sum(rewards * mask, axis=1, keepdims=True)
            if self.reward == "sequence_mean":
                rewards = rewards / jnp.maximum(jnp.sum(mask, axis=1, keepdims=True), 1)
            averaged_over = jnp.ones_like(rewards)
        baseline = state["reward_baseline"]
        loss = surrogate_loss(recorded(records, "log_prob"), recorded(records, "entropy"),
                              rewards, baseline, mask, self.reinforce_weight,
                              self.entropy_weight)
        return loss, {"reward_baseline": update_baseline(baseline, rewards, averaged_over,
                                                          self.baseline_decay)}
