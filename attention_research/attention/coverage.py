"""The coverage loss (See et al. 2017, Eq. 12-13; Tu et al. 2016): a training signal any
attention of the RNN decoder may add.

    loss_t = −log P(y_t) + λ Σ_s min(α_{t,s}, c_{t,s}),   c_t = Σ_{t'<t} α_{t'}

It charges a step for attending again where the steps before it already have, which
See et al. found necessary to stop repetition (λ = 1 in their experiments). They add it
for a final phase only (§7: the last 3,000 iterations), having found that the loss from
the first iteration "interfered with the main objective": ``coverage_loss_from`` (a
share of the training budget) sets the step it switches on at. The
decoder's attention records Σ_s min(α_{t,s}, c_{t,s}) at every step in the
``coverage`` collection; like the likelihood, the loss is averaged over real target
tokens. Wu et al. 2016's coverage *penalty*, its decoding-time counterpart, is in
``decoding.beam_search``.
"""

from __future__ import annotations

import jax.numpy as jnp

from attention_research.attention.reinforce import recorded


class CoverageLoss:
    """λ · mean over real target tokens of Σ_s min(α_{t,s}, c_{t,s}), from training step
    ``start`` on (0 before it)."""

    collections = ("coverage",)

    def __init__(self, weight: float, start: int = 0):
        self.weight, self.start = weight, start

    def init_state(self) -> dict:
        return {}

    def __call__(self, records, state, log_likelihood, mask, step=0):
        per_token = recorded(records, "coverage_loss")  # [B, T]
        weight = jnp.where(step >= self.start, self.weight, 0.0)
        return weight * jnp.sum(per_token * mask) / jnp.maximum(jnp.sum(mask), 1), state


class Signals:
    """Several training signals at once (hard attention trained with a coverage loss):
    their losses add, their states sit side by side."""

    def __init__(self, signals):
        self.signals = list(signals)
        self.collections = tuple(c for s in self.signals for c in s.collections)

    def init_state(self) -> dict:
        return {key: value for s in self.signals for key, value in s.init_state().items()}

    def __call__(self, records, state, log_likelihood, mask, step=0):
        total, new_state = 0.0, {}
        for signal in self.signals:
            own = {key: state[key] for key in signal.init_state()}
            loss, own = signal(records, own, log_likelihood, mask, step)
            total, new_state = total + loss, {**new_state, **own}
        return total, new_state
