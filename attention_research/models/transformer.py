"""The Transformer encoder-decoder (Vaswani et al. 2017) with a pluggable score.

Pre-LayerNorm (Xiong et al. 2020): x + Sublayer(LN(x)), final LayerNorm on both
stacks. Positions (``model.positions``):

* ``sinusoidal`` (Vaswani §3.5) or ``learned``: a table added to the embeddings of
  both stacks;
* ``alibi`` (Press, Smith & Lewis 2022, §3): the decoder has no position table; its
  causal self-attention scores get −m_h·(i − j), a penalty linear in the distance with
  one slope per head, m_h = 2^(−8h/H). Press et al. define ALiBi for causal attention;
  the encoder keeps sinusoidal positions, because the symmetric −m·|i − j| in a
  bidirectional encoder cannot tell a source from its reverse (the distances of a
  reversed sequence are the same, and cross-attention sees no order), so copy and
  reverse would be unlearnable. Cross-attention gets no bias;
* ``nope``: sinusoidal positions in the encoder, none in the decoder, whose causal
  mask alone tells it where it is (Kazemnejad et al. 2023);
* ``relative`` (Shaw, Uszkoreit & Vaswani 2018, Eq. 3-4): no table; the
  self-attention of both stacks learns one key and one value vector per clipped
  offset clip(j − i, ±k) (``model.max_relative_distance`` = k), shared by the heads
  of a layer: e_ij gains q_i·a^K_ij, the context Σ_j α_ij a^V_ij. For dot and
  scaled_dot;
* ``rope`` (Su et al. 2021, Eq. 34): no table; in the self-attention of both stacks
  every head's queries and keys are rotated by their positions, so their dot
  product depends on the offset n − m alone (and on its sign: unlike a symmetric
  bias, it tells left from right). For the scores that compare rotated vectors
  directly: dot and scaled_dot (cosine's W acts after the rotation, so it is refused).

Self- and cross-attention are ``make_attention(..., projections=True)``: multi-head attention over any score
of the registry — ``scaled_dot`` as in the paper, ``dot``, ``general``,
``additive`` or ``cosine`` as ablations: the scores registered as usable in the
Transformer. ``location`` (no keys to look at) and ``none`` make no sense here and
are refused, as are alignments other than global.

Greedy decoding is incremental: each decoder layer caches the *prepared* key
features and values of the tokens decoded so far. Every score's ``prepare`` works
position by position, so one cache serves every score.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import flax.linen as nn

from attention_research.attention import (
    SCORES, Memory, canonical_score, make_attention, transformer_alignments,
    transformer_scores)
from attention_research.errors import ConfigError, choice, require
from attention_research.models.embeddings import PERTURBATION, make_embeddings, token_dropout
from attention_research.models.registry import (
    attention_kwargs, max_source_length, register_family)

POSITIONS = ("sinusoidal", "learned", "alibi", "nope", "relative", "rope")
# qᵀk of rotated vectors depends on the offset alone. Not cosine: its W multiplies the
# rotated query, and W R_m q · R_n k is not a function of n − m (issue 35).
ROTARY_SCORES = ("dot", "scaled_dot")
RELATIVE_SCORES = ("dot", "scaled_dot")  # q·(k + a^K) splits into the two terms


def sinusoidal_positions(length: int, dim: int):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(…) (Vaswani §3.5)."""
    position = jnp.arange(length)[:, None]
    rates = jnp.exp(-math.log(10000.0) * jnp.arange(0, dim, 2) / dim)
    table = jnp.zeros((length, dim))
    table = table.at[:, 0::2].set(jnp.sin(position * rates))
    return table.at[:, 1::2].set(jnp.cos(position * rates[: dim // 2]))


def alibi_slopes(num_heads: int):
    """The heads' slopes as the ALiBi authors' code computes them (Press et al. 2022, §3,
    and their ``get_slopes``): for H a power of 2, the paper's m_h = 2^(−8h/H), h = 1 … H
    (8 heads: 1/2, 1/4, … 1/256). For another H the paper's rule and their code part: the
    code, which trained the paper's models, takes the slopes of the nearest power of 2
    below H, then every other slope of the next power of 2 (6 heads: 1/4, 1/16, 1/64,
    1/256, then 1/2, 1/8), where the paper's formula would give 2^(−8h/6). This is the
    code's rule; at 1, 2, 4, 8, … heads (every config here) the two agree."""
    def power_of_2(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    below = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_2(below) + power_of_2(2 * below)[0::2][:num_heads - below]
    return jnp.asarray(slopes, jnp.float32)


def alibi_bias(num_heads: int, query_positions, key_positions):
    """[H, T, S]: −m_h·|i − j|, which is Press et al.'s −m_h·(i − j) on the causal
    j ≤ i (the keys after i are masked)."""
    distance = jnp.abs(query_positions[:, None] - key_positions[None, :])
    return -alibi_slopes(num_heads)[:, None, None] * distance


def check_transformer_attention(score: str, alignment: str):
    if score not in transformer_scores():
        history = [name for name, entry in SCORES.items() if entry.reads_history]
        raise ValueError(f"score {score!r} cannot drive Transformer self- and cross-attention "
                         f"(location has no keys to compare, none has no attention, "
                         f"{' and '.join(history)} read the previous steps' attention, "
                         f"which a parallel decoder does not have); valid "
                         f"choices: {', '.join(transformer_scores())}")
    if alignment not in transformer_alignments():
        raise ValueError(f"the Transformer attends globally; alignment {alignment!r} is for "
                         f"the RNN decoder (valid choice here: "
                         f"{', '.join(transformer_alignments())})")


class FeedForward(nn.Module):
    hidden: int
    out: int
    dropout: float

    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.relu(nn.Dense(self.hidden, name="in")(x))
        x = nn.Dropout(self.dropout)(x, deterministic=not train)
        return nn.Dense(self.out, name="out")(x)


class _Block(nn.Module):
    """Shared parts of encoder and decoder layers."""

    d_model: int
    num_heads: int
    ff_dim: int
    dropout: float
    attention: dict  # make_attention keyword arguments (score, attention_dim, max_length)
    positions: str = "sinusoidal"
    max_relative_distance: int = 16  # k of relative positions

    def relative_tables(self):
        """Shaw et al.'s a^K and a^V: one vector per offset −k … k, shared by the heads."""
        if self.positions != "relative":
            return None
        head_dim = self.attention.get("head_dim") or self.d_model // self.num_heads
        size = 2 * self.max_relative_distance + 1
        return (nn.Embed(size, head_dim, name="relative_keys"),
                nn.Embed(size, head_dim, name="relative_values"))

    def relative(self, queries: int, keys: int, offset=0):
        """(a^K, a^V) [T, S, d] for queries at offset … and keys 0 …; None if unused."""
        if self.relative_embeddings is None:
            return None
        offsets = jnp.arange(keys)[None, :] - (offset + jnp.arange(queries))[:, None]
        k = self.max_relative_distance
        index = jnp.clip(offsets, -k, k) + k
        return tuple(table(index) for table in self.relative_embeddings)

    def attention_module(self, name):
        return make_attention(**self.attention, query_dim=self.d_model, key_dim=self.d_model,
                              num_heads=self.num_heads, projections=True, name=name)

    def rotary(self, length: int, offset=0):
        """RoPE's positions offset … offset + length − 1; None for the other schemes."""
        return offset + jnp.arange(length) if self.positions == "rope" else None

    def self_bias(self, queries: int, keys: int, offset=0):
        """ALiBi's bias for the decoder's causal self-attention of queries at offset …
        offset + queries − 1 over keys 0 … keys − 1; None for the other schemes."""
        if self.positions != "alibi":
            return None
        return alibi_bias(self.num_heads, offset + jnp.arange(queries), jnp.arange(keys))

    def residual(self, x, update, train):
        return x + self.drop(update, deterministic=not train)

    def causal_self_attention(self, h, mask):
        """Causal self-attention of the normalised inputs h over their whole sequence
        (teacher forcing): (context, head-averaged weights)."""
        length = h.shape[1]
        causal = jnp.tril(jnp.ones((length, length), bool))[None]
        where = self.rotary(length)
        memory = self.self_attention.prepare(h, mask, rotary=where)
        return self.self_attention(h, memory, mask=causal, rotary=where,
                                   bias=self.self_bias(length, length),
                                   relative=self.relative(length, length))

    def cached_self_attention(self, h, cache: Memory, column):
        """One new token h [B, 1, d] at ``column``: its key and value join the cache, and
        it attends over the cache. (context, weights, cache)."""
        new = self.self_attention.prepare(h, jnp.ones(h.shape[:2], bool),
                                          rotary=self.rotary(1, offset=column))
        write = lambda buffer, item: jax.lax.dynamic_update_slice_in_dim(  # noqa: E731
            buffer, item, column, 1)
        cache = Memory(write(cache.values, new.values),
                       jax.tree_util.tree_map(write, cache.features, new.features),
                       cache.mask.at[:, column].set(True), None)
        width = cache.mask.shape[1]
        context, weights = self.self_attention(
            h, cache, bias=self.self_bias(1, width, offset=column),
            rotary=self.rotary(1, offset=column), relative=self.relative(1, width, column))
        return context, weights, cache


class EncoderLayer(_Block):
    def setup(self):
        self.self_attention = self.attention_module("self_attention")
        self.relative_embeddings = self.relative_tables()
        self.norm_attention = nn.LayerNorm(name="norm_attention")
        self.norm_ff = nn.LayerNorm(name="norm_ff")
        self.ff = FeedForward(self.ff_dim, self.d_model, self.dropout, name="ff")
        self.drop = nn.Dropout(self.dropout)

    def __call__(self, x, mask, train: bool):
        h = self.norm_attention(x)
        length = x.shape[1]
        where = self.rotary(length)
        context, _ = self.self_attention(h, self.self_attention.prepare(h, mask, rotary=where),
                                         rotary=where, relative=self.relative(length, length))
        x = self.residual(x, context, train)
        return self.residual(x, self.ff(self.norm_ff(x), train), train)


class DecoderLayer(_Block):
    def setup(self):
        self.self_attention = self.attention_module("self_attention")
        self.relative_embeddings = self.relative_tables()
        self.cross_attention = self.attention_module("cross_attention")
        self.norm_self = nn.LayerNorm(name="norm_self")
        self.norm_cross = nn.LayerNorm(name="norm_cross")
        self.norm_ff = nn.LayerNorm(name="norm_ff")
        self.ff = FeedForward(self.ff_dim, self.d_model, self.dropout, name="ff")
        self.drop = nn.Dropout(self.dropout)

    def prepare_cross(self, encoded, mask) -> Memory:
        return self.cross_attention.prepare(encoded, mask)

    def _cross_and_feed_forward(self, x, cross: Memory, train):
        context, weights = self.cross_attention(self.norm_cross(x), cross)
        x = self.residual(x, context, train)
        return self.residual(x, self.ff(self.norm_ff(x), train), train), weights

    def __call__(self, x, target_mask, cross: Memory, train: bool):
        """Teacher forcing: causal self-attention over the whole target at once."""
        context, _ = self.causal_self_attention(self.norm_self(x), target_mask)
        return self._cross_and_feed_forward(self.residual(x, context, train), cross, train)

    def empty_cache(self, batch: int, max_length: int) -> Memory:
        """A cache of prepared keys and values for ``max_length`` decoded tokens."""
        zeros = jnp.zeros((batch, max_length, self.d_model))
        return self.self_attention.prepare(zeros, jnp.zeros((batch, max_length), bool))

    def step(self, x, cache: Memory, cross: Memory, step):
        """One decoding step: x [B, 1, d] is the newest token; its key joins the cache."""
        context, _, cache = self.cached_self_attention(self.norm_self(x), cache, step)
        x, weights = self._cross_and_feed_forward(self.residual(x, context, False), cross,
                                                  False)
        return x, cache, weights


class Transformer(nn.Module):
    """Encoder-decoder Transformer; same interface as the RNN Seq2Seq."""

    source_vocab_size: int
    target_vocab_size: int
    d_model: int
    num_heads: int
    num_layers: int
    ff_dim: int
    max_length: int  # longest source; position tables cover it and its target
    positions: str = "sinusoidal"
    attention: Any = None  # dict of make_attention keyword arguments
    dropout: float = 0.0
    max_relative_distance: int = 16  # k: relative positions clip offsets to ±k
    tie_embeddings: str = "none"  # none | target | all (embeddings.py)
    token_dropout: float = 0.0  # drop whole token embeddings in training (embeddings.py)

    def setup(self):
        check_transformer_attention(self.attention["score"], self.attention["alignment"])
        if self.positions not in POSITIONS:
            raise ValueError(f"unknown positions {self.positions!r}; "
                             f"valid choices: {', '.join(POSITIONS)}")
        attention = {k: v for k, v in self.attention.items() if k != "num_heads"}
        block = dict(d_model=self.d_model, num_heads=self.num_heads, ff_dim=self.ff_dim,
                     dropout=self.dropout, attention=attention, positions=self.positions,
                     max_relative_distance=self.max_relative_distance)
        self.source_embed, self.target_embed, self.readout = make_embeddings(
            self.tie_embeddings, self.source_vocab_size, self.target_vocab_size, self.d_model)
        self.token_drop = token_dropout(self.token_dropout)
        table_length = self.max_length + 2  # a target is one longer (EOS), plus BOS
        if self.positions == "learned":
            self.position_embed = nn.Embed(table_length, self.d_model, name="position_embed")
        self.encoder_layers = [EncoderLayer(**block, name=f"encoder_{i}")
                               for i in range(self.num_layers)]
        self.decoder_layers = [DecoderLayer(**block, name=f"decoder_{i}")
                               for i in range(self.num_layers)]
        self.encoder_norm = nn.LayerNorm(name="encoder_norm")
        self.decoder_norm = nn.LayerNorm(name="decoder_norm")
        self.drop = nn.Dropout(self.dropout)

    def _embed(self, embed, tokens, offset=0, train: bool = False, decoder: bool = False):
        """Scaled token embedding (token dropout in training) plus the positions offset
        … offset + length, where the scheme adds them (alibi and nope: encoder only)."""
        length = tokens.shape[1]
        embedded = self.token_drop(embed(tokens), deterministic=not train)
        if not decoder:  # the handle of implicit attention (analysis/implicit.py)
            embedded = self.perturb(PERTURBATION, embedded)
        embedded = embedded * math.sqrt(self.d_model)
        if self.positions in ("rope", "relative") or (
                decoder and self.positions in ("alibi", "nope")):
            return embedded
        if self.positions == "learned":
            position = self.position_embed(offset + jnp.arange(length))
        else:
            table = sinusoidal_positions(self.max_length + 2, self.d_model)
            position = jax.lax.dynamic_slice_in_dim(table, offset, length)
        return embedded + position[None]

    def encode(self, source, train: bool = False):
        mask = source > 0
        x = self.drop(self._embed(self.source_embed, source, train=train),
                      deterministic=not train)
        for layer in self.encoder_layers:
            x = layer(x, mask, train)
        encoded = self.encoder_norm(x)
        return tuple(layer.prepare_cross(encoded, mask) for layer in self.decoder_layers)

    def __call__(self, source, target_inputs, train: bool = False):
        """Teacher forcing: -> (logits [B, T, V], last layer's cross-attention [B, T, S])."""
        cross = self.encode(source, train)
        x = self.drop(self._embed(self.target_embed, target_inputs, train=train, decoder=True),
                      deterministic=not train)
        target_mask = target_inputs > 0
        weights = None
        for layer, memory in zip(self.decoder_layers, cross):
            x, weights = layer(x, target_mask, memory, train)
        return self.readout(self.decoder_norm(x)), weights

    def start_decoding(self, source, max_length: int):
        cross = self.encode(source)
        caches = tuple(layer.empty_cache(source.shape[0], max_length)
                       for layer in self.decoder_layers)
        return cross, caches

    def decode_step(self, carry, tokens, memory, step):
        x = self._embed(self.target_embed, tokens[:, None], offset=step, decoder=True)
        caches = []
        weights = None
        for layer, cache, cross in zip(self.decoder_layers, carry, memory):
            x, cache, weights = layer.step(x, cache, cross, step)
            caches.append(cache)
        logits = self.readout(self.decoder_norm(x))[:, 0]
        return tuple(caches), logits, None if weights is None else weights[:, 0]


def build(config, source_vocab_size: int, target_vocab_size: int) -> Transformer:
    model = config.model
    attention = attention_kwargs(config)
    attention["fused"] = model.fused_attention
    return Transformer(
        source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size,
        d_model=model.hidden_size, num_heads=model.attention.num_heads,
        num_layers=model.num_layers, ff_dim=model.ff_dim, max_length=max_source_length(config),
        positions=model.positions, attention=attention, dropout=model.dropout,
        tie_embeddings=model.tie_embeddings, token_dropout=model.token_dropout,
        max_relative_distance=model.max_relative_distance)


def validate(config):
    model = config.model
    try:
        check_transformer_attention(canonical_score(model.attention.score),
                                    model.attention.alignment)
    except ValueError as error:
        raise ConfigError(f"model.attention: {error}") from None
    choice(model.positions, POSITIONS, "model.positions")
    require(model.attention.coverage_loss == 0, "model.attention.coverage_loss needs the "
            "running sum of past attention, which only the rnn family carries (a Transformer "
            "decodes every step at once); set it to 0 or use model.family=rnn")
    require(model.ff_dim >= 1, f"model.ff_dim must be >= 1, got {model.ff_dim}")
    require(not model.fused_attention or model.attention.score == "scaled_dot",
            "model.fused_attention computes scaled_dot attention only; set "
            "model.attention.score=scaled_dot or model.fused_attention=False")
    require(not model.fused_attention or model.positions not in ("alibi", "rope", "relative"),
            "model.fused_attention takes no score bias and no rotation: use "
            "model.positions=sinusoidal, learned or nope with it, or "
            "model.fused_attention=False")
    require(model.positions != "rope" or canonical_score(model.attention.score)
            in ROTARY_SCORES, f"model.positions=rope rotates queries and keys so that "
            f"their dot product is relative; score {model.attention.score!r} does not "
            f"compare them directly. Valid scores with rope: {', '.join(ROTARY_SCORES)}")
    require(model.positions != "relative" or canonical_score(model.attention.score)
            in RELATIVE_SCORES, f"model.positions=relative adds q·a^K to a dot product; "
            f"score {model.attention.score!r} is not one. Valid scores with relative: "
            f"{', '.join(RELATIVE_SCORES)}")
    require(model.max_relative_distance >= 1, f"model.max_relative_distance must be >= 1, "
            f"got {model.max_relative_distance}")
    head_dim = model.attention.head_dim or model.hidden_size // model.attention.num_heads
    require(model.positions != "rope" or head_dim % 2 == 0,
            f"model.positions=rope turns pairs of features: the head size must be even, "
            f"got {head_dim}")
    require(not model.fused_attention or model.attention.normalizer == "softmax",
            "model.fused_attention computes a softmax only; set "
            "model.attention.normalizer=softmax or model.fused_attention=False")
    require(not model.pointer_generator, "model.pointer_generator is built for the RNN "
            "decoder (See et al. 2017); use model.family=rnn")


def defaults(config):
    """Vaswani's base model scaled to the synthetic tasks: 2 layers, 4 heads, d = 64."""
    model = config.model
    model.attention.num_heads = 4
    model.hidden_size = 64  # d_model
    model.num_layers = 2
    model.ff_dim = 256


def describe(config) -> str:
    attention = config.model.attention
    heads = f", {attention.num_heads} heads" if attention.num_heads > 1 else ""
    return f"Transformer, {canonical_score(attention.score)} attention{heads}"


register_family("transformer", build=build, validate=validate, defaults=defaults,
                describe=describe,
                # the RNN's: d_model is model.hidden_size
                ignores=("model.cell", "model.bidirectional", "model.decoder_style",
                         "model.embed_dim"))
