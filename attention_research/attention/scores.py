"""Attention score functions: score(q, k_s) for every query and source position.

Each score is a Flax module with two methods, split so that recurrent decoders
do the per-sequence work once (Bahdanau et al. 2015, Appendix A.1.2: "U_a h_j
can be pre-computed"):

  prepare(keys)            [B, S, dk] -> key features, once per source sequence
  __call__(queries, feats) [B, T, dq] -> scores [B, T, S]

A score registered with ``reads_history=True`` also takes the decoder's attention
history (``attention.History``: α_{t−1} and the coverage Σ_{t'<t} α_{t'}), which
only a recurrent decoder carries: ``__call__(queries, feats, history)``.

A new score is one class here, registered with ``@register_score`` and the
properties the rest of the code asks about (``registry.py``).
"""

from __future__ import annotations

import jax.numpy as jnp
import flax.linen as nn

from attention_research.attention.registry import register_score


class Score(nn.Module):
    """The sizes every score is built with; each uses the ones it needs."""

    query_dim: int  # dq, the decoder state (query) size
    key_dim: int  # dk, the encoder state (key) size
    attention_dim: int  # hidden size of a score's own layers (additive's W_a, U_a)
    max_length: int  # the longest source the model will see (location's rows)
    filters: int = 10  # location_aware: number of convolution filters F (Chorowski: 10)
    filter_width: int = 201  # location_aware: their width, odd (Chorowski: 201)


@register_score("dot", equal_sizes=True, paper="Luong et al. 2015, Eq. 8")
class DotScore(Score):
    """Luong et al. 2015, Eq. (8), "dot": score(h_t, h̄_s) = h_tᵀ h̄_s."""

    def prepare(self, keys):
        return keys

    def __call__(self, queries, keys):
        return jnp.einsum("btd,bsd->bts", queries, keys)


@register_score("scaled_dot", equal_sizes=True, paper="Vaswani et al. 2017, Eq. 1")
class ScaledDotScore(Score):
    """Vaswani et al. 2017, Eq. (1): score(q, k_s) = qᵀk_s / √d_k."""

    def prepare(self, keys):
        return keys / jnp.sqrt(keys.shape[-1]).astype(keys.dtype)

    def __call__(self, queries, keys):
        return jnp.einsum("btd,bsd->bts", queries, keys)


@register_score("general", paper="Luong et al. 2015, Eq. 8")
class GeneralScore(Score):
    """Luong et al. 2015, Eq. (8), "general": score(h_t, h̄_s) = h_tᵀ W_a h̄_s.

    W_a maps key space to query space, so W_a h̄_s is precomputed per sequence.
    """

    def setup(self):
        self.w_a = nn.Dense(self.query_dim, use_bias=False, name="W_a")

    def prepare(self, keys):
        return self.w_a(keys)

    def __call__(self, queries, keys):
        return jnp.einsum("btd,bsd->bts", queries, keys)


@register_score("additive", paper="Bahdanau et al. 2015, Eq. 6")
class AdditiveScore(Score):
    """Bahdanau et al. 2015, Eq. (6) / App. A.1.2: v_aᵀ tanh(W_a s_{i-1} + U_a h_j + b).

    Luong et al. 2015 call the same form "concat": v_aᵀ tanh(W_a[h_t; h̄_s]).

    The bias b, which Eq. (6) leaves out, is U_a's (initialised at zero, so an untrained
    score is Eq. (6)'s): it lets training shift the tanh's operating point. OpenNMT-py's
    ``mlp`` attention carries one too (on its query layer); JoeyNMT's has none. Being
    U_a's, it is added once per key, where the keys are prepared.
    """

    def setup(self):
        self.w_a = nn.Dense(self.attention_dim, use_bias=False, name="W_a")
        self.u_a = nn.Dense(self.attention_dim, name="U_a")
        self.v_a = nn.Dense(1, use_bias=False, name="v_a")

    def prepare(self, keys):
        return self.u_a(keys)

    def __call__(self, queries, keys):
        hidden = jnp.tanh(self.w_a(queries)[:, :, None, :] + keys[:, None, :, :])
        return self.v_a(hidden)[..., 0]


# No keys to compare: in self-attention every position would get the same weights.
@register_score("location", transformer=False, paper="Luong et al. 2015, Eq. 8")
class LocationScore(Score):
    """Luong et al. 2015, Eq. (8), "location": a_t = softmax(W_a h_t).

    The score of source position s is (W_a h_t)_s: it depends on the target
    state only, never on the source contents. W_a has one row per position up to
    ``max_length``, the longest source the model will ever see.
    """

    def setup(self):
        self.w_a = nn.Dense(self.max_length, name="W_a")

    def prepare(self, keys):
        # Keep only the shape: the score must not read the key contents.
        return jnp.zeros(keys.shape[:2], keys.dtype)

    def __call__(self, queries, keys):
        length = keys.shape[1]
        if length > self.max_length:
            raise ValueError(
                f"location attention was built for sources of at most {self.max_length} "
                f"positions, got {length}; raise model.max_source_length")
        scores = self.w_a(queries)[..., :length]
        return scores + keys[:, None, :]  # + 0: broadcasts to [B, T, S]


@register_score("cosine", paper="Graves et al. 2014, Eq. 5-6")
class CosineScore(Score):
    """Graves et al. 2014 (Neural Turing Machines), Eq. (5)-(6), content addressing.

    score(q, k_s) = β · cos(W q, k_s), with key strength β = softplus(w_βᵀ q + b_β)
    emitted by the query at every step, so the model chooses how sharp to be.
    """

    epsilon: float = 1e-6

    def setup(self):
        self.w = nn.Dense(self.key_dim, use_bias=False, name="W")
        self.strength = nn.Dense(1, name="w_beta")

    def prepare(self, keys):
        norm = jnp.sqrt(jnp.sum(keys * keys, axis=-1, keepdims=True) + self.epsilon)
        return keys / norm

    def __call__(self, queries, keys):
        key = self.w(queries)
        key = key / jnp.sqrt(jnp.sum(key * key, axis=-1, keepdims=True) + self.epsilon)
        beta = nn.softplus(self.strength(queries))  # [B, T, 1]
        return beta * jnp.einsum("btd,bsd->bts", key, keys)


class _Filters(nn.Module):
    """Location-aware attention's filters F, the parameter ``F/kernel`` [width, 1,
    filters] that ``nn.Conv`` held before (same name, shape and initialiser, so earlier
    checkpoints restore and a seed draws the same values)."""

    filters: int
    width: int

    @nn.compact
    def __call__(self):
        return self.param("kernel", nn.linear.default_kernel_init,
                          (self.width, 1, self.filters))


@register_score("location_aware", reads_history=True,
                paper="Chorowski et al. 2015, Eq. 8-9")
class LocationAwareScore(Score):
    """Chorowski et al. 2015 (Attention-based models for speech recognition), Eq. (8)-(9):

        f_t = F ∗ α_{t−1},   e_{t,s} = wᵀ tanh(W q_t + V h̄_s + U f_{t,s} + b).

    F is ``filters`` 1-D filters of odd width ``filter_width`` slid over the previous
    step's weights (zero beyond the ends, so the features keep the source's length);
    f_{t,s} ∈ R^filters says where the attention was near s. V h̄_s + b is
    precomputed per sequence, as additive's U_a h̄_s is.

    The convolution is computed as one matrix product, f_t = α_{t−1} · T with the
    Toeplitz tensor T[j, s] = F[j − s + (width − 1)/2] (zero outside the filter): the
    same sums as a 'SAME' convolution, but a product XLA's CPU backend runs several
    times faster than its convolution of one input channel by a 201-wide filter (issue
    39: evaluating to length 200 was 12 minutes). T depends only on F and the source
    length, so XLA computes it once, outside the decoder's time loop.
    """

    def setup(self):
        if self.filter_width % 2 == 0:
            raise ValueError(f"location_aware filters are centred on each position, so "
                             f"their width must be odd; got {self.filter_width}")
        self.w = nn.Dense(self.attention_dim, use_bias=False, name="W")
        self.v = nn.Dense(self.attention_dim, name="V")  # its bias is Eq. 9's b
        self.f = _Filters(self.filters, self.filter_width, name="F")
        self.u = nn.Dense(self.attention_dim, use_bias=False, name="U")
        self.w_out = nn.Dense(1, use_bias=False, name="w")

    def prepare(self, keys):
        return self.v(keys)

    def __call__(self, queries, keys, history):
        previous = history.previous  # [B, S]
        kernel = self.f()[:, 0, :]  # [width, filters]
        length, half = previous.shape[-1], self.filter_width // 2
        tap = jnp.arange(length)[:, None] - jnp.arange(length)[None, :] + half  # [j, s]
        inside = (tap >= 0) & (tap < self.filter_width)
        toeplitz = jnp.where(inside[..., None],
                             kernel[jnp.clip(tap, 0, self.filter_width - 1)], 0.0)
        located = jnp.einsum("bj,jsc->bsc", previous, toeplitz)  # [B, S, filters]
        features = self.u(located)  # [B, S, attention_dim]
        hidden = jnp.tanh(self.w(queries)[:, :, None, :] + keys[:, None] + features[:, None])
        return self.w_out(hidden)[..., 0]


@register_score("coverage", reads_history=True, paper="See et al. 2017, Eq. 11")
class CoverageScore(Score):
    """See et al. 2017 (Get to the point), Eq. (11); Tu et al. 2016 (Modeling coverage):

        e_{t,s} = vᵀ tanh(W_h h̄_s + W_s q_t + w_c c_{t,s} + b),  c_t = Σ_{t'<t} α_{t'}.

    The coverage c_{t,s} is how much attention source position s has received so far,
    so the score can learn not to attend again where it already has. Trained with the
    coverage loss (``model.attention.coverage_loss``, Eq. 12-13) it is told to.
    """

    def setup(self):
        self.w_h = nn.Dense(self.attention_dim, name="W_h")  # its bias is Eq. 11's b
        self.w_s = nn.Dense(self.attention_dim, use_bias=False, name="W_s")
        self.w_c = nn.Dense(self.attention_dim, use_bias=False, name="w_c")
        self.v = nn.Dense(1, use_bias=False, name="v")

    def prepare(self, keys):
        return self.w_h(keys)

    def __call__(self, queries, keys, history):
        covered = self.w_c(history.coverage[..., None])  # [B, S, attention_dim]
        hidden = jnp.tanh(self.w_s(queries)[:, :, None, :] + keys[:, None] + covered[:, None])
        return self.v(hidden)[..., 0]
