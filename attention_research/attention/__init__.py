"""The registry of attention formulations: pick one by name from a config.

A formulation is a score (how q and k_s compare) with an alignment (how scores
become weights), optionally split into heads. Adding a score: one class in
``scores.py``, one entry in ``SCORES`` below, one config file in ``configs/``,
one test in ``tests/test_scores.py``.
"""

from __future__ import annotations

from attention_research.attention.attention import (
    ALIGNMENTS, LOCAL_ALIGNMENTS, Attention, Memory, MultiHeadAttention, NoAttention,
    entropy, gaussian_weighting, masked_softmax, window_mask)
from attention_research.attention.scores import (
    AdditiveScore, CosineScore, DotScore, GeneralScore, LocationScore, ScaledDotScore)

# name -> constructor(query_dim, key_dim, attention_dim, max_length) -> score module
SCORES = {
    "dot": lambda q, k, a, n: DotScore(),
    "scaled_dot": lambda q, k, a, n: ScaledDotScore(),
    "general": lambda q, k, a, n: GeneralScore(query_dim=q),
    "additive": lambda q, k, a, n: AdditiveScore(dim=a),
    "location": lambda q, k, a, n: LocationScore(max_length=n),
    "cosine": lambda q, k, a, n: CosineScore(key_dim=k),
}
ALIASES = {"concat": "additive"}
NO_ATTENTION = "none"
# Scores that compare q with k_s directly need both in one space.
SAME_DIM_SCORES = ("dot", "scaled_dot")


def score_names():
    """Every name a config may use for ``model.attention.score``."""
    return sorted(SCORES) + sorted(ALIASES) + [NO_ATTENTION]


def canonical_score(name: str) -> str:
    name = ALIASES.get(name, name)
    if name not in SCORES and name != NO_ATTENTION:
        raise ValueError(
            f"unknown attention score {name!r}; valid choices: {', '.join(score_names())}")
    return name


def make_attention(score: str, *, query_dim: int, key_dim: int, attention_dim: int,
                   max_length: int, alignment: str = "global", window: int = 10,
                   soft_fraction: float = 0.0, num_heads: int = 1, projections: bool = False,
                   head_dim: int = 0, fused: bool = False, name: str = "attention"):
    """Build the attention module a config names.

    With ``num_heads > 1``, ``projections`` or ``head_dim > 0`` the score runs
    inside MultiHeadAttention: q, k, v projected to ``num_heads`` heads of
    ``head_dim`` (default key_dim / num_heads), concatenated and projected back
    to key_dim. ``head_dim`` sets the dimension d_k in which q and k are compared
    independently of the model's size (experiments/score_scaling.py).
    """
    score = canonical_score(score)
    if score == NO_ATTENTION:
        return NoAttention(name=name)
    if alignment not in ALIGNMENTS:
        raise ValueError(
            f"unknown alignment {alignment!r}; valid choices: {', '.join(ALIGNMENTS)}")
    multihead = num_heads > 1 or projections or head_dim > 0
    out_dim = key_dim
    if multihead:
        if alignment == "hard":
            raise ValueError("hard attention samples one position per query; it is not "
                             "supported with projected heads (use num_heads=1, head_dim=0)")
        if not head_dim and key_dim % num_heads:
            raise ValueError(f"{num_heads} heads must divide the key size {key_dim}")
        query_dim = key_dim = head_dim or key_dim // num_heads
    if fused and not (multihead and score == "scaled_dot" and alignment == "global"):
        raise ValueError("fused attention (jax.nn.dot_product_attention) computes multi-head "
                         "scaled_dot global attention only")
    if score in SAME_DIM_SCORES and query_dim != key_dim:
        raise ValueError(
            f"score {score!r} compares queries and keys directly, so they need the same "
            f"size; got query {query_dim} and key {key_dim}")
    core = Attention(score_fn=SCORES[score](query_dim, key_dim, attention_dim, max_length),
                     alignment=alignment, window=window, predictor_dim=attention_dim,
                     soft_fraction=soft_fraction, name=None if multihead else name)
    if not multihead:
        return core
    return MultiHeadAttention(core, num_heads=num_heads, head_dim=key_dim, out_dim=out_dim,
                              fused=fused, name=name)


__all__ = [
    "ALIASES", "ALIGNMENTS", "Attention", "LOCAL_ALIGNMENTS", "Memory", "MultiHeadAttention",
    "NO_ATTENTION", "NoAttention", "SCORES", "canonical_score", "entropy", "gaussian_weighting",
    "make_attention", "masked_softmax", "score_names", "window_mask",
]
