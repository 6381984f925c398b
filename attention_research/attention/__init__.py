"""The registry of attention formulations: pick one by name from a config.

Adding a formulation: one class in ``scores.py``, one entry in ``SCORES`` below,
one config file in ``configs/``, one test in ``tests/test_scores.py``.
"""

from __future__ import annotations

from attention_research.attention.attention import (
    Attention, Memory, NoAttention, masked_softmax)
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
ALIGNMENTS = ("global",)


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
                   max_length: int, alignment: str = "global", name: str = "attention"):
    """Build the attention module a config names."""
    score = canonical_score(score)
    if score == NO_ATTENTION:
        return NoAttention(name=name)
    if alignment not in ALIGNMENTS:
        raise ValueError(
            f"unknown alignment {alignment!r}; valid choices: {', '.join(ALIGNMENTS)}")
    if score in SAME_DIM_SCORES and query_dim != key_dim:
        raise ValueError(
            f"score {score!r} compares queries and keys directly, so they need the same "
            f"size; got query {query_dim} and key {key_dim}")
    score_fn = SCORES[score](query_dim, key_dim, attention_dim, max_length)
    return Attention(score_fn=score_fn, alignment=alignment, name=name)


__all__ = [
    "ALIASES", "ALIGNMENTS", "Attention", "Memory", "NO_ATTENTION", "NoAttention",
    "SCORES", "canonical_score", "make_attention", "masked_softmax", "score_names",
]
