"""Implicit attention, rollout and their agreement with the explicit weights, measured
on a held-out chunk, jitted and vmapped over members (training/evaluation/ runs it over
the held-out set once, on the final parameters).

Turned on by ``config.analysis.implicit`` (a method of implicit.py). A whole implicit
map costs one backward pass per target step (T of them), tens of evaluation passes;
so the metrics read the maps at ``analysis.target_steps`` symbol steps per example,
drawn uniformly (with replacement) once for the held-out set, the same for every
member and evaluation — an unbiased estimate of the mean over (example, step) pairs
with examples weighted equally. 0 reads every step, exactly. The heat-map examples
always get whole maps. Per example it adds to the evaluation's statistics (sums, so
that evaluation.ranges.range_metrics turns them into per-range means):

* ``implicit_hits`` / ``implicit_steps`` — the implicit map's argmax on the true
  source position (any model, ``none`` included; where the alignment is known);
* ``tau_sum`` / ``tau_steps`` — Kendall τ_b of explicit weights and implicit map,
  over the steps that have a true position and a defined τ;
* ``drop_explicit``, ``drop_implicit``, ``drop_random`` — the log-probability drop at
  the first drawn step when the source token ranked highest by the explicit weights,
  by the implicit map, or a random real one is zeroed (agreement.py);
* ``drop_other`` and ``drop_diagonal`` (models with weights) — two controls for the
  weights' token stronger than a random one, which is the weights' own token with
  probability 1/L (an audit as Jain & Wallace and Wiegreffe & Pinter asked for them):
  a random real token other than the weights' (NaN where the source has one token),
  and the content-blind token on the diagonal, position round((t + ½)·L/T − ½) of a
  source of L tokens at step t of a target of T (``diagonal``);
* ``drop_diagonal_other`` and ``overlap_*`` (models with weights) — how much of the
  diagonal control is the weights' own token: the diagonal drop where the diagonal
  token is not the weights' top (NaN where it is), and the share of examples where the
  diagonal, the implicit map's top or the random token is the weights' top (the
  second audit asked for the first);
* ``rollout_hits`` / ``rollout_steps`` — the Transformer's rollout (rollout.py), at
  every step (it costs one forward pass; where the alignment is known);
* ``*_any_hits`` — the same alignment counts with any source position that holds the
  emitted symbol counted (``matches``; issue 35: a repeated symbol has several right
  positions, and where the task orders symbols by value the stable order is only a
  convention);
* ``implicit_<method>[_any]_hits`` — the implicit map's alignment by the other cheap
  attribution methods too (``BESIDE``: gradient and gradient × input, one Jacobian
  at x between them), so that integrated gradients' figures are read beside theirs.

A task with no known alignment (a corpus) gets τ and the drops alone.

The Jacobians are taken ``analysis.batch_size`` examples at a time (lax.map), so
memory stays B·K·S·E floats per member whatever the chunk.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from attention_research.analysis import agreement, implicit, rollout
from attention_research.data import EOS, PAD

# The ablation's choices of the source token to zero (explicit, other and diagonal:
# models with weights).
DROPS = ("explicit", "implicit", "random")
CONTROLS = ("other", "diagonal")
# Tokens compared with the weights' top one: ``overlap_<name>`` is 1 where they agree.
OVERLAPS = ("diagonal", "implicit", "random")
# Attribution methods whose alignment is read beside the configured one's: each costs
# one Jacobian at x (integrated gradients costs analysis.steps of them).
BESIDE = ("gradient", "gradient_x_input")


def enabled(config) -> bool:
    return bool(config.analysis.implicit)


def probes(lengths, target_steps: int, seed: int = 0, target_lengths=None):
    """The fixed draws for held-out examples of source ``lengths`` [N]: (target steps
    t < ``target_lengths`` [N, max(K, 1)], one random real source position [N], one
    uniform number in [0, 1) [N] that picks the random token other than the weights'),
    uniform. ``target_lengths``: the target tokens before EOS (a symbol task's: the
    source length, its default); at least one step is drawn from. Each draw follows the
    ones before it, so a draw added later leaves the earlier ones as they were."""
    rng = np.random.default_rng(seed)
    lengths = np.maximum(np.asarray(lengths), 1)
    targets = lengths if target_lengths is None else np.maximum(np.asarray(target_lengths), 1)
    steps = rng.integers(0, targets[:, None], size=(len(lengths), max(target_steps, 1)))
    random = rng.integers(0, lengths).astype(np.int32)
    return steps.astype(np.int32), random, rng.random(len(lengths)).astype(np.float32)


def diagonal(steps, source_lengths, target_lengths):
    """The source position on the diagonal at target ``steps`` [B]: round((t + ½)·L/T
    − ½) for L source and T target tokens (before EOS), within [0, L − 1]; t itself
    where L = T (the identity). A control that reads no content. ``jnp.round``
    rounds halves to even: a tie between two positions goes to the even one."""
    lengths = jnp.maximum(source_lengths, 1)
    position = jnp.round((steps + 0.5) * lengths / jnp.maximum(target_lengths, 1) - 0.5)
    return jnp.clip(position, 0, lengths - 1).astype(jnp.int32)


def other_than(top, lengths, uniform):
    """A uniform real source position other than ``top`` [B] (``uniform`` [B] in [0,
    1)), and whether there is one (a source of one token has none)."""
    lengths = jnp.maximum(lengths, 1)
    offset = jnp.minimum(jnp.floor(uniform * (lengths - 1)), lengths - 2).astype(jnp.int32)
    return (top + 1 + offset) % lengths, lengths > 1


def _sub_batch_size(total: int, wanted: int) -> int:
    """The largest divisor of ``total`` that is at most ``wanted``."""
    return max(d for d in range(1, min(total, wanted) + 1) if total % d == 0)


def _at(values, steps):
    """values [B, T, ...] at steps [B, K] -> [B, K, ...]."""
    index = steps.reshape(steps.shape + (1,) * (values.ndim - 2))
    return jnp.take_along_axis(values, index, axis=1)


def implicit_map(model, params, batch, options, steps=None):
    """The implicit map [B, T, S] (or at ``steps`` [B, K]: [B, K, S]) as a distribution
    over the real source positions, with the embeddings and log-probability function
    it was read from: (map, x, log_probs)."""
    x, log_probs = implicit.model_log_probs(model, params, batch.source, batch.target_inputs,
                                            batch.targets)
    measured = log_probs if steps is None else (lambda x: _at(log_probs(x), steps))
    real = batch.source > 0
    attribution = implicit.attributions(measured, x, real, options.implicit, options.steps)
    return implicit.as_distribution(attribution, real), x, log_probs


def analyse(model, params, batch, weights, positions, probe, options, transformer: bool,
            matches=None):
    """One member's analysis of a chunk: stats {name: [B]}. ``weights`` the
    teacher-forced explicit weights [B, T, S] or None; ``positions`` the true source
    positions [B, T] (-1: none), or None where the alignment is unknown (a corpus:
    no alignment accuracy, and τ over every target token before EOS); ``matches`` [B,
    T, S] the source positions holding each step's symbol, or None; ``probe`` a chunk
    of ``probes``."""
    size = _sub_batch_size(batch.source.shape[0], options.batch_size)
    known = positions is not None
    if not known:  # the steps τ counts: the target's tokens before EOS
        positions = jnp.where((batch.targets != PAD) & (batch.targets != EOS), 0, -1)

    def split(x):
        return x.reshape((-1, size) + x.shape[1:])

    def one(part):
        sub, explicit, where, holds, (sampled, random, uniform) = part
        steps = sampled if options.target_steps else None
        found, x, log_probs = implicit_map(model, params, sub, options, steps)
        if steps is None:  # every step read: the ablation's step is the first drawn
            steps = jnp.arange(where.shape[1])[None, :].repeat(where.shape[0], 0)
            first = sampled[:, :1]
        else:
            first = jnp.zeros_like(sampled[:, :1])  # its index among the drawn steps
        where_read = _at(where, steps)
        stats = {}
        if known:
            stats["implicit_hits"], stats["implicit_steps"] = agreement.argmax_hits(
                found, where_read)
            holds_read = None if holds is None else _at(holds, steps)
            if holds is not None:
                stats["implicit_any_hits"], _ = agreement.argmax_hits(found, where_read,
                                                                      holds_read)
            beside = implicit.attributions_by_method(
                lambda x: _at(log_probs(x), steps), x, sub.source > 0,
                [m for m in BESIDE if m != options.implicit])
            for method, attribution in beside.items():
                other = implicit.as_distribution(attribution, sub.source > 0)
                stats[f"implicit_{method}_hits"], _ = agreement.argmax_hits(other, where_read)
                if holds is not None:
                    stats[f"implicit_{method}_any_hits"], _ = agreement.argmax_hits(
                        other, where_read, holds_read)
        ablated = sampled[:, 0]
        implicit_top = jnp.argmax(_at(found, first)[:, 0], -1)
        columns = [implicit_top, random]
        if explicit is not None:
            explicit_read = _at(explicit, steps)
            tau, defined = agreement.kendall_tau(explicit_read, found, sub.source > 0)
            counted = defined & (where_read >= 0)
            stats["tau_sum"] = jnp.sum(jnp.where(counted, tau, 0.0), axis=1)
            stats["tau_steps"] = jnp.sum(counted, axis=1)
            top = jnp.argmax(_at(explicit, sampled[:, :1])[:, 0], -1)
            other, has_other = other_than(top, sub.source_lengths, uniform)
            on_diagonal = diagonal(ablated, sub.source_lengths,
                                   jnp.sum(sub.targets != PAD, -1) - 1)
            columns = [top, *columns, other, on_diagonal]
        drops = agreement.ablation_drops(log_probs, x, ablated, jnp.stack(columns, 1))
        for k, name in enumerate(DROPS + CONTROLS if explicit is not None else DROPS[1:]):
            stats[f"drop_{name}"] = drops[:, k]
        if explicit is not None:
            stats["drop_other"] = jnp.where(has_other, stats["drop_other"], jnp.nan)
            stats["drop_diagonal_other"] = jnp.where(on_diagonal != top,
                                                     stats["drop_diagonal"], jnp.nan)
            for name, position in zip(OVERLAPS, (on_diagonal, implicit_top, random)):
                stats[f"overlap_{name}"] = (position == top).astype(jnp.float32)
        if transformer and known:
            rolled = rollout.model_rollout(model, params, sub.source, sub.target_inputs,
                                           options.rollout_residual)
            stats["rollout_hits"], stats["rollout_steps"] = agreement.argmax_hits(rolled,
                                                                                  where)
            if holds is not None:
                stats["rollout_any_hits"], _ = agreement.argmax_hits(rolled, where, holds)
        return stats

    parts = (jax.tree_util.tree_map(split, batch),
             None if weights is None else split(weights), split(positions),
             None if matches is None else split(matches), tuple(split(p) for p in probe))
    stats = jax.lax.map(one, parts)
    return jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), stats)


def heatmap_maps(model, params, batch, options, transformer: bool) -> dict:
    """Whole maps [H, T, S] of a few examples for the side-by-side figure: the implicit
    map at every step, and the Transformer's rollout and every layer's per-head weights
    ('heads/<encoder_self|decoder_self|cross>/<layer>': [H, h, rows, columns])."""
    maps = {"implicit": implicit_map(model, params, batch, options)[0]}
    if transformer:
        maps["rollout"] = rollout.model_rollout(model, params, batch.source,
                                                batch.target_inputs, options.rollout_residual)
        layers = rollout.attention_layers(model, params, batch.source, batch.target_inputs)
        maps.update({f"heads/{kind}/{layer}": weights for kind, stack in layers.items()
                     for layer, weights in enumerate(stack)})
    return maps


def side_by_side(maps: dict, sources, targets, method: str) -> list[dict]:
    """The examples heatmaps.explicit_vs_implicit draws, from one member's
    ``heatmap_maps`` (with the task's teacher-forced weights as 'forced_weights'):
    example j's source and target tokens and its explicit, implicit and rollout maps,
    each where the model has it."""
    panels = [("forced_weights", "explicit weights"), ("implicit", f"implicit ({method})"),
              ("rollout", "rollout")]
    return [{"source": source, "target": target,
             "maps": {name: maps[key][j] for key, name in panels if key in maps}}
            for j, (source, target) in enumerate(zip(sources, targets))]


def head_layers(maps: dict, example: int) -> dict:
    """{kind: [layer x [h, rows, columns]]} of one example from ``heatmap_maps``'s
    'heads/…' entries (one member's, as numpy arrays)."""
    found = {}
    for key in sorted((k for k in maps if k.startswith("heads/")),
                      key=lambda k: int(k.rsplit("/", 1)[1])):
        _, kind, _ = key.split("/")
        found.setdefault(kind, []).append(maps[key][example])
    return found
