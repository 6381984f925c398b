"""The jitted functions: a train call (``steps_per_call`` steps), the gradient
statistics of the attention's parameters, and the helpers a task's evaluation is
built from.

Both are written for one member and vmapped over the member axis; a run of one
member goes through the same compiled path as a sweep cohort.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax

from attention_research import models
from attention_research.attention import training_signal
from attention_research.attention.reinforce import recorded
from attention_research.data import EOS, PAD, Batch
from attention_research.training.decoding import beam_search, greedy_decode
from attention_research.training import health
from attention_research.training.state import (
    BATCH_STREAM, DROPOUT_STREAM, GRADIENT_STREAM, SAMPLE_STREAM, SOFT_CHOICE_STREAM,
    TrainState, member_key)


def token_losses(logits, targets, smoothing: float = 0.0):
    """Per target token [B, T]: (fitted, nll, correct, real). ``fitted`` is the
    cross-entropy against the smoothed target (1 - ε)·onehot(y) + ε/V (Szegedy et al.
    2016, §7; Vaswani et al. 2017, §5.4; optax.smooth_labels), that is
    (1 - ε)·NLL + ε·mean_k(-log p_k); ε = 0 gives the NLL itself. ``real`` is False on
    padding."""
    real = targets != PAD
    # Correct when the target's logit is the largest: argmax's answer but for exact ties
    # (measure zero in float32). The max is the one the (log-)softmax computes anyway,
    # so XLA shares it; an argmax is a reduction of its own over the whole vocabulary
    # (without it the Multi30k RNN's step at 8,000 pieces fell from 184 to 153 ms on
    # one core: docs/speed.md).
    target_logit = jnp.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    correct = (target_logit >= jnp.max(logits, axis=-1)) & real
    if not smoothing:
        nll = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
        return nll, nll, correct, real
    # One log-softmax serves both terms; computed apart (optax's NLL, then a
    # log-softmax for the mean), XLA exponentiates the logits twice. A profile of the
    # Multi30k RNN's step (8,000 pieces) put that second pass at about 2% of the step.
    log_p = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    fitted = (1.0 - smoothing) * nll - smoothing * jnp.mean(log_p, axis=-1)
    return fitted, nll, correct, real


def token_statistics(logits, targets):
    """Per-example sums over real target tokens: (nll, correct, count)."""
    _, nll, correct, real = token_losses(logits, targets)
    return (jnp.sum(nll * real, axis=1), jnp.sum(correct, axis=1), jnp.sum(real, axis=1))


def make_loss(model, signal, label_smoothing: float = 0.0, signal_only: bool = False):
    """loss(params, batch, rngs, signal_state) -> (mean token loss (label-smoothed when
    ``label_smoothing`` > 0) + the alignment's training signal, (NLL, correct tokens,
    real tokens, new signal state)). ``signal_only``: the loss is the training signal
    alone (hard attention's REINFORCE surrogate), for measuring its gradient apart."""
    def loss_fn(params, batch, rngs, signal_state, step=0):
        (logits, _), records = model.apply({"params": params}, batch.source,
                                           batch.target_inputs, train=True, rngs=rngs,
                                           mutable=list(signal.collections))
        token_fitted, nll, correct, real = token_losses(logits, batch.targets, label_smoothing)
        tokens = jnp.sum(real)
        likelihood_loss = jnp.sum(nll * real) / tokens
        fitted = jnp.sum(token_fitted * real) / tokens
        # REINFORCE's reward stays the log-likelihood, not the smoothed loss.
        extra, signal_state = signal(records, signal_state, -nll, real, step)
        # The reported loss is the NLL alone, comparable across formulations and
        # smoothing levels.
        loss = extra if signal_only else fitted + extra
        return loss, (likelihood_loss, jnp.sum(correct), tokens, signal_state)
    return loss_fn


def step_rngs(seed, stream_step):
    """The random streams one training step's model call draws from."""
    return {"dropout": member_key(seed, DROPOUT_STREAM, stream_step),
            "sample": member_key(seed, SAMPLE_STREAM, stream_step),
            "soft_choice": member_key(seed, SOFT_CHOICE_STREAM, stream_step)}


def make_train_call(model, tx, config, placement, sample_batch=None):
    """jit(vmap(several train steps in one lax.scan)), for a stacked TrainState.

    The member axis is sharded as ``placement`` says (a ``mesh.Placement``); each
    member's batch is split over the mesh's 'data' devices. With ``sample_batch``
    (key -> Batch) every step draws its own batch on the device: ``train_call(state)``.
    Without it the batches come from the host: ``train_call(state, batches)``, a
    Batch of [M, steps_per_call, B, L] arrays placed as ``placement.batch_blocks``.
    """
    train = config.train
    # The alignment's training signal: hard: REINFORCE; else nothing.
    loss_fn = make_loss(model, training_signal(config.model.attention, train.num_steps),
                        train.label_smoothing)

    def train_step(state: TrainState, batch):
        if batch is None:
            batch = sample_batch(member_key(state.seed, BATCH_STREAM, state.step))
        batch = placement.split_batch(batch)
        rngs = step_rngs(state.seed, state.step)
        (loss, (nll, correct, tokens, signal_state)), grads = jax.value_and_grad(
            loss_fn, has_aux=True)(state.params, batch, rngs, state.signal_state, state.step)
        grad_norm = optax.tree.norm(grads)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        # Record the first step whose loss, gradient norm or new parameters are not
        # finite (training/health.py); train_call then restores the member's state.
        failure = health.failure_bits(loss, grad_norm, health.all_finite(params))
        newly_failed = (state.failed_step == 0) & (failure != 0)
        state = state.replace(
            step=state.step + 1, params=params, opt_state=opt_state, signal_state=signal_state,
            failed_step=jnp.where(newly_failed, state.step + 1, state.failed_step),
            failure=jnp.where(newly_failed, failure, state.failure))
        return state, {"loss": nll, "correct": correct, "tokens": tokens,
                       "grad_norm": grad_norm}

    def train_call(state: TrainState, batches=None):
        start = state
        state, metrics = jax.lax.scan(train_step, state, batches, length=train.steps_per_call)
        # A member that has failed keeps the finite state it began this call with (a
        # failure found inside it, or earlier). The select runs once per call,
        # outside the scan, so the steps compile and round exactly as without it.
        failed = state.failed_step != 0
        # lax.select, not jnp.where: jnp.where lowers to a call of its own for every
        # leaf, about 150 of them here, which XLA must inline (issue 39: compile time).
        keep = lambda new, old: jax.tree_util.tree_map(
            lambda a, b: jax.lax.select(jnp.broadcast_to(failed, a.shape), b, a), new, old)
        state = state.replace(params=keep(state.params, start.params),
                              opt_state=keep(state.opt_state, start.opt_state),
                              signal_state=keep(state.signal_state, start.signal_state))
        # Sums over the call; loss is a sum of per-step means (divide by steps). The
        # health fields ride along, so reading them costs no extra wait.
        sums = jax.tree_util.tree_map(jnp.sum, metrics)
        return state, {**sums, "failed_step": state.failed_step, "failure": state.failure}

    in_shardings = ((placement.members,) if sample_batch is not None
                    else (placement.members, placement.batch_blocks))
    return jax.jit(jax.vmap(train_call, spmd_axis_name=placement.member_axis),
                   in_shardings=in_shardings,
                   out_shardings=(placement.members, placement.replicated))


def attention_parameters(params):
    """The attention's parameters: every leaf with 'attention' in its path."""
    leaves = jax.tree_util.tree_leaves_with_path(params)
    return [leaf for path, leaf in leaves if "attention" in jax.tree_util.keystr(path)]


def mean_and_variance(sample, count: int, size: int):
    """Mean and unbiased variance of ``sample(i)`` ([size]) over i < count, by Welford's
    update inside a lax.scan: one sample in memory at a time, no cancellation."""
    def update(carry, index):
        n, mean, squares = carry
        value = sample(index)
        n = n + 1
        delta = value - mean
        mean = mean + delta / n
        return (n, mean, squares + delta * (value - mean)), None

    zeros = jnp.zeros((size,), jnp.float32)
    (n, mean, squares), _ = jax.lax.scan(update, (jnp.float32(0), zeros, zeros),
                                         jnp.arange(count))
    return mean, squares / jnp.maximum(n - 1, 1)


def alternative_estimator(config, vocab_size: int):
    """The model whose gradient ``make_gradient_statistics`` measures beside the run's at
    the same parameters: hard attention with ``train.gradient_alt_soft_fraction`` as its
    soft fraction; None where that field is off (negative)."""
    if config.train.gradient_alt_soft_fraction < 0:
        return None
    other = config.copy_and_resolve_references()
    other.model.attention.hard.soft_fraction = config.train.gradient_alt_soft_fraction
    return models.make_model(other, vocab_size, vocab_size)


def make_gradient_statistics(model, config, placement, sample_batch, alternative=None):
    """jit(vmap(statistics of the attention's gradient)) over members.

    ``statistics(state)`` draws ``train.gradient_batches`` fresh minibatches (and
    fresh attention samples) from their own stream, takes the gradient g of the
    training loss — REINFORCE's surrogate included, the signal state held — with
    respect to the attention's parameters on each, and returns

        grad_norm: ‖ḡ‖, the norm of the mean gradient;
        grad_var:  tr Cov(g) = Σ_j Var(g_j), the noise of one minibatch's gradient;
        grad_snr:  ‖ḡ‖² / tr Cov(g), signal to noise (Xu et al. 2015 motivate the
                   baseline and the soft steps by this variance; we measure it).

    The batches are keyed by the step, so a resumed run measures what it would have.
    The attention's parameters are every leaf with 'attention' in its path (the
    Transformer's: all its attention layers).

    ``alternative``: a model with the same parameters and another estimator (hard
    attention's ``soft_fraction``, ``train.gradient_alt_soft_fraction``); its statistics
    at the same parameters, signal state (REINFORCE's baseline) and minibatches come back
    as ``grad_norm_alt``, ``grad_var_alt`` and ``grad_snr_alt``.

    ``train.gradient_score_term``: the same statistics of REINFORCE's surrogate alone
    (the score-function term and the entropy bonus, without the likelihood's gradient),
    for each estimator: ``grad_*_score`` and ``grad_*_alt_score``.
    """
    signal_fn = training_signal(config.model.attention, config.train.num_steps)
    smoothing = config.train.label_smoothing
    estimators = {"": model, **({"_alt": alternative} if alternative is not None else {})}
    loss_fns = {suffix: make_loss(m, signal_fn, smoothing) for suffix, m in estimators.items()}
    if config.train.gradient_score_term:
        loss_fns.update({f"{suffix}_score": make_loss(m, signal_fn, smoothing, signal_only=True)
                         for suffix, m in estimators.items()})
    count = config.train.gradient_batches

    def statistics(state: TrainState):
        return {f"{name}{suffix}": value for suffix, loss_fn in loss_fns.items()
                for name, value in _statistics(state, loss_fn).items()}

    def _statistics(state: TrainState, loss_fn):
        def gradient(index):
            stream_step = state.step * count + index  # distinct from training's keys
            key = member_key(state.seed, GRADIENT_STREAM, stream_step)
            batch = sample_batch(key)
            rngs = {name: jax.random.fold_in(rng, GRADIENT_STREAM)
                    for name, rng in step_rngs(state.seed, stream_step).items()}
            grads = jax.grad(lambda p: loss_fn(p, batch, rngs, state.signal_state,
                                               state.step)[0])(
                state.params)
            return jnp.concatenate([g.ravel() for g in attention_parameters(grads)])

        size = sum(p.size for p in attention_parameters(state.params))
        if size == 0:  # `none`: no attention parameters, nothing to measure
            nan = jnp.float32(jnp.nan)
            return {"grad_norm": nan, "grad_var": nan, "grad_snr": nan}
        mean, variance = mean_and_variance(gradient, count, size)
        signal = jnp.sum(mean ** 2)
        return {"grad_norm": jnp.sqrt(signal), "grad_var": jnp.sum(variance),
                "grad_snr": signal / jnp.maximum(jnp.sum(variance), 1e-30)}

    return jax.jit(jax.vmap(statistics, spmd_axis_name=placement.member_axis),
                   in_shardings=(placement.members,), out_shardings=placement.replicated)


def over_members(fn, placement, shared: int = 1, static_argnums=()):
    """jit(vmap(fn)): ``fn(params, *shared arguments, *static arguments)`` for one
    member, run for every member of a stacked ``params`` on the same shared inputs."""
    in_axes = (0,) + (None,) * (shared + len(static_argnums))
    return jax.jit(jax.vmap(fn, in_axes=in_axes, spmd_axis_name=placement.member_axis),
                   static_argnums=static_argnums,
                   in_shardings=(placement.members,) + (placement.replicated,) * shared,
                   out_shardings=placement.replicated)


def teacher_forced(model, params, batch: Batch, per_position: bool = False):
    """Per-example nll, correct and count under teacher forcing, and the weights; with a
    pointer-generator also ``copied``, the sum of 1 − p_gen over real target tokens, and
    the same sum apart over the tokens that some source position holds (``copyable``)
    and over the others but EOS (``novel``: only generation writes them), with their
    counts (issue 35: a share of copying means something only beside what was
    copyable). ``per_position`` adds the per-token ``correct_at`` and ``real_at`` [B, T]."""
    (logits, weights), records = model.apply({"params": params}, batch.source,
                                             batch.target_inputs, mutable=["pointer"])
    nll, correct, count = token_statistics(logits, batch.targets)
    stats = {"nll": nll, "correct": correct, "count": count}
    if per_position:  # [B, T]: each target token right (teacher forced), and real
        _, _, stats["correct_at"], stats["real_at"] = token_losses(logits, batch.targets)
    if "pointer" in records:
        share = recorded(records, "copy_probability")  # [B, T] 1 − p_gen
        stats["copied"] = jnp.sum(share * (batch.targets != PAD), axis=1)
        symbol = (batch.targets != PAD) & (batch.targets != EOS)
        held = jnp.any(batch.targets[:, :, None] == batch.source[:, None, :], axis=-1)
        for name, tokens in (("copyable", symbol & held), ("novel", symbol & ~held)):
            stats[f"copied_{name}"] = jnp.sum(share * tokens, axis=1)
            stats[name] = jnp.sum(tokens, axis=1)
    return stats, weights


def make_teacher_forced(model, placement):
    """jit(vmap(per-example nll, correct and count)) over members, for a shared batch."""
    return over_members(lambda params, batch: teacher_forced(model, params, batch)[0],
                        placement)


def make_translate(model, placement, beam_size: int, alpha: float, beta: float = 0.0):
    """jit(vmap(decode)) over members: greedy (beam_size 1) or beam search with length
    penalty ``alpha`` and coverage penalty ``beta``.

    ``translate(params, source, max_length, alphas=None)`` -> tokens [M, B, T], weights
    [M, B, T, S]. ``alphas`` [M] gives each member its own length penalty (a traced
    value: a search over it compiles once); None is ``alpha`` for every member.
    """
    def member_translate(params, source, member_alpha, max_length):
        if beam_size == 1:
            return greedy_decode(model, params, source, max_length)
        tokens, weights, _ = beam_search(model, params, source, max_length, beam_size,
                                         member_alpha, beta)
        return tokens, weights

    decode = jax.jit(jax.vmap(member_translate, in_axes=(0, None, 0, None),
                              spmd_axis_name=placement.member_axis),
                     static_argnums=(3,),
                     in_shardings=(placement.members, placement.replicated,
                                   placement.members),
                     out_shardings=placement.replicated)

    def translate(params, source, max_length, alphas=None):
        members = jax.tree_util.tree_leaves(params)[0].shape[0]
        alphas = np.asarray(np.full(members, alpha) if alphas is None else alphas, np.float32)
        # A global array (every process holds the whole [M]), as multi-host jit needs.
        alphas = jax.make_array_from_callback(alphas.shape, placement.members,
                                              lambda index: alphas[index])
        return decode(params, source, alphas, max_length)

    return translate
