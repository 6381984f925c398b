"""Autoregressive decoding, compiled: greedy search and beam search, both stopping at EOS.

Works with any model following the decoding protocol (``models.EncoderDecoder``):
``start_decoding(source, max_length) -> (memory, carry)`` (a Transformer allocates
its key/value cache there) and ``decode_step(carry, tokens, memory, step) ->
(carry, logits, weights)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from attention_research.data import BOS, EOS, PAD


def greedy_decode(model, params, source, max_length: int):
    """Greedy decoding of a batch; a ``lax.while_loop`` ends once every row emitted EOS.

    Returns tokens [B, max_length] (PAD after EOS) and the attention weights used
    at each step [B, max_length, S] (zeros after EOS; all zeros without attention).
    """
    variables = {"params": params}
    memory, carry = model.apply(variables, source, max_length, method="start_decoding")
    batch, source_length = source.shape

    def not_finished(loop):
        step, _, _, done, _, _ = loop
        return (step < max_length) & ~jnp.all(done)

    def advance(loop):
        step, carry, previous, done, tokens, weights = loop
        carry, logits, step_weights = model.apply(variables, carry, previous, memory, step,
                                                  method="decode_step")
        # PAD and BOS are never outputs: an untrained model must not emit them either.
        logits = logits.at[:, jnp.array([PAD, BOS])].set(-jnp.inf)
        token = jnp.where(done, PAD, jnp.argmax(logits, axis=-1).astype(jnp.int32))
        tokens = tokens.at[:, step].set(token)
        if step_weights is not None:
            weights = weights.at[:, step].set(jnp.where(done[:, None], 0.0, step_weights))
        return step + 1, carry, token, done | (token == EOS), tokens, weights

    start = (jnp.zeros((), jnp.int32), carry, jnp.full((batch,), BOS, jnp.int32),
             jnp.zeros((batch,), bool), jnp.full((batch, max_length), PAD, jnp.int32),
             jnp.zeros((batch, max_length, source_length), jnp.float32))
    _, _, _, _, tokens, weights = jax.lax.while_loop(not_finished, advance, start)
    return tokens, weights


def length_penalty(length, alpha: float):
    """GNMT's length penalty lp(Y) = ((5 + |Y|) / 6)^α (Wu et al. 2016, eq. 14)."""
    return ((5.0 + length) / 6.0) ** alpha


def coverage_penalty(weights, source_mask, beta: float):
    """GNMT's coverage penalty cp(X; Y) = β Σ_s log(min(Σ_t α_{t,s}, 1)) (Wu et al. 2016,
    Eq. 14) over the real source positions: 0 when every source position received a
    total weight of at least 1, more negative the more of the source was left out.
    ``weights`` [..., T, S] (zero on steps not taken), ``source_mask`` [B, S] broadcast
    over the middle axes. A position that received nothing would give log 0 = −∞ and
    leave no hypothesis to rank (sparse normalizers give exact zeros), so each total
    is floored at 1e-6 (a penalty of β · 13.8 per such position)."""
    total = jnp.minimum(jnp.sum(weights, axis=-2), 1.0)
    mask = source_mask.reshape(source_mask.shape[:1] + (1,) * (total.ndim - 2)
                               + source_mask.shape[1:])
    return beta * jnp.sum(jnp.where(mask, jnp.log(jnp.maximum(total, 1e-6)), 0.0), axis=-1)


def _regroup(tree, rows):
    """Reorder every leaf's rows: ``rows`` [B·K] says which old row each new row copies.

    A leaf's leading axis is B·K, or B·K·h for per-head caches whose rows are
    ordered (row, head) — MultiHeadAttention folds heads row-major — so viewing
    it as [B·K, h, …] and gathering along the first axis serves both.
    """
    def gather(x):
        if not hasattr(x, "shape") or x.ndim == 0:
            return x
        grouped = x.reshape((rows.shape[0], -1) + x.shape[1:])
        return grouped[rows].reshape(x.shape)
    return jax.tree_util.tree_map(gather, tree)


def beam_search(model, params, source, max_length: int, beam_size: int = 4,
                alpha: float = 0.6, beta: float = 0.0):
    """Beam search with GNMT's length penalty (α) and coverage penalty (β, Wu et al.
    2016, Eq. 14: s(Y, X) = log P(Y|X) / lp(Y) + cp(X; Y)), compiled as one
    ``lax.while_loop``.

    Keeps, per source, ``beam_size`` alive hypotheses and the ``beam_size`` best
    finished ones (as in Flax's WMT example and t5x). Each step extends the alive
    ones, takes the 2K best candidates; those ending in EOS (or reaching
    ``max_length``) join the finished pool scored log P / lp(|Y|) + cp, the others stay
    alive. A finished hypothesis never stops the others: the loop ends only when no
    alive hypothesis of any source could still beat that source's worst finished
    one, or at ``max_length``.

    Returns tokens [B, max_length] (PAD after EOS), the attention weights of each
    output step [B, max_length, S], and the normalised scores [B].
    """
    tokens, weights, scores = beam_hypotheses(model, params, source, max_length, beam_size,
                                              alpha, beta)
    return tokens[:, 0], weights[:, 0], scores[:, 0]


def beam_hypotheses(model, params, source, max_length: int, beam_size: int = 4,
                    alpha: float = 0.6, beta: float = 0.0):
    """``beam_search``'s ``beam_size`` finished hypotheses of each source, best first (an
    n-best list): tokens [B, K, max_length], weights [B, K, max_length, S], scores [B, K]
    (a slot no hypothesis reached scores about -1e9)."""
    batch, source_length = source.shape
    k = beam_size
    variables = {"params": params}
    # Encoding each source K times keeps every model's memory layout as it is.
    memory, carry = model.apply(variables, jnp.repeat(source, k, axis=0), max_length,
                                method="start_decoding")
    neg_inf = jnp.float32(-1e9)
    alive_logp = jnp.tile(jnp.array([0.0] + [neg_inf] * (k - 1), jnp.float32), (batch, 1))
    empty_tokens = jnp.full((batch, k, max_length), PAD, jnp.int32)
    empty_weights = jnp.zeros((batch, k, max_length, source_length), jnp.float32)
    best_bound = length_penalty(jnp.float32(max_length), alpha)

    def not_finished(loop):
        step, _, alive_logp, _, _, finished_scores, _, _ = loop
        # Log-probabilities only fall as a hypothesis grows and lp(|Y|) ≤ lp(max_length)
        # (α ≥ 0), and cp ≤ 0, so an alive hypothesis can reach at most
        # logp / lp(max_length).
        could_improve = jnp.max(alive_logp, axis=1) / best_bound > jnp.min(finished_scores, axis=1)
        return (step < max_length) & jnp.any(could_improve)

    def advance(loop):
        (step, carry, alive_logp, alive_tokens, alive_weights,
         finished_scores, finished_tokens, finished_weights) = loop
        previous = jnp.where(step == 0, BOS, alive_tokens[:, :, jnp.maximum(step - 1, 0)])
        carry, logits, step_weights = model.apply(variables, carry, previous.reshape(-1), memory,
                                                  step, method="decode_step")
        logits = logits.at[:, jnp.array([PAD, BOS])].set(-jnp.inf)
        vocab = logits.shape[-1]
        log_probs = jax.nn.log_softmax(logits).reshape(batch, k, vocab)
        candidates = (alive_logp[:, :, None] + log_probs).reshape(batch, k * vocab)
        top_logp, top_index = jax.lax.top_k(candidates, min(2 * k, k * vocab))
        parent, token = top_index // vocab, (top_index % vocab).astype(jnp.int32)
        ends = (token == EOS) | (step == max_length - 1)

        def extend(sequences, values):  # [B, K, …] parents + this step's values
            chosen = jnp.take_along_axis(
                sequences, parent.reshape(parent.shape + (1,) * (sequences.ndim - 2)), axis=1)
            return chosen.at[:, :, step].set(values)

        if step_weights is None:
            weights_now = jnp.zeros((batch, k, source_length), jnp.float32)
        else:
            weights_now = step_weights.reshape(batch, k, source_length)
        parent_weights = jnp.take_along_axis(weights_now, parent[:, :, None], axis=1)
        candidate_tokens = extend(alive_tokens, token)
        candidate_weights = extend(alive_weights, parent_weights)

        # Finished pool: the K best of the old finished and the candidates that end now.
        scores = top_logp / length_penalty(step + 1.0, alpha)
        if beta:  # the attention of each candidate's whole output
            scores = scores + coverage_penalty(candidate_weights, source > 0, beta)
        new_scores = jnp.where(ends, scores, neg_inf)
        pool_scores = jnp.concatenate([finished_scores, new_scores], axis=1)
        finished_scores, keep = jax.lax.top_k(pool_scores, k)
        pick = lambda old, new: jnp.take_along_axis(
            jnp.concatenate([old, new], axis=1),
            keep.reshape(keep.shape + (1,) * (old.ndim - 2)), axis=1)
        finished_tokens = pick(finished_tokens, candidate_tokens)
        finished_weights = pick(finished_weights, candidate_weights)

        # Alive: the K best candidates that did not end.
        alive_logp, survivors = jax.lax.top_k(jnp.where(ends, neg_inf, top_logp), k)
        take = lambda x: jnp.take_along_axis(
            x, survivors.reshape(survivors.shape + (1,) * (x.ndim - 2)), axis=1)
        alive_tokens, alive_weights = take(candidate_tokens), take(candidate_weights)
        rows = (jnp.arange(batch)[:, None] * k + take(parent)).reshape(-1)
        carry = _regroup(carry, rows)
        return (step + 1, carry, alive_logp, alive_tokens, alive_weights,
                finished_scores, finished_tokens, finished_weights)

    start = (jnp.zeros((), jnp.int32), carry, alive_logp, empty_tokens, empty_weights,
             jnp.full((batch, k), neg_inf), empty_tokens, empty_weights)
    *_, finished_scores, finished_tokens, finished_weights = jax.lax.while_loop(
        not_finished, advance, start)
    return finished_tokens, finished_weights, finished_scores
