"""The statistics every comparison states: n, a mean and its 95% interval over seeds,
which settings a test separates, and speed measures with no ceiling.

- ``t_interval``: Student's t interval of a mean over seeds (n − 1 degrees of freedom).
- ``welch``: Welch's t-test of two settings' means, unequal variances (Welch 1947), with
  the Welch–Satterthwaite degrees of freedom; two-sided p-value.
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
from scipy import stats as _scipy

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
    half = float(_scipy.t.ppf(1 - level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return Interval(len(x), mean, mean - half, mean + half)


@dataclass(frozen=True)
class Test:
    """A two-sided test of equal means: the statistic, degrees of freedom, p-value."""
    t: float
    dof: float
    p: float


def welch(a, b) -> Test | None:
    """Welch's t-test of mean(a) = mean(b); None with fewer than 2 values on a side.

    When both samples have zero variance the t statistic is undefined: equal means give
    p = 1, different means p = 0 (every seed of one setting differs from every seed of
    the other by the same amount: as separated as seeds can show)."""
    a, b = finite(a), finite(b)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    difference = a.mean() - b.mean()
    if va + vb == 0:
        return Test(math.copysign(math.inf, difference) if difference else 0.0,
                    float(len(a) + len(b) - 2), 0.0 if difference else 1.0)
    t = difference / math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return Test(float(t), float(dof), float(2 * _scipy.t.sf(abs(t), dof)))


def difference_interval(a, b, level: float = LEVEL) -> Interval | None:
    """mean(a) − mean(b) with its two-sided (1 − level) Welch interval (the t quantile at
    Welch's degrees of freedom), as scipy's ``ttest_ind(a, b, equal_var=False)
    .confidence_interval``; None with fewer than 2 values on a side. For a claim of *no
    worse than*: a non-inferiority test reads the interval's low end against a margin."""
    x, y = finite(a), finite(b)
    test = welch(x, y)
    if test is None:
        return None
    difference = float(x.mean() - y.mean())
    spread = math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    half = float(_scipy.t.ppf(1 - level / 2, test.dof) * spread) if spread else 0.0
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
class Comparison:
    """The leader against one other setting."""
    other: str
    difference: float  # leader's mean − other's mean
    test: Test | None
    p_holm: float | None

    @property
    def separated(self) -> bool:
        return self.p_holm is not None and self.p_holm < LEVEL and self.difference > 0


@dataclass(frozen=True)
class Separation:
    """Which setting leads on a metric, and which others a test separates from it."""
    leader: str | None
    comparisons: tuple[Comparison, ...]

    @property
    def winner(self) -> str | None:
        """The leader, if it is separated from every other setting; else None."""
        if self.leader is None or not self.comparisons:
            return None
        return self.leader if all(c.separated for c in self.comparisons) else None

    @property
    def tied(self) -> list[str]:
        """The settings not separated from the leader."""
        return [c.other for c in self.comparisons if not c.separated]


def separation(samples: dict[str, list], higher_is_better: bool = True) -> Separation:
    """The setting with the best mean against each other setting by Welch's t-test,
    Holm-corrected over those comparisons. ``samples``: {setting: per-seed values}."""
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
    return Separation(leader, tuple(
        Comparison(name, sign * float(x[leader].mean() - x[name].mean()), tests[i],
                   adjusted.get(i)) for i, name in enumerate(others)))


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
