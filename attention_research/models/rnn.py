"""The RNN encoder-decoder every attention formulation plugs into.

Encoder: LSTM or GRU, uni- or bidirectional, ``num_layers`` deep. A bidirectional
encoder splits ``hidden_size`` between its directions (as OpenNMT-py's ``brnn``
does), so encoder states and decoder states always have the same size and
``dot`` attention needs no projection.

Decoder styles (only the attention varies between formulations):

* ``bahdanau`` — Bahdanau et al. 2015, App. A.2.2: attend with the previous
  state s_{i-1}; the context c_i joins y_{i-1} in the RNN input; the output is a
  deep maxout layer t_i = max-pool₂(U_o s_{i-1} + V_o E y_{i-1} + C_o c_i).
* ``luong`` — Luong et al. 2015, §3 and §3.3: attend with the current state h_t;
  attentional state h̃_t = tanh(W_c[c_t; h_t]) (Eq. 5) is both the output and,
  by input feeding, part of the next RNN input.

With ``pointer_generator`` the output distribution mixes generating from the
vocabulary with copying source tokens by their attention weights (See et al. 2017,
``pointer.py``).

The decoder's carry also holds its attention history (``attention.History``: the
previous step's weights and their running sum), which location-aware and coverage
scores read and beam search reorders with the rest of the carry.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import jax.numpy as jnp
import flax.linen as nn

from attention_research.attention import (
    ALIGNMENTS, NO_ATTENTION, History, Memory, canonical_score, make_attention)
from attention_research.errors import choice, require
from attention_research.models import pointer
from attention_research.models.embeddings import PERTURBATION, make_embeddings, token_dropout
from attention_research.models.registry import attention_kwargs, register_family

CELLS = ("lstm", "gru")
DECODER_STYLES = ("bahdanau", "luong")


def make_cell(kind: str, features: int, name: str):
    if kind == "lstm":
        return nn.OptimizedLSTMCell(features, name=name)
    if kind == "gru":
        return nn.GRUCell(features, name=name)
    raise ValueError(f"unknown cell {kind!r}; valid choices: {', '.join(CELLS)}")


def zero_carry(kind: str, batch: int, features: int):
    zeros = jnp.zeros((batch, features))
    return (zeros, zeros) if kind == "lstm" else zeros


def carry_output(kind: str, carry):
    """The hidden state h of a cell's carry (LSTM carries (c, h))."""
    return carry[1] if kind == "lstm" else carry


def _keep_where(valid, new, old):
    """Advance a carry only on real tokens, so padding never changes the state."""
    return jax.tree_util.tree_map(lambda n, o: jnp.where(valid[:, None], n, o), new, old)


def reverse_within_length(x, lengths):
    """Reverse each sequence along axis 1 within its own length; padding stays put.

    Used twice for the backward direction: it is its own inverse.
    """
    positions = jnp.arange(x.shape[1])[None, :]
    index = jnp.where(positions < lengths[:, None], lengths[:, None] - 1 - positions, positions)
    index = index.reshape(index.shape + (1,) * (x.ndim - 2))
    return jnp.take_along_axis(x, index, axis=1)


class _EncoderLayerStep(nn.Module):
    """One time step of one encoder layer, both directions side by side."""

    cell: str
    features: int
    bidirectional: bool

    @nn.compact
    def __call__(self, carry, inputs):
        x_forward, x_backward, valid = inputs
        new_forward, h_forward = make_cell(self.cell, self.features, "forward")(carry[0], x_forward)
        carries = [_keep_where(valid, new_forward, carry[0])]
        outputs = [h_forward]
        if self.bidirectional:
            new_backward, h_backward = make_cell(self.cell, self.features, "backward")(
                carry[1], x_backward)
            carries.append(_keep_where(valid, new_backward, carry[1]))
            outputs.append(h_backward)
        return tuple(carries), tuple(outputs)


class Encoder(nn.Module):
    """Stacked (bi)directional RNN over embedded source tokens."""

    cell: str
    hidden_size: int
    num_layers: int
    bidirectional: bool

    @nn.compact
    def __call__(self, x, mask):
        """x [B, S, E], mask [B, S] -> states [B, S, H], per-layer final carries."""
        directions = 2 if self.bidirectional else 1
        features = self.hidden_size // directions
        lengths = mask.sum(axis=1)
        batch = x.shape[0]
        final_carries = []
        for layer in range(self.num_layers):
            scan = nn.scan(_EncoderLayerStep, variable_broadcast="params",
                           split_rngs={"params": False}, in_axes=1, out_axes=1)
            step = scan(self.cell, features, self.bidirectional, name=f"layer_{layer}")
            init = tuple(zero_carry(self.cell, batch, features) for _ in range(directions))
            backward = reverse_within_length(x, lengths) if self.bidirectional else x
            carries, outputs = step(init, (x, backward, mask))
            if self.bidirectional:
                outputs = (outputs[0], reverse_within_length(outputs[1], lengths))
            x = jnp.concatenate(outputs, axis=-1) * mask[..., None]
            # Join the directions' final carries into one decoder-sized carry.
            final_carries.append(jax.tree_util.tree_map(
                lambda *parts: jnp.concatenate(parts, axis=-1), *carries))
        return x, tuple(final_carries)


class DecoderStep(nn.Module):
    """One decoder time step: (carry, y_{t-1} embedded) -> (carry, (output features,
    weights, the pointer-generator's gate before its sigmoid or None))."""

    cell: str
    hidden_size: int
    num_layers: int
    style: str
    attention: dict  # keyword arguments of make_attention
    pointer_generator: bool = False

    def setup(self):
        self.cells = [make_cell(self.cell, self.hidden_size, f"cell_{layer}")
                      for layer in range(self.num_layers)]
        self.attend = make_attention(**self.attention, query_dim=self.hidden_size,
                                     key_dim=self.hidden_size, name="attention")
        if self.style == "luong":
            self.w_c = nn.Dense(self.hidden_size, use_bias=False, name="W_c")
        elif self.style == "bahdanau":
            self.deep_output = nn.Dense(2 * self.hidden_size, name="maxout")
        else:
            raise ValueError(f"unknown decoder style {self.style!r}; "
                             f"valid choices: {', '.join(DECODER_STYLES)}")
        if self.pointer_generator:  # See et al. Eq. 8: w_cᵀ c_t + w_sᵀ s_t + w_xᵀ x_t + b_ptr
            self.gate = nn.Dense(1, name="p_gen")

    def prepare(self, values, mask, summary) -> Memory:
        return self.attend.prepare(values, mask, summary)

    def _rnn(self, layer_carries, x):
        new_carries = []
        for cell, carry in zip(self.cells, layer_carries):
            carry, x = cell(carry, x)
            new_carries.append(carry)
        return tuple(new_carries), x

    def __call__(self, carry, embedded, memory: Memory, step):
        layer_carries, feed, history = carry
        position = step[:, None]  # this query's target position, for local_m
        if self.style == "bahdanau":
            previous = carry_output(self.cell, layer_carries[-1])  # s_{i-1}
            context, weights = self.attend(previous[:, None, :], memory, position,
                                           history=history)
            context = context[:, 0]
            layer_carries, _ = self._rnn(layer_carries, jnp.concatenate([embedded, context], -1))
            pre = self.deep_output(jnp.concatenate([previous, embedded, context], -1))
            features = pre.reshape(pre.shape[:-1] + (self.hidden_size, 2)).max(-1)  # maxout
            state = carry_output(self.cell, layer_carries[-1])  # s_i
        else:
            layer_carries, state = self._rnn(layer_carries,
                                             jnp.concatenate([embedded, feed], -1))
            context, weights = self.attend(state[:, None, :], memory, position,
                                           history=history)
            context = context[:, 0]
            features = jnp.tanh(self.w_c(jnp.concatenate([context, state], -1)))
            feed = features  # input feeding (Luong §3.3)
        gate = None
        if self.pointer_generator:
            gate = self.gate(jnp.concatenate([context, state, embedded], -1))[..., 0]
        weights = None if weights is None else weights[:, 0]
        return (layer_carries, feed, history.advance(weights)), (features, weights, gate)


def _scan_decoder(step_module, carry, inputs, memory):
    embedded, steps = inputs
    return step_module(carry, embedded, memory, steps)


class Seq2Seq(nn.Module):
    """Encoder-decoder with pluggable attention; see the module docstring."""

    source_vocab_size: int
    target_vocab_size: int
    embed_dim: int
    hidden_size: int
    cell: str = "lstm"
    num_layers: int = 1
    bidirectional: bool = True
    decoder_style: str = "luong"
    attention: Any = None  # dict of make_attention keyword arguments
    dropout: float = 0.0
    tie_embeddings: str = "none"  # none | target | all (embeddings.py)
    token_dropout: float = 0.0  # drop whole token embeddings in training (embeddings.py)
    pointer_generator: bool = False  # mix copying source tokens into the output (pointer.py)

    def setup(self):
        self.source_embed, self.target_embed, self.readout = make_embeddings(
            self.tie_embeddings, self.source_vocab_size, self.target_vocab_size,
            self.embed_dim)
        self.token_drop = token_dropout(self.token_dropout)
        self.encoder = Encoder(self.cell, self.hidden_size, self.num_layers, self.bidirectional,
                               name="encoder")
        if self.pointer_generator and self.source_vocab_size != self.target_vocab_size:
            raise ValueError("the pointer-generator copies source tokens as output tokens, "
                             "so source and target need one vocabulary: got "
                             f"{self.source_vocab_size} and {self.target_vocab_size} entries")
        self.step = DecoderStep(self.cell, self.hidden_size, self.num_layers,
                                self.decoder_style, dict(self.attention),
                                self.pointer_generator, name="decoder")
        self.drop = nn.Dropout(self.dropout)

    def _embed(self, embed, tokens, train: bool):
        embedded = self.token_drop(embed(tokens), deterministic=not train)
        return self.drop(embedded, deterministic=not train)

    def encode(self, source, train: bool = False):
        """source [B, S] (0 = padding) -> (Memory, initial decoder carry)."""
        mask = source > 0
        # A zero a plain apply ignores, whose gradient is that of the embeddings: the
        # handle of implicit attention (analysis/implicit.py).
        embedded = self.perturb(PERTURBATION, self._embed(self.source_embed, source, train))
        states, final_carries = self.encoder(embedded, mask)
        summary = carry_output(self.cell, final_carries[-1])
        memory = self.step.prepare(states, mask, summary)._replace(tokens=source)
        feed = jnp.zeros((source.shape[0], self.hidden_size), states.dtype)
        start = ALIGNMENTS[self.attention["alignment"]].history_start
        return memory, (final_carries, feed, History.start(mask, start))

    def start_decoding(self, source, max_length: int):
        """Decoding protocol (see decoding.py): (memory, carry) before the first step."""
        del max_length  # the recurrent state does not grow with the output
        return self.encode(source)

    def decode_step(self, carry, tokens, memory: Memory, step):
        """One greedy/beam step: previous tokens [B] -> (carry, logits [B, V], weights [B, S])."""
        carry, (features, weights, gate) = self.step(carry, self.target_embed(tokens), memory,
                                                     jnp.full(tokens.shape, step))
        return carry, self._output(features, weights, gate, memory.tokens), weights

    def _output(self, features, weights, gate, source):
        """Logits, or with the pointer-generator log P(w) (pointer.py), which every
        consumer of logits takes as they are."""
        logits = self.readout(features)
        if not self.pointer_generator:
            return logits
        self.sow("pointer", "copy_probability", jax.nn.sigmoid(-gate))  # 1 − p_gen
        return pointer.mix(logits, weights, gate, source)

    def __call__(self, source, target_inputs, train: bool = False):
        """Teacher forcing: -> (logits [B, T, V], attention weights [B, T, S] or None)."""
        memory, carry = self.encode(source, train)
        embedded = self._embed(self.target_embed, target_inputs, train)
        steps = jnp.broadcast_to(jnp.arange(target_inputs.shape[1]), target_inputs.shape)
        # Every step gets its own 'sample' key (hard attention) and the same
        # 'soft_choice' key (one soft/hard draw per sequence), and stacks what it
        # records ('intermediates' for plots, 'reinforce' for the hard-attention loss,
        # 'coverage' for the coverage loss).
        scan = nn.scan(_scan_decoder, variable_broadcast="params",
                       variable_axes={"intermediates": 1, "reinforce": 1, "coverage": 1},
                       split_rngs={"params": False, "sample": True, "soft_choice": False},
                       in_axes=(1, nn.broadcast), out_axes=1)
        _, (features, weights, gates) = scan(self.step, carry, (embedded, steps), memory)
        features = self.drop(features, deterministic=not train)
        # The vocabulary projection is one big matmul outside the time loop.
        return self._output(features, weights, gates, source), weights


def build(config, source_vocab_size: int, target_vocab_size: int) -> Seq2Seq:
    model = config.model
    return Seq2Seq(source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size,
                   embed_dim=model.embed_dim, hidden_size=model.hidden_size, cell=model.cell,
                   num_layers=model.num_layers, bidirectional=model.bidirectional,
                   decoder_style=model.decoder_style, attention=attention_kwargs(config),
                   dropout=model.dropout, tie_embeddings=model.tie_embeddings,
                   token_dropout=model.token_dropout, pointer_generator=model.pointer_generator)


def validate(config):
    model = config.model
    choice(model.cell, CELLS, "model.cell")
    choice(model.decoder_style, DECODER_STYLES, "model.decoder_style")
    require(not model.bidirectional or model.hidden_size % 2 == 0,
            f"a bidirectional encoder splits model.hidden_size between its two directions, "
            f"so it must be even; got {model.hidden_size}")
    require(not model.fused_attention, "model.fused_attention applies to the transformer "
            "family only")
    require(not model.pointer_generator
            or canonical_score(model.attention.score) != NO_ATTENTION,
            "model.pointer_generator copies source tokens by their attention weights; "
            "score 'none' has none: choose a score")


def describe(config) -> str:
    model, attention = config.model, config.model.attention
    alignment = "" if attention.alignment == "global" else f" {attention.alignment}"
    heads = f", {attention.num_heads} heads" if attention.num_heads > 1 else ""
    pointer_text = ", pointer-generator" if model.pointer_generator else ""
    return (f"{canonical_score(attention.score)}{alignment} attention{heads}{pointer_text}, "
            f"{model.decoder_style} decoder, {'bi' if model.bidirectional else 'uni'}-"
            f"{model.cell.upper()}")


register_family("rnn", build=build, validate=validate, defaults=lambda config: None,
                describe=describe)
