"""Attention = score function + alignment (how scores become weights).

Every attention maps (queries [B, T, dq], memory) to (context [B, T, dv],
weights [B, T, S]). Weights are recorded with ``sow('intermediates',
'attention_weights', ...)`` for plotting (a recurrent decoder calls attention once
per step, so there the record is stacked to [B, T, 1, S]). Padding, and positions
outside a local window, get exactly zero weight.

Alignments (Luong et al. 2015 §3.1-3.2; Xu et al. 2015 §4.1):

* ``global`` — softmax over every valid source position (Luong Eq. 7).
* ``local_m`` — softmax inside the window [p_t − D, p_t + D] with p_t = t.
* ``local_p`` — p_t = S · sigmoid(v_pᵀ tanh(W_p h_t)) (Luong Eq. 9); the
  in-window softmax times exp(−(s − p_t)² / 2σ²), σ = D/2 (Eq. 10). As in the
  paper the product is not renormalised, so these weights sum to at most 1.
* ``hard`` — stochastic hard attention: while training (an rng named ``sample``
  is given) the context is the state at one position s ~ α, or with probability
  ``soft_fraction`` the expected context Σ α h̄, drawn per target step or, with
  ``soft_unit='sequence'``, once per sequence (Xu et al. §4.1; an rng named
  ``soft_choice`` that a recurrent decoder does not split over its steps). log α(s)
  — 0 on the steps that took the expected context, since they sampled nothing —
  and the entropy of α are recorded in the ``reinforce`` collection for the
  REINFORCE loss, the training signal hard attention registers (``reinforce.py``).
  Without the rng (evaluation) the context is the state at argmax α. The weights
  returned are α.
* ``monotonic`` — Raffel et al. 2017: stop at the first position, from where the
  previous step stopped, whose σ(score + r) says so; trained on the expected
  alignment, hard at test (``monotonic.py``). RNN decoder only.

Any alignment may turn its scores into weights with sparsemax or 1.5-entmax instead
of softmax (``normalizer``, see ``normalizers.py``).

* A window that lies wholly past the end of the source (local_m, once
  t − D > L − 1) holds no valid position: the weights are all zero and so is the
  context, the outside of a window being ignored as Luong et al. do at the ends.
  Teacher forcing never gets there (t ≤ L, and the window always holds L − 1);
  only a greedy decoder that has run D steps past the source does, by when its
  output is already wrong.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import flax.linen as nn

from attention_research.attention import monotonic
from attention_research.attention.normalizers import NORMALIZERS
from attention_research.attention.registry import ALIGNMENTS, SCORES, register_alignment
from attention_research.attention.reinforce import Reinforce

register_alignment("global", transformer=True, paper="Bahdanau et al. 2015, Eq. 6; "
                   "Luong et al. 2015, Eq. 7")
register_alignment("local_m", local=True, paper="Luong et al. 2015, §3.2")
register_alignment("local_p", local=True, paper="Luong et al. 2015, Eq. 9-10")
# One sampled position per query: projected heads would each need their own sample.
register_alignment("hard", multihead=False, training_signal=Reinforce,
                   paper="Xu et al. 2015, §4.1, Eq. 10-12")
# Reads where the previous step stopped, which only a recurrent decoder carries.
register_alignment("monotonic", reads_history=True, history_start="first",
                   paper="Raffel et al. 2017, Eq. 9-14")
HISTORY_STARTS = ("uniform", "first")


class History(NamedTuple):
    """What a recurrent decoder remembers of its attention from one step to the next.

    Location-aware scores read α_{t−1} (Chorowski et al. 2015); coverage scores and the
    coverage loss read c_t = Σ_{t'<t} α_{t'} (See et al. 2017, Eq. 10). A Transformer
    decodes all steps at once and carries none, so a score that reads it is RNN-only
    (``reads_history`` in its registry entry).
    """

    previous: jnp.ndarray  # [B, S] α_{t−1}
    coverage: jnp.ndarray  # [B, S] c_t

    @classmethod
    def start(cls, mask, how: str = "uniform"):
        """Before the first step, no coverage and α_0: ``uniform`` over the real source
        positions (ESPnet's AttLoc starts so; Chorowski et al. leave it open) or all on
        the ``first`` (Raffel et al.'s monotonic attention starts reading there); the
        alignment's registry entry says which."""
        real = mask.astype(jnp.float32)
        if how == "first":
            previous = jnp.zeros_like(real).at[:, 0].set(1.0)
        elif how == "uniform":
            previous = real / jnp.maximum(real.sum(-1, keepdims=True), 1.0)
        else:
            raise ValueError(f"unknown history start {how!r}; valid choices: "
                             f"{', '.join(HISTORY_STARTS)}")
        return cls(previous, jnp.zeros_like(real))

    def advance(self, weights):
        """After a step that attended with ``weights`` [B, S] (None: no attention)."""
        if weights is None:
            return self
        return History(weights, self.coverage + weights)


def coverage_loss(weights, coverage):
    """Σ_s min(α_{t,s}, c_{t,s}) (See et al. 2017, Eq. 12): [B, T, S], [B, S] -> [B, T]."""
    return jnp.sum(jnp.minimum(weights, coverage[:, None, :]), axis=-1)


class Memory(NamedTuple):
    """What a decoder attends over, prepared once per source sequence."""

    values: jnp.ndarray  # [B, S, dv] encoder states h̄_s
    features: Any  # the score's prepare(values): e.g. U_a h̄_s for additive
    mask: jnp.ndarray  # [B, S] True on real tokens
    summary: Optional[jnp.ndarray]  # [B, dv] final encoder state, the fixed context of `none`
    # [B, S] the source token ids, for a decoder that copies them (pointer-generator)
    tokens: Optional[jnp.ndarray] = None


def entropy(weights):
    """−Σ_s a(s) log a(s) over the last axis, in nats; zero weights contribute nothing."""
    safe = jnp.where(weights > 0, weights, 1.0)
    return -jnp.sum(jnp.where(weights > 0, weights * jnp.log(safe), 0.0), axis=-1)


def window_mask(centres, num_positions: int, half_width: float):
    """[..., T] centres -> [..., T, S] True where |s - p_t| <= D: Luong's window."""
    positions = jnp.arange(num_positions)
    return jnp.abs(positions - centres[..., None]) <= half_width


def gaussian_weighting(centres, num_positions: int, sigma: float):
    """exp(−(s − p_t)² / 2σ²) for every position s: Luong Eq. 10's second factor."""
    positions = jnp.arange(num_positions)
    return jnp.exp(-((positions - centres[..., None]) ** 2) / (2.0 * sigma ** 2))


class Attention(nn.Module):
    """One score function with one alignment; see the module docstring."""

    score_fn: nn.Module
    score_name: str  # its registered name (registry.SCORES)
    alignment: str = "global"
    window: int = 10  # D, the half-width of local windows
    predictor_dim: int = 64  # width of W_p in local_p's position predictor
    soft_fraction: float = 0.0  # hard: share of steps that use the expected context
    soft_unit: str = "step"  # hard: draw soft_fraction per target "step", "sequence" or "batch"
    # hard, at evaluation: the most probable position ("argmax") or the expected context
    # ("expected": Xu et al.'s generate_caps.py decodes with sampling=False, i.e. α)
    test_context: str = "argmax"
    normalizer: str = "softmax"  # scores -> weights: softmax | sparsemax | entmax15
    monotonic_bias: float = -4.0  # monotonic: initial value of the energy's bias r
    monotonic_noise: float = 1.0  # monotonic: std of the pre-sigmoid noise in training

    def setup(self):
        if self.alignment not in ALIGNMENTS:
            raise ValueError(f"unknown alignment {self.alignment!r}; "
                             f"valid choices: {', '.join(ALIGNMENTS)}")
        if self.normalizer not in NORMALIZERS:
            raise ValueError(f"unknown normalizer {self.normalizer!r}; "
                             f"valid choices: {', '.join(NORMALIZERS)}")
        self.normalize = NORMALIZERS[self.normalizer]
        if self.alignment == "local_p":
            self.w_p = nn.Dense(self.predictor_dim, use_bias=False, name="W_p")
            self.v_p = nn.Dense(1, use_bias=False, name="v_p")
        if self.alignment == "monotonic":
            if self.normalizer != "softmax":
                raise ValueError("monotonic attention turns scores into weights by its own "
                                 "stopping probabilities; use normalizer='softmax'")
            self.r = self.param("r", nn.initializers.constant(self.monotonic_bias), ())

    def prepare(self, values, mask, summary=None) -> Memory:
        return Memory(values, self.score_fn.prepare(values), mask, summary)

    def centres(self, queries, memory: Memory, positions):
        """p_t for local alignments: [B, T]."""
        if self.alignment == "local_m":
            return positions.astype(queries.dtype)
        lengths = memory.mask.sum(axis=-1, keepdims=True).astype(queries.dtype)  # S
        predicted = self.v_p(jnp.tanh(self.w_p(queries)))[..., 0]
        return lengths * nn.sigmoid(predicted)

    def __call__(self, queries, memory: Memory, positions=None, mask=None, bias=None,
                 history: Optional[History] = None):
        """queries [B, T, dq]; positions [B, T] (target step of each query, for local_m);
        mask [B, T, S] (e.g. causal), combined with the memory's padding mask; bias
        [B, T, S] added to the scores (e.g. ALiBi's distance penalty); history: what a
        recurrent decoder carries (one query per step), for the scores and alignments
        that read it."""
        if history is None and (SCORES[self.score_name].reads_history
                                or ALIGNMENTS[self.alignment].reads_history):
            raise ValueError(f"{self.score_name} {self.alignment} attention reads the "
                             "previous steps' attention, which only the RNN decoder carries")
        if SCORES[self.score_name].reads_history:
            scores = self.score_fn(queries, memory.features, history)
        else:
            scores = self.score_fn(queries, memory.features)  # [B, T, S]
        if bias is not None:
            scores = scores + bias
        valid = memory.mask[:, None, :]
        if mask is not None:
            valid = valid & mask
        num_positions = scores.shape[-1]
        if ALIGNMENTS[self.alignment].local:
            if positions is None:
                positions = jnp.broadcast_to(jnp.arange(queries.shape[1]), queries.shape[:2])
            centres = self.centres(queries, memory, positions)
            inside = valid & window_mask(centres, num_positions, self.window)
            weights = self.normalize(scores, inside)
            if self.alignment == "local_p":
                weights = weights * gaussian_weighting(centres, num_positions, self.window / 2)
        elif self.alignment == "monotonic":
            weights = self._monotonic(scores, valid, history.previous)
        else:
            weights = self.normalize(scores, valid)
        self.sow("intermediates", "attention_weights", weights)
        if history is not None:  # for the coverage loss, when it is trained with
            self.sow("coverage", "coverage_loss", coverage_loss(weights, history.coverage))
        if self.alignment == "hard":
            return self._hard_context(weights, memory.values), weights
        return jnp.einsum("bts,bsd->btd", weights, memory.values), weights

    def _monotonic(self, scores, valid, previous):
        """Expected alignment in training (a ``sample`` rng feeds the noise), the hard
        monotonic process at test; see ``monotonic.py``."""
        key = self.make_rng("sample") if self.has_rng("sample") else None
        p = monotonic.stopping_probabilities(scores + self.r, valid, key, self.monotonic_noise)
        return monotonic.expected_alignment(p, previous)

    def _hard_context(self, weights, values):
        if not self.has_rng("sample"):  # evaluation: the most probable position
            if self.test_context == "expected":
                return jnp.einsum("bts,bsd->btd", weights, values)
            chosen = jax.nn.one_hot(jnp.argmax(weights, -1), weights.shape[-1], dtype=values.dtype)
            return jnp.einsum("bts,bsd->btd", chosen, values)
        sample_key, soft_key = jax.random.split(self.make_rng("sample"))
        log_weights = jnp.log(jnp.where(weights > 0, weights, 1.0))
        sampled = jax.random.categorical(sample_key, jnp.where(weights > 0, log_weights, -jnp.inf))
        chosen = jax.nn.one_hot(sampled, weights.shape[-1], dtype=values.dtype)
        # The sample itself is not differentiable: gradients reach the scores only
        # through REINFORCE (and through the expected context on soft steps).
        hard = jnp.einsum("bts,bsd->btd", jax.lax.stop_gradient(chosen), values)
        use_soft = self._soft_steps(soft_key, weights.shape[:2])
        # REINFORCE needs log α(s̃) on the steps that sampled, and H(α); the rewards
        # come from the loss later.
        self.sow("reinforce", "log_prob",
                 jnp.where(use_soft, 0.0, jnp.sum(chosen * log_weights, -1)))
        self.sow("reinforce", "entropy", entropy(weights))
        if self.soft_fraction <= 0:
            return hard
        soft = jnp.einsum("bts,bsd->btd", weights, values)
        return jnp.where(use_soft[..., None], soft, hard)

    def _soft_steps(self, step_key, shape):
        """[B, T] True where the expected context replaces the sample."""
        if self.soft_fraction <= 0:
            return jnp.zeros(shape, bool)
        if self.soft_unit == "step":
            return jax.random.bernoulli(step_key, self.soft_fraction, shape)
        if not self.has_rng("soft_choice"):
            raise ValueError(f"hard attention with soft_unit={self.soft_unit!r} needs an rng "
                             "named 'soft_choice', the same at every target step")
        # One draw per sequence, or one for the whole minibatch (Xu et al.'s code).
        drawn = shape[:1] if self.soft_unit == "sequence" else (1,)
        chosen = jax.random.bernoulli(self.make_rng("soft_choice"), self.soft_fraction, drawn)
        return jnp.broadcast_to(chosen[:, None], shape)


def rotate(x, positions):
    """Rotary position embedding (Su et al. 2021, RoFormer, Eq. 34): each pair of
    features (2i, 2i + 1) of x [..., L, d] at position m turns by m·θ_i, θ_i =
    10000^(−2i/d), so that a rotated query and key have a dot product that depends on
    their positions only through n − m. ``positions``: [L]."""
    half = x.shape[-1] // 2
    theta = 10000.0 ** (-jnp.arange(half, dtype=x.dtype) * 2 / x.shape[-1])
    angle = positions.astype(x.dtype)[:, None] * theta  # [L, d/2]
    cos, sin = jnp.cos(angle), jnp.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    turned = jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1)
    return turned.reshape(x.shape)


class MultiHeadAttention(nn.Module):
    """Multi-head attention over any score (Vaswani et al. 2017, §3.2.2).

    MultiHead(Q, K, V) = Concat(head_1 … head_h) W^O, head_i = Attention(Q W_i^Q,
    K W_i^K, V W_i^V). The heads are folded into the batch, so one score module
    (and its parameters, if it has any) serves every head; the per-head
    projections are what make the heads differ.
    """

    attention: Attention
    num_heads: int
    head_dim: int
    out_dim: int
    fused: bool = False  # scaled_dot only: jax.nn.dot_product_attention (records no weights)

    def setup(self):
        width = self.num_heads * self.head_dim
        self.query = nn.Dense(width, use_bias=False, name="query")
        self.key = nn.Dense(width, use_bias=False, name="key")
        self.value = nn.Dense(width, use_bias=False, name="value")
        self.out = nn.Dense(self.out_dim, use_bias=False, name="out")

    def _split(self, x):  # [B, L, h·d] -> [B·h, L, d]
        b, length = x.shape[:2]
        x = x.reshape(b, length, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)
        return x.reshape(b * self.num_heads, length, self.head_dim)

    def _merge(self, x, batch):  # [B·h, L, d] -> [B, L, h·d]
        length = x.shape[1]
        x = x.reshape(batch, self.num_heads, length, self.head_dim).transpose(0, 2, 1, 3)
        return x.reshape(batch, length, self.num_heads * self.head_dim)

    def _repeat(self, x, batch=None):  # [B or 1, ...] -> [B·h, ...]
        if x is None:
            return None
        if batch is not None:
            x = jnp.broadcast_to(x, (batch,) + x.shape[1:])
        return jnp.repeat(x, self.num_heads, axis=0)

    def prepare(self, values, mask, summary=None, rotary=None) -> Memory:
        """``rotary``: the keys' positions [S] for RoPE (rotated before the score
        prepares them, so a cache holds them rotated), or None."""
        keys = self._split(self.key(values))
        if rotary is not None:
            keys = rotate(keys, rotary)
        return Memory(self._split(self.value(values)), self.attention.score_fn.prepare(keys),
                      self._repeat(mask), summary)

    def __call__(self, queries, memory: Memory, positions=None, mask=None, bias=None,
                 rotary=None, relative=None, history=None):
        """As Attention; ``bias`` is per head, [h, T, S]; ``rotary`` the queries'
        positions [T] for RoPE; ``relative`` Shaw et al.'s (a^K, a^V), each [T, S, d]:
        e_ts gains q_t·a^K_ts (prepared as the score prepares keys, e.g. / √d) and the
        context Σ_s α_ts a^V_ts (Shaw et al. 2018, Eq. 3-4). The weights returned are
        averaged over heads ([B, T, S]), the per-head ones are in the sown record
        ([B·h, T, S]). ``history`` (an RNN decoder's) only feeds the coverage loss,
        on the head-averaged weights: no score that reads it runs in heads."""
        batch = queries.shape[0]
        if self.fused:
            if bias is not None or rotary is not None or relative is not None:
                raise ValueError("the fused path takes no score bias (ALiBi, relative "
                                 "positions) and no RoPE")
            return self._fused(queries, memory, mask), None
        query = self._split(self.query(queries))
        if rotary is not None:
            query = rotate(query, rotary)
        # Heads are folded into the batch as b·h + head: the per-head bias tiles.
        bias = None if bias is None else jnp.tile(bias, (batch, 1, 1))
        if relative is not None:
            relative_keys, relative_values = relative
            term = jnp.einsum("btd,tsd->bts", query,
                              self.attention.score_fn.prepare(relative_keys))
            bias = term if bias is None else bias + term
        context, weights = self.attention(query, memory, self._repeat(positions, batch),
                                          self._repeat(mask, batch), bias)
        if relative is not None:
            context = context + jnp.einsum("bts,tsd->btd", weights, relative_values)
        weights = weights.reshape((batch, self.num_heads) + weights.shape[1:]).mean(axis=1)
        if history is not None:
            self.sow("coverage", "coverage_loss", coverage_loss(weights, history.coverage))
        return self.out(self._merge(context, batch)), weights


    def _fused(self, queries, memory: Memory, mask):
        """The same scaled dot-product attention through ``jax.nn.dot_product_attention``
        (cuDNN flash attention on GPUs). The prepared keys are already divided by √d."""
        batch, length = queries.shape[:2]
        heads, dim = self.num_heads, self.head_dim
        per_head = lambda x: x.reshape(batch, heads, -1, dim).transpose(0, 2, 1, 3)
        query = self.query(queries).reshape(batch, length, heads, dim)
        valid = memory.mask.reshape(batch, heads, -1)[:, :1, None, :]  # [B, 1, 1, S]
        if mask is not None:
            valid = valid & mask[:, None]
        context = jax.nn.dot_product_attention(query, per_head(memory.features),
                                               per_head(memory.values), mask=valid, scale=1.0)
        return self.out(context.reshape(batch, length, heads * dim))


class NoAttention(nn.Module):
    """No attention: the fixed-context encoder-decoder baseline.

    Cho et al. 2014 / Sutskever et al. 2014: every decoder step sees the same
    summary c of the source (here the final encoder state). Returns no weights.
    """

    def prepare(self, values, mask, summary=None) -> Memory:
        return Memory(values, None, mask, summary)

    def __call__(self, queries, memory: Memory, positions=None, mask=None, history=None):
        context = jnp.broadcast_to(memory.summary[:, None, :],
                                   queries.shape[:2] + memory.summary.shape[-1:])
        return context, None
