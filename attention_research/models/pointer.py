"""The pointer-generator output (See, Liu & Manning 2017, Eq. 8-9; the pointer network
of Vinyals, Fortunato & Jaitly 2015 is its p_gen = 0 end).

At every output step a gate decides between generating a token from the vocabulary
and copying one from the source by pointing at it with the attention weights:

    p_gen = σ(w_cᵀ c_t + w_sᵀ s_t + w_xᵀ x_t + b_ptr)                       (Eq. 8)
    P(w) = p_gen P_vocab(w) + (1 − p_gen) Σ_{i: w_i = w} a_i^t              (Eq. 9)

with c_t the context, s_t the decoder state, x_t the decoder input and a^t the
attention weights. Our vocabulary is joint (one SentencePiece model for both
languages; the symbol tasks share their symbols), so a source token's id is its id
in the output vocabulary and the copy distribution is a scatter-add of a^t.

The model hands training, evaluation and decoding log P(w) in place of logits: the
log-softmax of log P is log P itself when the attention weights sum to 1, and the
renormalised mixture when they sum to less (``local_p``, ``monotonic``). It is
computed as logaddexp(log σ(g) + log P_vocab, log σ(−g) + log P_copy), finite for
every word since P_vocab > 0, so label smoothing and the decoders' masking see
ordinary numbers. 1 − p_gen, how much the model copies, is recorded in the ``pointer``
collection; evaluation reports its mean over target tokens (``eval/copy_rate``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def copy_distribution(weights, source, vocab_size: int):
    """Σ_{i: w_i = w} a_i: weights [B, T, S] (or [B, S]) over source tokens [B, S]
    -> [B, T, V] (or [B, V])."""
    squeeze = weights.ndim == 2
    if squeeze:
        weights = weights[:, None, :]
    batch, steps, _ = weights.shape
    rows = jnp.arange(batch)[:, None, None]
    cols = jnp.arange(steps)[None, :, None]
    index = jnp.broadcast_to(source[:, None, :], weights.shape)
    copied = jnp.zeros((batch, steps, vocab_size), weights.dtype).at[rows, cols, index].add(
        weights)
    return copied[:, 0] if squeeze else copied


def mix(logits, weights, gate, source):
    """See et al.'s Eq. 9 in log space: vocabulary logits [..., V], attention weights
    [..., S], the gate's pre-sigmoid value g [...] and the source tokens [B, S] ->
    log P(w) [..., V]."""
    copied = copy_distribution(weights, source, logits.shape[-1])
    positive = copied > 0
    # log of the copy distribution, −inf where nothing is copied; the inner where keeps
    # log's gradient finite there (it is multiplied by 0, never by inf).
    log_copied = jnp.where(positive, jnp.log(jnp.where(positive, copied, 1.0)), -jnp.inf)
    generate = jax.nn.log_sigmoid(gate)[..., None] + jax.nn.log_softmax(logits, axis=-1)
    return jnp.logaddexp(generate, jax.nn.log_sigmoid(-gate)[..., None] + log_copied)
