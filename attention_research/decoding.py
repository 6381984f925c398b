"""Autoregressive decoding, compiled: greedy search that stops at EOS.

Works with any model exposing the decoding protocol:
``start_decoding(source, max_length) -> (memory, carry)`` (a Transformer allocates
its key/value cache there) and ``decode_step(carry, tokens, memory, step) ->
(carry, logits, weights)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from attention_research.tasks import BOS, EOS, PAD


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
