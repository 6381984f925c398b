"""Attention formulations, picked by name from a config.

A formulation is a score (how q and k_s compare) with an alignment (which
positions, and how) and a normalizer (softmax, sparsemax or 1.5-entmax: how scores
become weights), optionally split into heads. An RNN decoder also hands the
attention its history (the previous weights, their running sum: ``History``), which
location-aware and coverage scores read, and a coverage loss may be trained
(``coverage.py``). Scores and alignments are registered with their
properties in ``registry.py``; adding a score is one class in ``scores.py`` with
its ``@register_score`` line, one config file in ``configs/`` and one test in
``tests/test_scores.py``.
"""

from __future__ import annotations

from attention_research.attention.attention import (
    Attention, History, Memory, MultiHeadAttention, NoAttention, entropy, gaussian_weighting,
    window_mask)
from attention_research.attention.normalizers import NORMALIZERS, masked_softmax
from attention_research.attention.registry import (
    ALIASES, ALIGNMENTS, NO_ATTENTION, SCORES, canonical_score, score_names,
    transformer_alignments, transformer_scores)
from attention_research.attention.coverage import CoverageLoss, Signals
from attention_research.attention.reinforce import NoSignal
from attention_research.attention import scores  # noqa: F401 (registers the scores)


def training_signal(attention_config, num_steps: int = 0):
    """The extra loss the configured attention trains with: its alignment's (hard:
    REINFORCE) and the coverage loss when ``coverage_loss`` > 0 (from step
    ``coverage_loss_from`` × ``num_steps`` on), or none."""
    make = ALIGNMENTS[attention_config.alignment].training_signal
    signals = [] if make is None else [make(attention_config)]
    if attention_config.coverage_loss > 0:
        start = round(attention_config.get("coverage_loss_from", 0.0) * num_steps)
        signals.append(CoverageLoss(attention_config.coverage_loss, start))
    if not signals:
        return NoSignal()
    return signals[0] if len(signals) == 1 else Signals(signals)


def make_attention(score: str, *, query_dim: int, key_dim: int, attention_dim: int,
                   max_length: int, alignment: str = "global", window: int = 10,
                   soft_fraction: float = 0.0, soft_unit: str = "step",
                   test_context: str = "argmax",
                   num_heads: int = 1, projections: bool = False,
                   head_dim: int = 0, fused: bool = False, normalizer: str = "softmax",
                   filters: int = 10, filter_width: int = 201, monotonic_bias: float = -4.0,
                   monotonic_noise: float = 1.0, name: str = "attention"):
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
        if SCORES[score].reads_history:
            raise ValueError(f"the {score} score reads the previous step's attention of one "
                             "query; it is not supported with projected heads (use "
                             "num_heads=1, head_dim=0)")
        if ALIGNMENTS[alignment].reads_history:
            raise ValueError(f"{alignment} attention reads where one query stopped at the "
                             "previous step; it is not supported with projected heads (use "
                             "num_heads=1, head_dim=0)")
        if not ALIGNMENTS[alignment].multihead:
            raise ValueError(f"{alignment} attention samples one position per query; it is "
                             "not supported with projected heads (use num_heads=1, head_dim=0)")
        if not head_dim and key_dim % num_heads:
            raise ValueError(f"{num_heads} heads must divide the key size {key_dim}")
        query_dim = key_dim = head_dim or key_dim // num_heads
    if fused and not (multihead and score == "scaled_dot" and alignment == "global"
                      and normalizer == "softmax"):
        raise ValueError("fused attention (jax.nn.dot_product_attention) computes multi-head "
                         "scaled_dot global attention with softmax only")
    if SCORES[score].equal_sizes and query_dim != key_dim:
        raise ValueError(
            f"score {score!r} compares queries and keys directly, so they need the same "
            f"size; got query {query_dim} and key {key_dim}")
    score_fn = SCORES[score].module(query_dim=query_dim, key_dim=key_dim,
                                    attention_dim=attention_dim, max_length=max_length,
                                    filters=filters, filter_width=filter_width)
    core = Attention(score_fn=score_fn, score_name=score, alignment=alignment, window=window,
                     predictor_dim=attention_dim, soft_fraction=soft_fraction,
                     soft_unit=soft_unit, test_context=test_context, normalizer=normalizer,
                     monotonic_bias=monotonic_bias, monotonic_noise=monotonic_noise,
                     name=None if multihead else name)
    if not multihead:
        return core
    return MultiHeadAttention(core, num_heads=num_heads, head_dim=key_dim, out_dim=out_dim,
                              fused=fused, name=name)


__all__ = [
    "ALIASES", "ALIGNMENTS", "Attention", "History", "Memory", "MultiHeadAttention", "NORMALIZERS",
    "NO_ATTENTION",
    "NoAttention", "SCORES", "canonical_score", "entropy", "gaussian_weighting",
    "make_attention", "masked_softmax", "score_names", "training_signal",
    "transformer_alignments", "transformer_scores", "window_mask",
]
