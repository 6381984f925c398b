"""A comparison's verdict in words: which setting wins on a metric, as far as a test
over seeds separates it (``stats.separation``: Welch's t, Holm-corrected, under a
``stats.Rule``: no winner at the metric's floor or by less than its minimum effect),
else the settings the best is not separated from, each with its lead and p."""

from __future__ import annotations

import math

from attention_research.reports import stats


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def verdict(samples: dict, higher_is_better: bool = True, digits: int = 3,
            rule: stats.Rule = stats.ANY) -> str:
    """Which setting wins on a metric, as far as a test separates them under ``rule``
    (no winner at the metric's floor or by less than its minimum effect). ``samples``:
    {setting: per-seed values}; None and NaN (failed members) are left out."""
    present = {s: stats.finite(v) for s, v in samples.items()}
    present = {s: v for s, v in present.items() if len(v)}
    if not present:
        return "none (every member failed)"
    if all(not v.any() for v in present.values()):
        return "none (every setting scored 0)"
    if len(present) == 1:
        return f"none (only {next(iter(present))} has results)"
    result = stats.separation(present, higher_is_better, rule)
    mean = present[result.leader].mean()
    if result.at_floor:
        return (f"none: every setting at the floor (best mean, {result.leader}, "
                f"{mean:.{digits}f} < {rule.floor:g})")
    if result.winner is not None:
        worst = max(c.p_holm for c in result.comparisons)
        closest = min(result.comparisons, key=lambda c: c.difference)
        gap = _difference(closest, digits)
        if len(result.comparisons) == 1:  # two settings: one test, nothing to correct
            return (f"**{result.winner}** (separated from {closest.other} by {gap}; "
                    f"p {_p(worst)})")
        return (f"**{result.winner}** (separated from every other setting; the closest, "
                f"{closest.other}, by {gap}; largest Holm-corrected p {_p(worst)})")
    failed = lambda setting: (f"; {k} of {len(samples[setting])} seeds failed"
                              if (k := failed_seeds(samples[setting], rule)) else "")
    ties = ", ".join(_tie(c, digits, failed(c.other)) for c in result.comparisons
                     if not c.separated)
    return (f"none: the best mean, {result.leader} ({mean:.{digits}f}"
            f"{failed(result.leader)}), is not separated from {ties}" + _effect_note(rule))


def _difference(comparison, digits: int) -> str:
    """'+0.042 [+0.011, +0.073]': the leader's lead with its 95% Welch interval."""
    interval = comparison.interval
    if interval is None or interval.low is None:
        return f"{comparison.difference:+.{digits}f}"
    sign = 1 if comparison.difference * interval.mean >= 0 else -1  # lower is better: flip
    low, high = sorted((sign * interval.low, sign * interval.high))
    return f"{comparison.difference:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def _tie(comparison, digits: int, failed: str = "") -> str:
    """A setting the leader is not separated from, its lead and p; ``failed``: how many
    of its seeds failed (non-finite or under the floor), which makes a tie of a spread."""
    if comparison.p_holm is None:
        return f"{comparison.other} (under 2 seeds: no test{failed})"
    small = (comparison.p_holm < stats.LEVEL and 0 < comparison.difference
             < comparison.min_effect)
    return (f"{comparison.other} ({_difference(comparison, digits)}, p "
            f"{_p(comparison.p_holm)}{', under the minimum effect' if small else ''}{failed})")


def _effect_note(rule: stats.Rule) -> str:
    return "" if rule is stats.ANY else f" ({rule.words()})"


def failed_seeds(values, rule: stats.Rule) -> int:
    """Seeds that failed: non-finite (a failed member), or under the rule's floor."""
    return sum(1 for v in values if v is None or not math.isfinite(v)
               or (rule.floor is not None and v < rule.floor))
