"""Held-out metrics by length range, from the per-example statistics of an eval call.

Ranges (the task's ``length_ranges``): lengths seen in training (1 …
train_max_length) and longer ones (train_max_length + 1 … eval_max_length), the
length-generalisation split.
Sequence accuracy is greedy exact match including EOS; alignment accuracy is the
share of target steps whose attention argmax is the correct source position;
attention entropy is the mean entropy (nats) of a target step's weights.
"""

from __future__ import annotations

import numpy as np

from attention_research.metric_names import eval_key


def _ratio(numerator, denominator):
    return float(numerator / denominator) if denominator else float("nan")


def range_metrics(stats: dict, lengths: np.ndarray, ranges) -> dict:
    """One member's per-example ``stats`` -> {'eval/<metric>/<range>': value}."""
    metrics = {}
    for name, first, last in ranges:
        rows = (lengths >= first) & (lengths <= last)
        count = stats["count"][rows].sum()
        metrics[eval_key("loss", name)] = _ratio(stats["nll"][rows].sum(), count)
        metrics[eval_key("token_acc", name)] = _ratio(stats["correct"][rows].sum(), count)
        metrics[eval_key("seq_acc", name)] = float(stats["exact"][rows].mean())
        if "copied" in stats:  # pointer-generator: mean 1 − p_gen, how much it copies
            metrics[eval_key("copy_rate", name)] = _ratio(stats["copied"][rows].sum(), count)
            for part in ("copyable", "novel"):  # tokens a source holds, and the others
                if part in stats:
                    metrics[eval_key(f"copy_rate_{part}", name)] = _ratio(
                        stats[f"copied_{part}"][rows].sum(), stats[part][rows].sum())
        if "align_hits" in stats:
            metrics[eval_key("align_acc", name)] = _ratio(stats["align_hits"][rows].sum(),
                                                       stats["align_steps"][rows].sum())
            if "align_any_hits" in stats:  # any position holding the emitted symbol
                metrics[eval_key("align_acc_any", name)] = _ratio(
                    stats["align_any_hits"][rows].sum(), stats["align_steps"][rows].sum())
            metrics[eval_key("attn_entropy", name)] = _ratio(stats["entropy"][rows].sum(), count)
            metrics[eval_key("attn_zero_share", name)] = _ratio(stats["zero_share"][rows].sum(),
                                                             count)
    return metrics


def analysis_metrics(stats: dict, lengths: np.ndarray, ranges) -> dict:
    """One member's per-example analysis statistics (training/held_out.py) ->
    {'eval/<metric>/<range>': value}: the implicit map's alignment accuracy, its
    Kendall τ with the explicit weights, the rollout's alignment accuracy, the
    ablation drops (nats, mean over examples; an example's NaN, no such token, left
    out) and the overlaps (the share of examples whose token is the weights' top)."""
    metrics = {}
    for name, first, last in ranges:
        rows = (lengths >= first) & (lengths <= last)
        ratio = lambda top, bottom: _ratio(stats[top][rows].sum(), stats[bottom][rows].sum())
        if "implicit_hits" in stats:  # the true alignment is known
            metrics[eval_key("implicit_align_acc", name)] = ratio("implicit_hits",
                                                               "implicit_steps")
        # The same with any position holding the emitted symbol counted ("_any"), and
        # for the other attribution methods read beside the configured one.
        for key in (k for k in stats if k.endswith("_hits") and k.startswith(
                ("implicit_", "rollout_")) and k not in ("implicit_hits", "rollout_hits")):
            metrics[eval_key(_alignment_name(key), name)] = ratio(
                key, "rollout_steps" if key.startswith("rollout") else "implicit_steps")
        if "tau_sum" in stats:
            metrics[eval_key("implicit_tau", name)] = ratio("tau_sum", "tau_steps")
        if "rollout_hits" in stats:
            metrics[eval_key("rollout_align_acc", name)] = ratio("rollout_hits", "rollout_steps")
        for key in (k for k in stats if k.startswith("overlap_")):
            # The share of examples whose token is the weights' top (held_out.OVERLAPS).
            metrics[eval_key(key, name)] = (float(stats[key][rows].mean()) if rows.any()
                                             else float("nan"))
        for key in (k for k in stats if k.startswith("drop_")):
            # NaN: no such token in that example (drop_other of a one-token source).
            kept = rows & ~np.isnan(stats[key])
            metrics[eval_key(f"ablation_{key}", name)] = (float(stats[key][kept].mean())
                                                      if kept.any() else float("nan"))
    return metrics


def _alignment_name(key: str) -> str:
    """'implicit_gradient_any_hits' -> 'implicit_align_acc_any_gradient': held_out's
    hit counts ``{kind}[_{method}][_any]_hits`` as metric names."""
    base = key.removesuffix("_hits")
    any_position = base.endswith("_any")
    kind, _, method = base.removesuffix("_any").partition("_")
    return (f"{kind}_align_acc" + ("_any" if any_position else "")
            + (f"_{method}" if method else ""))


def accuracy_by_length(stats: dict, lengths: np.ndarray) -> dict:
    """{length: greedy sequence accuracy} for every held-out length."""
    return {int(n): float(stats["exact"][lengths == n].mean()) for n in np.unique(lengths)}


def token_accuracy_by_length(stats: dict, lengths: np.ndarray) -> dict:
    """{length: teacher-forced token accuracy} for every held-out length."""
    return {int(n): _ratio(stats["correct"][lengths == n].sum(), stats["count"][lengths == n].sum())
            for n in np.unique(lengths)}


def token_accuracy_by_position(stats: dict) -> dict:
    """{target position (1-based): teacher-forced token accuracy} over every held-out
    example long enough to have that position (EOS included)."""
    correct, real = stats["correct_at"].sum(0), stats["real_at"].sum(0)
    return {int(t) + 1: float(correct[t] / real[t]) for t in np.flatnonzero(real)}


def token_accuracy_beyond(stats: dict, lengths: np.ndarray, position: int,
                          eos: bool = True) -> dict:
    """{length: teacher-forced token accuracy at the target positions after ``position``
    (1-based) for every held-out length whose target reaches past it: a model right on
    its first ``position`` tokens and wrong after them scores 0 here, where its accuracy
    over the whole target would still be high. ``eos=False`` leaves out each target's
    last real token (its EOS), which a model can place from content alone (an audit as
    Shaw et al., issue 35: EOS is about 13% of the positions beyond 20 on sources 21-40)."""
    whole = np.asarray(stats["real_at"], bool)
    correct, real = np.asarray(stats["correct_at"], bool)[:, position:], whole[:, position:]
    if not eos:
        last = whole.sum(1) - 1 - position  # each row's EOS column, after ``position``
        drop = np.arange(real.shape[1])[None, :] == last[:, None]
        real, correct = real & ~drop, correct & ~drop
    correct, real = correct.sum(1), real.sum(1)
    return {int(n): _ratio(correct[lengths == n].sum(), real[lengths == n].sum())
            for n in np.unique(lengths) if real[lengths == n].sum()}
