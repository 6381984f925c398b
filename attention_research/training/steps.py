"""The jitted functions: a train call (``steps_per_call`` steps) and evaluation.

Both are written for one member and vmapped over the member axis; a run of one
member goes through the same compiled path as a sweep cohort.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from attention_research import tasks
from attention_research.attention import entropy
from attention_research.decoding import beam_search, greedy_decode
from attention_research.training import reinforce
from attention_research.training.state import (
    BATCH_STREAM, DROPOUT_STREAM, SAMPLE_STREAM, TrainState, member_key)


def token_statistics(logits, targets):
    """Per-example sums over real target tokens: (nll, correct, count)."""
    mask = targets != tasks.PAD
    nll = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
    correct = (jnp.argmax(logits, -1) == targets) & mask
    return (jnp.sum(nll * mask, axis=1), jnp.sum(correct, axis=1), jnp.sum(mask, axis=1))


def make_train_call(model, tx, config, placement, host_batches: bool = False):
    """jit(vmap(several train steps in one lax.scan)), for a stacked TrainState.

    The member axis is sharded as ``placement`` says (a ``mesh.Placement``); each
    member's batch is split over the mesh's 'data' devices. Synthetic tasks sample
    their batches inside the step (``train_call(state)``); with ``host_batches`` the
    batches come from the input pipeline (``train_call(state, batches)``, a Batch of
    [M, steps_per_call, B, L] arrays, see ``placement.host_batches``).
    """
    task, train = config.task, config.train
    hard = config.model.attention.hard if config.model.attention.alignment == "hard" else None

    def loss_fn(params, batch, rngs, baseline):
        """Mean token NLL (+ the REINFORCE surrogate for hard attention)."""
        mutable = ["reinforce"] if hard else False
        outputs = model.apply({"params": params}, batch.source, batch.target_inputs,
                              train=True, rngs=rngs, mutable=mutable)
        (logits, _), records = outputs if hard else (outputs, None)
        mask = batch.targets != tasks.PAD
        nll = optax.softmax_cross_entropy_with_integer_labels(logits, batch.targets)
        tokens = jnp.sum(mask)
        loss = jnp.sum(nll * mask) / tokens
        correct = jnp.sum((jnp.argmax(logits, -1) == batch.targets) & mask)
        if hard:
            rewards = -jax.lax.stop_gradient(nll)  # log p(y_t | sampled context)
            loss += reinforce.surrogate_loss(
                reinforce.recorded(records, "log_prob"), reinforce.recorded(records, "entropy"),
                rewards, baseline, mask, hard.reinforce_weight, hard.entropy_weight)
            baseline = reinforce.update_baseline(baseline, rewards, mask, hard.baseline_decay)
        # The reported loss is the NLL alone, comparable across formulations.
        return loss, (jnp.sum(nll * mask) / tokens, correct, tokens, baseline)

    def train_step(state: TrainState, batch):
        if batch is None:
            batch = tasks.sample_batch(member_key(state.seed, BATCH_STREAM, state.step),
                                       task.name, train.batch_size, task.num_symbols,
                                       task.train_min_length, task.train_max_length)
        batch = placement.split_batch(batch)
        rngs = {"dropout": member_key(state.seed, DROPOUT_STREAM, state.step),
                "sample": member_key(state.seed, SAMPLE_STREAM, state.step)}
        (_, (nll, correct, tokens, baseline)), grads = jax.value_and_grad(
            loss_fn, has_aux=True)(state.params, batch, rngs, state.reward_baseline)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        state = state.replace(step=state.step + 1, params=optax.apply_updates(state.params, updates),
                              opt_state=opt_state, reward_baseline=baseline)
        return state, {"loss": nll, "correct": correct, "tokens": tokens}

    def train_call(state: TrainState, batches=None):
        state, metrics = jax.lax.scan(train_step, state, batches, length=train.steps_per_call)
        # Sums over the call; loss is a sum of per-step means (divide by steps).
        return state, jax.tree_util.tree_map(jnp.sum, metrics)

    in_shardings = (placement.members, placement.host_batches) if host_batches else (
        placement.members,)
    return jax.jit(jax.vmap(train_call, spmd_axis_name=placement.member_axis),
                   in_shardings=in_shardings,
                   out_shardings=(placement.members, placement.replicated))


def _over_members(fn, placement, shared: int = 1, static_argnums=()):
    """jit(vmap(fn)): ``fn(params, *shared arguments, *static arguments)`` for one
    member, run for every member of a stacked ``params`` on the same shared inputs."""
    in_axes = (0,) + (None,) * (shared + len(static_argnums))
    return jax.jit(jax.vmap(fn, in_axes=in_axes, spmd_axis_name=placement.member_axis),
                   static_argnums=static_argnums,
                   in_shardings=(placement.members,) + (placement.replicated,) * shared,
                   out_shardings=placement.replicated)


def _teacher_forced(model, params, batch: tasks.Batch):
    """Per-example nll, correct and count under teacher forcing, and the weights."""
    logits, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    nll, correct, count = token_statistics(logits, batch.targets)
    return {"nll": nll, "correct": correct, "count": count}, weights


def make_evaluate(model, task_name: str, heatmap_indices, placement):
    """jit(vmap(eval)) over members, on one fixed held-out batch shared by all.

    Returns per-example statistics [M, N] (teacher-forced nll/correct/count and
    alignment hits; greedy exact match) and, for ``heatmap_indices``, the greedy
    tokens and attention weights to draw.
    """
    heatmap_indices = jnp.asarray(heatmap_indices, jnp.int32)

    def evaluate_member(params, batch: tasks.Batch):
        stats, weights = _teacher_forced(model, params, batch)
        if weights is not None:
            position = tasks.alignment_targets(task_name, batch.source_lengths,
                                               batch.targets.shape[1])
            hits = (jnp.argmax(weights, -1) == position) & (position >= 0)
            stats["align_hits"] = jnp.sum(hits, axis=1)
            stats["align_steps"] = jnp.sum(position >= 0, axis=1)
            # How spread attention is: entropy of each real target step's weights
            # (multi-head: of the head-averaged weights).
            stats["entropy"] = jnp.sum(entropy(weights) * (batch.targets != tasks.PAD), axis=1)
        tokens, greedy_weights = greedy_decode(model, params, batch.source,
                                               batch.targets.shape[1])
        real = batch.targets != tasks.PAD
        stats["exact"] = jnp.all((tokens == batch.targets) | ~real, axis=1)
        examples = {"tokens": tokens[heatmap_indices],
                    "weights": greedy_weights[heatmap_indices]}
        return stats, examples

    return _over_members(evaluate_member, placement)


def make_teacher_forced(model, placement):
    """jit(vmap(per-example nll, correct and count)) over members, for a shared batch."""
    return _over_members(lambda params, batch: _teacher_forced(model, params, batch)[0],
                         placement)


def make_translate(model, placement, beam_size: int, alpha: float):
    """jit(vmap(decode)) over members: greedy (beam_size 1) or beam search.

    ``translate(params, source, max_length)`` -> tokens [M, B, T], weights [M, B, T, S].
    """
    def member_translate(params, source, max_length):
        if beam_size == 1:
            return greedy_decode(model, params, source, max_length)
        tokens, weights, _ = beam_search(model, params, source, max_length, beam_size, alpha)
        return tokens, weights

    return _over_members(member_translate, placement, static_argnums=(2,))
