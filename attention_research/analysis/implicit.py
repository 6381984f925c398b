"""Implicit attention: what a model's outputs depend on, read off its derivatives.

The notes this project grew from separate *explicit* attention (the weights a model
computes) from *implicit* attention (what any network learns to focus on, visible in
the Jacobian of its outputs with respect to its inputs, as in gradient saliency maps).
For a target step t with output y_t, let f_t = log p(y_t | y_<t, x) under teacher
forcing and x_s the embedding of source token s. Every method gives one number per
(t, s), a map of target step x source position like the explicit weights:

* ``gradient`` — ‖∂f_t/∂x_s‖₂, the saliency of Simonyan et al. 2014 per token;
* ``gradient_x_input`` — Σ_e x_{s,e} ∂f_t/∂x_{s,e} (Shrikumar et al. 2016; Baehrens
  et al. 2010), signed;
* ``integrated_gradients`` — Sundararajan, Taly & Yan 2017, Eq. 3 (the Riemann sum of
  their §4 with m steps): Σ_e (x_s − x'_s)_e · (1/m) Σ_{k=1}^m ∂f_t/∂x_{s,e} at
  x' + (k/m)(x − x'), signed. The baseline x' has zero embeddings at real source
  positions (padding stays as it is: it gets no attribution). Completeness (their
  Proposition 1): Σ_s IG_{t,s} = f_t(x) − f_t(x') as m grows.

All of a batch's maps come from ``jax.jacrev`` of the T summed outputs Σ_b f_{b,t}
(the examples do not interact, so each one's gradient is its own): T reverse passes,
vectorised, with no Python loop over steps. ``attributions`` returns the signed ones
(``attributions_by_method`` several methods, one Jacobian at x between them);
``as_distribution`` turns it into a non-negative map that sums to 1 over the real
source positions, to compare with attention weights.

Models expose their source embeddings to these derivatives through Flax's
``perturb`` (``PERTURBATION``): a zero added to the embeddings, whose gradient is the
gradient with respect to them, and which a plain ``apply`` ignores.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import optax

from attention_research.models.embeddings import PERTURBATION

METHODS = ("gradient", "gradient_x_input", "integrated_gradients")


def jacobian(log_probs: Callable, x):
    """∂f_{b,t}/∂x_{b,s,e} [B, T, S, E] of ``log_probs`` (x [B, S, E] -> f [B, T])."""
    per_step = jax.jacrev(lambda x: jnp.sum(log_probs(x), axis=0))(x)  # [T, B, S, E]
    return jnp.moveaxis(per_step, 0, 1)


def attributions(log_probs: Callable, x, real, method: str, steps: int = 32):
    """The signed (``gradient``: non-negative) attribution [B, T, S] of each output
    f_t to each source token, by ``method``; 0 on padding (``real`` [B, S] False)."""
    return attributions_by_method(log_probs, x, real, (method,), steps)[method]


def attributions_by_method(log_probs: Callable, x, real, methods, steps: int = 32) -> dict:
    """``attributions`` for several ``methods`` at once: {method: [B, T, S]}. The
    methods read at x (gradient, gradient × input) share one Jacobian, so asking for
    both costs one set of T reverse passes, traced and compiled once."""
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown implicit attention method {unknown[0]!r}; valid "
                         f"choices: {', '.join(METHODS)}")
    mask = real[:, None, :]
    found = {}
    if {"gradient", "gradient_x_input"} & set(methods):
        at_x = jacobian(log_probs, x)
        if "gradient" in methods:
            found["gradient"] = jnp.where(mask, jnp.linalg.norm(at_x, axis=-1), 0.0)
        if "gradient_x_input" in methods:
            found["gradient_x_input"] = jnp.where(
                mask, jnp.einsum("btse,bse->bts", at_x, x), 0.0)
    if "integrated_gradients" in methods:
        found["integrated_gradients"] = _integrated_gradients(log_probs, x, real, steps)
    return found


def _integrated_gradients(log_probs: Callable, x, real, steps: int):
    if steps < 1:
        raise ValueError(f"integrated gradients needs at least 1 step, got {steps}")
    mask = real[:, None, :]
    baseline = jnp.where(real[..., None], 0.0, x)
    path = x - baseline

    def accumulate(total, k):
        point = baseline + (k / steps) * path
        return total + jnp.einsum("btse,bse->bts", jacobian(log_probs, point), path), None

    steps_out = jax.eval_shape(log_probs, x).shape[1]  # T, without running the model
    total = jnp.zeros(mask.shape[:1] + (steps_out,) + mask.shape[2:], x.dtype)
    total, _ = jax.lax.scan(accumulate, total, jnp.arange(1, steps + 1, dtype=x.dtype))
    return jnp.where(mask, total / steps, 0.0)


def as_distribution(attribution, real):
    """|attribution| normalised over the real source positions of each step: [B, T, S]
    that sums to 1 (all zeros where every attribution is 0), like attention weights."""
    magnitude = jnp.where(real[:, None, :], jnp.abs(attribution), 0.0)
    total = magnitude.sum(-1, keepdims=True)
    return jnp.where(total > 0, magnitude / jnp.where(total > 0, total, 1.0), 0.0)


def model_log_probs(model, params, source, target_inputs, targets):
    """(x, f): the model's source token embeddings x [B, S, E] and f(x) [B, T], each
    target token's log-probability under teacher forcing with the embeddings x."""
    x = model.apply({"params": params}, source, method=lambda m, s: m.source_embed(s))

    def log_probs(embeddings):
        variables = {"params": params, "perturbations": {PERTURBATION: embeddings - x}}
        logits, _ = model.apply(variables, source, target_inputs)
        return -optax.softmax_cross_entropy_with_integer_labels(logits, targets)

    return x, log_probs


def implicit_maps(model, params, batch, method: str, steps: int = 32):
    """A trained model's signed attribution [B, T, S] of each teacher-forced target token
    to each source token, by ``method`` (see the module docstring)."""
    x, log_probs = model_log_probs(model, params, batch.source, batch.target_inputs,
                                   batch.targets)
    return attributions(log_probs, x, batch.source > 0, method, steps)
