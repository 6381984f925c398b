"""The statistics every comparison states: n, a mean and its 95% interval over seeds,
which settings a test separates, and speed measures with no ceiling.

- ``t_interval``: Student's t interval of a mean over seeds (n − 1 degrees of freedom).
- ``welch``: Welch's t-test of two settings' means, unequal variances (Welch 1947), with
  the Welch–Satterthwaite degrees of freedom; two-sided p-value. Two constant groups
  get the exact permutation test instead (Welch's t is undefined there).
- ``Rule`` and ``contrast``: when a difference may be given a direction at all: never
  when both means sit at the metric's floor (at 0.009 against 0.002, Welch's t is a
  one-sample test of the higher group), never when the difference is below the
  metric's stated minimum effect; always with the difference's interval beside p.
- ``holm``: Holm's step-down correction for many comparisons (Holm 1979): it keeps the
  family-wise error rate at the level without assuming the tests are independent.
- ``separation``: the setting with the best mean against every other, Holm-corrected;
  a winner is named only when it is separated from all of them.
- ``area_under_curve``: the mean of a learning curve over the training budget
  (trapezoids on the evaluation grid), a speed measure that does not stop at a ceiling.
- ``first_crossing``: the first evaluated step at which a curve reaches a threshold.

scipy is what computes the t distribution; it is installed with JAX (a dependency of
jax itself) and declared in pyproject.toml.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def _t():
    """Student's t distribution, imported when first needed: scipy.stats takes about a
    second to import, which every run would pay at start-up (reports need it, not
    training)."""
    from scipy import stats
    return stats.t


LEVEL = 0.05  # two-sided: 95% intervals, tests at the 5% family-wise level


def finite(values) -> np.ndarray:
    """The values that are numbers (None and NaN dropped: failed or absent members)."""
    return np.array([v for v in values if v is not None and np.isfinite(v)], float)


@dataclass(frozen=True)
class Interval:
    """A mean over n values and its two-sided (1 − LEVEL) t interval; with n = 1 there
    is no interval (low = high = None)."""
    n: int
    mean: float
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None else (self.high - self.low) / 2

    def cell(self, digits: int = 3) -> str:
        """'0.812 ± 0.021' (mean ± the interval's half-width), '0.812' for one value,
        '—' for none."""
        if self.n == 0:
            return "—"
        if self.low is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"


def t_interval(values, level: float = LEVEL) -> Interval:
    """mean ± t_{1−level/2, n−1} · s / √n over the finite values."""
    x = finite(values)
    if len(x) == 0:
        return Interval(0, math.nan, None, None)
    mean = float(x.mean())
    if len(x) == 1:
        return Interval(1, mean, None, None)
    half = float(_t().ppf(1 - level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return Interval(len(x), mean, mean - half, mean + half)


@dataclass(frozen=True)
class Test:
    """A two-sided test of equal means: the statistic, degrees of freedom, p-value."""
    t: float
    dof: float
    p: float
    method: str = "Welch"


def welch(a, b) -> Test | None:
    """Welch's t-test of mean(a) = mean(b); None with fewer than 2 values on a side.

    When both samples have zero variance the t statistic is undefined. Those groups get
    the exact two-sided permutation test of the difference of means instead
    (``method`` says so): equal means p = 1; different means p = 2 / C(n_a + n_b, n_a),
    the chance that a random split of the pooled values puts every high one on one side
    (0.0079 at 5 seeds a side) — never 0, whatever the gap. Two-sided as scipy's
    ``permutation_test`` takes it, twice the one-sided p: where n_a ≠ n_b no other split
    is as extreme, so the p of |difference| alone would be half this (a referee); the
    doubled one is the conservative convention."""
    a, b = finite(a), finite(b)
    if len(a) < 2 or len(b) < 2:
        return None
    if constant(a) and constant(b):
        difference = float(a[0] - b[0])
        p = 1.0 if not difference else min(1.0, 2 / math.comb(len(a) + len(b), len(a)))
        return Test(math.copysign(math.inf, difference) if difference else 0.0,
                    float(len(a) + len(b) - 2), p, "permutation (both groups constant)")
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    return welch_from_variances(a.mean() - b.mean(), va, vb, len(a), len(b))


def constant(values: np.ndarray) -> bool:
    """Whether every value is the same number. Tested on the values, not on their
    variance: the mean of three 0.9s is not exactly 0.9 in floating point, so their
    computed variance is about 1e-32, not 0, and a t-test on it would call any gap
    certain."""
    return bool(len(values)) and bool(np.all(values == values[0]))


def welch_from_variances(difference: float, va: float, vb: float, n_a: int,
                         n_b: int) -> Test:
    """Welch's t-test of a difference of two means from the variances of those means
    (s²/n, or a bootstrap's variance of each mean) and the counts behind them, which
    give Satterthwaite's degrees of freedom. Needs va + vb > 0 and n_a, n_b ≥ 2."""
    t = difference / math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va ** 2 / (n_a - 1) + vb ** 2 / (n_b - 1))
    return Test(float(t), float(dof), float(2 * _t().sf(abs(t), dof)))


def difference_interval(a, b, level: float = LEVEL) -> Interval | None:
    """mean(a) − mean(b) with its two-sided (1 − level) Welch interval (the t quantile at
    Welch's degrees of freedom), as scipy's ``ttest_ind(a, b, equal_var=False)
    .confidence_interval``; None with fewer than 2 values on a side. For a claim of *no
    worse than*: a non-inferiority test reads the interval's low end against a margin."""
    x, y = finite(a), finite(b)
    test = welch(x, y)
    if test is None:
        return None
    if constant(x) and constant(y):  # no spread to read: a point, not an interval
        difference = float(x[0] - y[0])
        return Interval(len(x) + len(y), difference, difference, difference)
    difference = float(x.mean() - y.mean())
    spread = math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    half = float(_t().ppf(1 - level / 2, test.dof) * spread)
    return Interval(len(x) + len(y), difference, difference - half, difference + half)


def holm(p_values) -> list[float]:
    """Holm-adjusted p-values, in the order given: the k-th smallest is multiplied by
    (m − k + 1), made non-decreasing, capped at 1. Reject where adjusted p < LEVEL."""
    p = np.asarray(p_values, float)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


@dataclass(frozen=True)
class Rule:
    """When a difference on one metric may be given a direction (issue 35, item 4).

    ``floor``: a comparison whose better mean is below it names no direction — the
    settings are "both at the floor" (None: the metric has no floor, e.g. a step count).
    ``min_effect``: a difference smaller than this names no direction, whatever its p:
    a test over 5 seeds can separate differences too small to matter. Both are stated
    beside every verdict that uses them."""
    metric: str
    floor: float | None
    min_effect: float
    higher_is_better: bool = True
    # The whole range the metric can span (accuracy 1, BLEU 100); None: unbounded. A
    # design that would detect only a larger difference detects none.
    span: float | None = None

    def words(self) -> str:
        floor = "" if self.floor is None else f"floor {self.floor:g}, "
        return f"{floor}minimum effect {self.min_effect:g} {self.metric}"


# The rules the reports and findings use, by what the metric measures.
ACCURACY = Rule("accuracy", floor=0.05, min_effect=0.02, span=1.0)  # sequence/alignment accuracy, area
BLEU = Rule("BLEU", floor=1.0, min_effect=0.5, span=100.0)
CHRF = Rule("chrF", floor=5.0, min_effect=1.0, span=100.0)
STEPS = Rule("steps", floor=None, min_effect=100, higher_is_better=False)  # the eval grid
NATS = Rule("nats", floor=None, min_effect=0.1)  # a log-probability drop (ablations)
ANY = Rule("", floor=None, min_effect=0.0)  # tests alone decide (a statistic, no floor)


# What a contrast concludes about mean(a) against mean(b).
ABOVE, BELOW = "above", "below"
NOT_SEPARATED, AT_FLOOR, UNDER_EFFECT, NO_TEST = (
    "not separated", "both at the floor", "under the minimum effect", "no test")


@dataclass(frozen=True)
class Contrast:
    """mean(a) − mean(b) with its 95% Welch interval, the test (p adjusted where it is
    one of a family), and the outcome the rule allows: ABOVE or BELOW (a direction
    named), or why none is: NOT_SEPARATED, AT_FLOOR, UNDER_EFFECT, NO_TEST."""
    mean_a: float
    mean_b: float
    difference: Interval | None
    test: Test | None
    p: float | None
    outcome: str
    rule: Rule

    @property
    def above(self) -> bool:
        return self.outcome == ABOVE

    @property
    def below(self) -> bool:
        return self.outcome == BELOW

    def words(self, digits: int = 3, corrected: bool = False) -> str:
        """'difference +0.042 [+0.011, +0.073], Welch t = 3.13, Holm p = 0.037'."""
        if self.outcome == AT_FLOOR:
            return (f"both at the floor (best mean {max(self.mean_a, self.mean_b):.{digits}f}"
                    f" < {self.rule.floor:g}): no direction")
        if self.test is None:
            return "under 2 seeds on a side: no test"
        d = self.difference
        # Beside a Holm p the interval stays the single test's 95% one: say so.
        interval = (f"difference {d.mean:+.{digits}f} [{d.low:+.{digits}f}, "
                    f"{d.high:+.{digits}f}{', unadjusted' if corrected else ''}]")
        statistic = (f"Welch t = {self.test.t:.2f}" if self.test.method == "Welch"
                     else self.test.method)
        text = f"{interval}, {statistic}, {'Holm p' if corrected else 'p'} = {self.p:.2g}"
        if self.outcome == UNDER_EFFECT:
            text += f"; under the minimum effect {self.rule.min_effect:g}: no direction"
        return text


def contrast(a, b, rule: Rule, p: float | None = None) -> Contrast:
    """Compare a with b under ``rule``; ``p`` replaces the test's own p (a Holm-adjusted
    one, from ``contrasts``)."""
    x, y = finite(a), finite(b)
    mean_a = float(x.mean()) if len(x) else math.nan
    mean_b = float(y.mean()) if len(y) else math.nan
    test, difference = welch(x, y), difference_interval(x, y)
    if test is None:
        return Contrast(mean_a, mean_b, None, None, None, NO_TEST, rule)
    if p is None:
        p = test.p
    if test.method != "Welch" and test.p < 1.0:  # two constant groups: the exact interval
        difference = Interval(len(x) + len(y), mean_a - mean_b, mean_a - mean_b,
                              mean_a - mean_b)
    best = max(mean_a, mean_b) if rule.higher_is_better else min(mean_a, mean_b)
    if rule.floor is not None and rule.higher_is_better and best < rule.floor:
        outcome = AT_FLOOR
    elif p >= LEVEL:
        outcome = NOT_SEPARATED
    elif abs(mean_a - mean_b) < rule.min_effect:
        outcome = UNDER_EFFECT
    else:
        outcome = ABOVE if mean_a > mean_b else BELOW
    return Contrast(mean_a, mean_b, difference, test, p, outcome, rule)


def contrasts(pairs, rule: Rule | None = None) -> list[Contrast]:
    """Several contrasts as one family, Holm-corrected over all of them: ``pairs`` is a
    list of (a, b) under ``rule``, or of (a, b, rule) where the family spans metrics or
    tasks (issue 35: correct across everything a finding draws on). Contrasts at the
    floor or without a test still count in the family: they were looked at."""
    pairs = [tuple(pair) if len(pair) == 3 else (*pair, rule) for pair in pairs]
    if any(r is None for _, _, r in pairs):
        raise ValueError("contrasts: every pair needs a rule (pass rule= or (a, b, rule))")
    tests = [welch(a, b) for a, b, _ in pairs]
    testable = [i for i, t in enumerate(tests) if t is not None]
    adjusted = dict(zip(testable, holm([tests[i].p for i in testable]))) if testable else {}
    return [contrast(a, b, r, adjusted.get(i)) for i, (a, b, r) in enumerate(pairs)]


@dataclass(frozen=True)
class Comparison:
    """The leader against one other setting."""
    other: str
    difference: float  # leader's mean − other's mean (in the better direction)
    test: Test | None
    p_holm: float | None
    min_effect: float = 0.0
    interval: Interval | None = None  # leader − other, its 95% Welch interval

    @property
    def separated(self) -> bool:
        return (self.p_holm is not None and self.p_holm < LEVEL and self.difference > 0
                and self.difference >= self.min_effect)


@dataclass(frozen=True)
class Separation:
    """Which setting leads on a metric, and which others a test separates from it."""
    leader: str | None
    comparisons: tuple[Comparison, ...]
    at_floor: bool = False  # the leader's mean is below the rule's floor

    @property
    def winner(self) -> str | None:
        """The leader, if it is separated from every other setting (by at least the
        rule's minimum effect) and not at the floor; else None."""
        if self.leader is None or not self.comparisons or self.at_floor:
            return None
        return self.leader if all(c.separated for c in self.comparisons) else None

    @property
    def tied(self) -> list[str]:
        """The settings not separated from the leader."""
        return [c.other for c in self.comparisons if not c.separated]


def separation(samples: dict[str, list], higher_is_better: bool = True,
               rule: Rule = ANY) -> Separation:
    """The setting with the best mean against each other setting by Welch's t-test,
    Holm-corrected over those comparisons, under ``rule`` (its floor and minimum
    effect; its direction wins over ``higher_is_better`` when it has a floor or an
    effect). ``samples``: {setting: per-seed values}."""
    if rule is not ANY:
        higher_is_better = rule.higher_is_better
    x = {name: finite(v) for name, v in samples.items()}
    x = {name: v for name, v in x.items() if len(v)}
    if not x:
        return Separation(None, ())
    sign = 1.0 if higher_is_better else -1.0
    leader = max(x, key=lambda name: sign * x[name].mean())
    others = [name for name in x if name != leader]
    tests = [welch(x[leader], x[name]) for name in others]
    testable = [i for i, t in enumerate(tests) if t is not None]
    adjusted = dict(zip(testable, holm([tests[i].p for i in testable]))) if testable else {}
    at_floor = (rule.floor is not None and higher_is_better
                and float(x[leader].mean()) < rule.floor)
    return Separation(leader, tuple(
        Comparison(name, sign * float(x[leader].mean() - x[name].mean()), tests[i],
                   adjusted.get(i), rule.min_effect, difference_interval(x[leader], x[name]))
        for i, name in enumerate(others)), at_floor)


def area_under_curve(points: dict[int, float], last_step: int,
                     first_step: int = 0) -> float | None:
    """The curve's mean over steps [first_step, last_step] by trapezoids between its
    evaluated steps ({step: value}); the curve must be evaluated at both ends. 1.0 is
    a model at the ceiling from the first step; it keeps rising with speed after every
    model has reached the ceiling at the end."""
    steps = sorted(s for s in points if first_step <= s <= last_step)
    if not steps or steps[0] != first_step or steps[-1] != last_step or last_step == first_step:
        return None
    values = [points[s] for s in steps]
    area = sum((b - a) * (u + v) / 2 for a, b, u, v in zip(steps, steps[1:], values, values[1:]))
    return float(area / (last_step - first_step))


def first_crossing(points: dict[int, float], threshold: float) -> int | None:
    """The first evaluated step whose value reaches ``threshold``, or None."""
    return next((s for s in sorted(points) if points[s] >= threshold), None)
