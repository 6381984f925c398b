"""Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in
Transformers", §3), and the Transformer's per-layer, per-head weights it reads.

A layer's output at position i mixes its input positions by the attention weights
A_l, and the residual connection carries position i itself: Abnar & Zuidema model a
layer as Ã_l = 0.5·A_l + 0.5·I (head-averaged A_l; rows still sum to 1) and roll the
layers out by multiplying, Ã_L ··· Ã_1, so that row i is how much of each input token
reaches position i after L layers. ``residual`` is their 0.5; 0 gives the plain
product of the weights.

They define rollout for one self-attention stack. For the encoder-decoder we apply
the same rule to every sub-layer of the decoder, tracking a target step's mix of the
target prefix and of the source tokens (``rollout_to_source``):

* decoder self-attention mixes target positions: both parts go through Ã;
* cross-attention C_l reads the encoder's outputs, each of which is the source mix of
  the encoder's rollout R: the source part becomes residual·(source part) +
  (1 − residual)·C_l R, and the target part keeps residual of itself.

The source part, normalised over the source, is the rolled-out target × source map.
With one decoder layer and the encoder left out (``encoder_self=[]``) it is that
layer's cross-attention C_1 exactly, whatever ``residual`` is.
"""

from __future__ import annotations

import jax.numpy as jnp


def _with_residual(weights, residual: float):
    eye = jnp.eye(weights.shape[-1], dtype=weights.dtype)
    return residual * eye + (1.0 - residual) * weights


def rollout(layers, residual: float = 0.5):
    """Rolled-out self-attention [B, N, N] of a stack whose head-averaged weights are
    ``layers`` (first layer first, each [B, N, N]): Ã_L ··· Ã_1. No layers: I."""
    if not layers:
        raise ValueError("rollout needs at least one layer of weights")
    rolled = _with_residual(layers[0], residual)
    for weights in layers[1:]:
        rolled = jnp.einsum("bij,bjk->bik", _with_residual(weights, residual), rolled)
    return rolled


def rollout_to_source(encoder_self, decoder_self, cross, residual: float = 0.5):
    """Rolled-out target × source map [B, T, S] (rows sum to 1 over the source) from the
    head-averaged weights of every encoder self-attention ([B, S, S] each), decoder
    self-attention ([B, T, T]) and cross-attention ([B, T, S]), first layer first. An
    empty ``encoder_self`` treats the encoder's outputs as the source tokens."""
    if len(decoder_self) != len(cross) or not cross:
        raise ValueError(f"need one decoder self-attention per cross-attention, got "
                         f"{len(decoder_self)} and {len(cross)}")
    batch, steps, length = cross[0].shape
    source_mix = (rollout(encoder_self, residual) if encoder_self
                  else jnp.broadcast_to(jnp.eye(length, dtype=cross[0].dtype),
                                        (batch, length, length)))
    to_target = jnp.broadcast_to(jnp.eye(steps, dtype=cross[0].dtype), (batch, steps, steps))
    to_source = jnp.zeros((batch, steps, length), cross[0].dtype)
    for self_weights, cross_weights in zip(decoder_self, cross):
        mix = _with_residual(self_weights, residual)
        to_target = jnp.einsum("btu,bux->btx", mix, to_target)
        to_source = jnp.einsum("btu,bus->bts", mix, to_source)
        read = jnp.einsum("bts,bsx->btx", cross_weights, source_mix)
        to_source = residual * to_source + (1.0 - residual) * read
        to_target = residual * to_target
    total = to_source.sum(-1, keepdims=True)
    return jnp.where(total > 0, to_source / jnp.where(total > 0, total, 1.0), 0.0)


def attention_layers(model, params, source, target_inputs) -> dict:
    """Every attention weight a Transformer computes under teacher forcing, per head:
    {'encoder_self': [L x [B, h, S, S]], 'decoder_self': [L x [B, h, T, T]],
    'cross': [L x [B, h, T, S]]}, first layer first (the sown records of
    attention.py, whose heads are folded into the batch as b·h + head)."""
    _, records = model.apply({"params": params}, source, target_inputs,
                             mutable=["intermediates"])
    found = records.get("intermediates", {})
    batch, heads = source.shape[0], model.num_heads

    def weights(layer: str, module: str):
        if module not in found.get(layer, {}):
            raise ValueError(f"{layer}/{module} recorded no attention weights: the fused "
                             "path (model.attention.fused) computes none, so rollout and "
                             "per-head maps need the unfused path")
        (folded,) = found[layer][module]["attention"]["attention_weights"]
        return folded.reshape((batch, heads) + folded.shape[1:])

    layers = range(model.num_layers)
    return {"encoder_self": [weights(f"encoder_{i}", "self_attention") for i in layers],
            "decoder_self": [weights(f"decoder_{i}", "self_attention") for i in layers],
            "cross": [weights(f"decoder_{i}", "cross_attention") for i in layers]}


def model_rollout(model, params, source, target_inputs, residual: float = 0.5):
    """A Transformer's rolled-out target × source map [B, T, S] under teacher forcing,
    through its encoder to the source tokens."""
    layers = attention_layers(model, params, source, target_inputs)
    mean = lambda stack: [w.mean(axis=1) for w in stack]
    return rollout_to_source(mean(layers["encoder_self"]), mean(layers["decoder_self"]),
                             mean(layers["cross"]), residual)
