"""A decoder-only Transformer: a causal language model that reads ``source BOS target``
and is trained on the target alone (a prefix language model).

Why a third family: in the encoder-decoder a position scheme that lives in the decoder
(ALiBi, NoPE) shares the model with a sinusoidal encoder, and the encoder decides what
happens past the trained lengths (issue 35). Press, Smith & Lewis 2022 (ALiBi), Haviv et
al. 2022 and Kazemnejad et al. 2023 (NoPE) test decoder-only language models; here every
scheme of ``transformer.POSITIONS`` is the only explicit position signal of every layer
(the causal mask carries order implicitly: Haviv et al. 2022).

The sequence. Sources are left-aligned so that every one ends at column S − 1 (S: the
batch's source width) and the target starts at column S for every row: the BOS that
opens the target inputs is the separator. Then one cache column serves a decoding step
of every row. The schemes that see only differences of positions (alibi, relative, rope)
and nope use the columns as they are; the absolute tables (sinusoidal, learned) are read
at column − (S − L), so each row's first source token is position 0 whatever the
batch's width. Pre-LayerNorm layers of causal self-attention and a feed-forward block,
as the encoder-decoder's (``transformer._Block``). One embedding table reads source and
target tokens (a language model has one vocabulary); ``model.tie_embeddings`` ties it
to the output projection (``target`` or ``all``).

Its attention weights, for alignment accuracy and heat maps: the last layer's
self-attention from each target position to the source positions, averaged over heads
and read in the source's own (right-padded) columns. They need not sum to 1 over the
source: the rest goes to the target prefix.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import flax.linen as nn

from attention_research.attention import Memory
from attention_research.errors import require
from attention_research.models import transformer
from attention_research.models.embeddings import PERTURBATION, make_embeddings, token_dropout
from attention_research.models.registry import (
    attention_kwargs, max_source_length, register_family)

ABSOLUTE = ("sinusoidal", "learned")  # the schemes that add a table to the embeddings


class CausalLayer(transformer._Block):
    """x + SelfAttention(LN(x)) under the causal mask, then x + FF(LN(x))."""

    def setup(self):
        self.self_attention = self.attention_module("self_attention")
        self.relative_embeddings = self.relative_tables()
        self.norm_self = nn.LayerNorm(name="norm_self")
        self.norm_ff = nn.LayerNorm(name="norm_ff")
        self.ff = FeedForward(self.ff_dim, self.d_model, self.dropout, name="ff")
        self.drop = nn.Dropout(self.dropout)

    def _feed_forward(self, x, context, train):
        x = self.residual(x, context, train)
        return self.residual(x, self.ff(self.norm_ff(x), train), train)

    def __call__(self, x, mask, train: bool):
        """(x, head-averaged self-attention weights [B, N, N]) over the whole sequence."""
        context, weights = self.causal_self_attention(self.norm_self(x), mask)
        return self._feed_forward(x, context, train), weights

    def cache(self, x, mask, extra: int) -> Memory:
        """The prepared keys and values of ``x`` (this layer's input), then ``extra``
        empty columns."""
        h = self.norm_self(x)
        memory = self.self_attention.prepare(h, mask, rotary=self.rotary(x.shape[1]))
        pad = lambda a: jnp.pad(a, [(0, 0), (0, extra)] + [(0, 0)] * (a.ndim - 2))  # noqa: E731
        return Memory(pad(memory.values), jax.tree_util.tree_map(pad, memory.features),
                      pad(memory.mask), None)

    def step(self, x, cache: Memory, column):
        """One new token x [B, 1, d] at ``column`` (the same for every row)."""
        context, weights, cache = self.cached_self_attention(self.norm_self(x), cache, column)
        return self._feed_forward(x, context, False), cache, weights


FeedForward = transformer.FeedForward


class DecoderOnly(nn.Module):
    """Prefix language model over ``source BOS target``; the encoder-decoder protocol."""

    source_vocab_size: int
    target_vocab_size: int
    d_model: int
    num_heads: int
    num_layers: int
    ff_dim: int
    max_length: int  # longest source; a sequence is at most 2 · max_length + 2 long
    positions: str = "sinusoidal"
    attention: Any = None
    dropout: float = 0.0
    max_relative_distance: int = 16
    tie_embeddings: str = "none"
    token_dropout: float = 0.0

    def setup(self):
        transformer.check_transformer_attention(self.attention["score"],
                                                self.attention["alignment"])
        if self.source_vocab_size != self.target_vocab_size:
            raise ValueError("the decoder-only model reads source and target with one "
                             f"vocabulary; got {self.source_vocab_size} and "
                             f"{self.target_vocab_size} entries")
        attention = {k: v for k, v in self.attention.items() if k != "num_heads"}
        attention["max_length"] = self.table_length
        block = dict(d_model=self.d_model, num_heads=self.num_heads, ff_dim=self.ff_dim,
                     dropout=self.dropout, attention=attention, positions=self.positions,
                     max_relative_distance=self.max_relative_distance)
        _, embed, self.readout = make_embeddings(self.tie_embeddings, self.target_vocab_size,
                                                 self.target_vocab_size, self.d_model)
        self.embed = embed
        self.token_drop = token_dropout(self.token_dropout)
        if self.positions == "learned":
            self.position_embed = nn.Embed(self.table_length, self.d_model,
                                           name="position_embed")
        self.layers = [CausalLayer(**block, name=f"layer_{i}") for i in range(self.num_layers)]
        self.norm = nn.LayerNorm(name="norm")
        self.drop = nn.Dropout(self.dropout)

    @property
    def table_length(self) -> int:
        return 2 * self.max_length + 2  # source, BOS, target and its EOS

    def source_embed(self, source):
        """The source tokens' embeddings (the handle of implicit attention)."""
        return self.embed(source)

    def _positions(self, ids):
        """The absolute table at position ids [B, N] (zeros for the other schemes)."""
        if self.positions == "learned":
            return self.position_embed(ids)
        table = transformer.sinusoidal_positions(self.table_length, self.d_model)
        return table[ids]

    def _source_part(self, source, train: bool):
        """Left-aligned source embeddings and tokens [B, S, ·], and each row's shift
        S − L (its first real column)."""
        width = source.shape[1]
        lengths = jnp.sum(source > 0, axis=1)
        shift = width - lengths
        read = jnp.arange(width)[None, :] - shift[:, None]  # column -> source index
        inside = read >= 0
        index = jnp.clip(read, 0)
        embedded = self.perturb(PERTURBATION, self.token_drop(self.source_embed(source),
                                                              deterministic=not train))
        aligned = jnp.take_along_axis(embedded, index[..., None], axis=1)
        tokens = jnp.where(inside, jnp.take_along_axis(source, index, axis=1), 0)
        return jnp.where(inside[..., None], aligned, 0.0), tokens, shift

    def _scaled(self, embedded, first_column, shift):
        """√d · embeddings, plus the absolute table at each row's own positions."""
        embedded = embedded * math.sqrt(self.d_model)
        if self.positions not in ABSOLUTE:
            return embedded
        columns = first_column + jnp.arange(embedded.shape[1])[None, :]
        return embedded + self._positions(jnp.clip(columns - shift[:, None], 0))

    def _source_weights(self, weights, shift, width):
        """[B, T, N] weights of target rows -> [B, T, S] over the source's own columns."""
        columns = jnp.clip(jnp.arange(width)[None, :] + shift[:, None], 0, width - 1)
        read = jnp.take_along_axis(weights[..., :width], columns[:, None, :], axis=-1)
        real = jnp.arange(width)[None, :] < (width - shift)[:, None]
        return jnp.where(real[:, None, :], read, 0.0)

    def __call__(self, source, target_inputs, train: bool = False):
        """Teacher forcing: -> (logits [B, T, V] of the target, weights [B, T, S])."""
        width = source.shape[1]
        embedded, tokens, shift = self._source_part(source, train)
        target = self.token_drop(self.embed(target_inputs), deterministic=not train)
        x = jnp.concatenate([self._scaled(embedded, 0, shift),
                             self._scaled(target, width, shift)], axis=1)
        mask = jnp.concatenate([tokens > 0, target_inputs > 0], axis=1)
        x = self.drop(x, deterministic=not train)
        weights = None
        for layer in self.layers:
            x, weights = layer(x, mask, train)
        logits = self.readout(self.norm(x[:, width:]))
        return logits, self._source_weights(weights[:, width:], shift, width)

    def start_decoding(self, source, max_length: int):
        """Run the source once and cache every layer's keys and values; the memory is
        what each step needs to place itself (the source width and each row's shift)."""
        width = source.shape[1]
        embedded, tokens, shift = self._source_part(source, False)
        x, mask = self._scaled(embedded, 0, shift), tokens > 0
        caches = []
        for layer in self.layers:
            caches.append(layer.cache(x, mask, max_length))
            x, _ = layer(x, mask, False)
        return (shift, width), tuple(caches)

    def decode_step(self, carry, tokens, memory, step):
        shift, width = memory
        column = width + step
        x = self._scaled(self.embed(tokens[:, None]), column, shift)
        caches, weights = [], None
        for layer, cache in zip(self.layers, carry):
            x, cache, weights = layer.step(x, cache, column)
            caches.append(cache)
        logits = self.readout(self.norm(x))[:, 0]
        return tuple(caches), logits, self._source_weights(weights, shift, width)[:, 0]


def build(config, source_vocab_size: int, target_vocab_size: int) -> DecoderOnly:
    model = config.model
    return DecoderOnly(
        source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size,
        d_model=model.hidden_size, num_heads=model.attention.num_heads,
        num_layers=model.num_layers, ff_dim=model.ff_dim, max_length=max_source_length(config),
        positions=model.positions, attention=attention_kwargs(config), dropout=model.dropout,
        tie_embeddings=model.tie_embeddings, token_dropout=model.token_dropout,
        max_relative_distance=model.max_relative_distance)


def validate(config):
    transformer.validate(config)
    require(not config.model.fused_attention, "model.fused_attention records no weights, "
            "and the decoder-only model reads its alignment off them; set it to False")


def defaults(config):
    """The encoder-decoder's sizes, with its 2 + 2 layers as 4 causal ones."""
    transformer.defaults(config)
    config.model.num_layers = 4


def describe(config) -> str:
    attention = config.model.attention
    return (f"decoder-only Transformer, {config.model.positions} positions, "
            f"{transformer.canonical_score(attention.score)} attention, "
            f"{attention.num_heads} heads")


register_family("decoder_only", build=build, validate=validate, defaults=defaults,
                describe=describe)
