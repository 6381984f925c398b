"""The one decision rule of the findings (issue 73, item 1), written once.

A paper claims that a statistic d (a difference between two arms, or one arm's level)
lies beyond a threshold in a direction: "location aligns worse than dot by at least the
minimum effect" is d = location − dot, below −0.02. Over seeds, d has a 95% Welch
interval [low, high]. Then:

* **reproduced** when the interval lies wholly beyond the threshold in the paper's
  direction (above: low > threshold; below: high < threshold);
* **not reproduced** when it rules the threshold out in that direction (above:
  high < threshold; below: low > threshold);
* **inconclusive** otherwise: the interval holds the threshold. Inconclusive too, and
  never decided, where both arms sit at the metric's floor (``stats.Rule.floor``) or at
  a ceiling the caller names: a verdict is never read off a floor or a ceiling.

A row whose rule differs says why, in its own words beside this one.

Beside each verdict, the design's power, so that an inconclusive row says what would
decide it (issue 73, item 4):

* ``detectable``: the smallest distance of the true d from the threshold that this
  design (its seeds and spread) decides at 80% power, (t_0.975 + t_0.80) · se;
* ``seeds_to_decide``: the fewest seeds an arm at which the observed d, were its mean and
  spread the truth, would be decided at 80% power: the smallest n with
  (t_0.975 + t_0.80) · se(n) ≤ |d − threshold|, where the seeds' part of the standard
  error shrinks as 1/√n, its degrees of freedom grow as n − 1, and a part that seeds do
  not shrink (``fixed_se``: what every seed of a BLEU test shares of the sentences'
  error, all scored on one test set; bleu_tests' ``sentence_fixed_se``) stays. None where d sits on the threshold, or where that fixed part alone
  keeps the threshold inside (``seeds_cannot_decide``: more test sentences would, not
  more seeds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attention_research.reports import stats

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
ABOVE, BELOW = +1, -1
POWER = 0.8
WORDS = ("reproduced when the 95% interval lies beyond the minimum effect in the paper's "
         "direction; not reproduced when it rules the minimum effect out in that direction; "
         "inconclusive otherwise, and at a floor or a ceiling")


@dataclass(frozen=True)
class Claim:
    """A paper's claim about d: beyond ``threshold`` in ``direction`` (ABOVE or BELOW)."""
    threshold: float
    direction: int

    def __post_init__(self):
        if self.direction not in (ABOVE, BELOW):
            raise ValueError(f"direction {self.direction!r}: expected ABOVE (+1) or BELOW (-1)")

    def words(self) -> str:
        return f"d {'>' if self.direction == ABOVE else '<'} {self.threshold:+g}"


@dataclass(frozen=True)
class Decision:
    verdict: str
    interval: stats.Interval | None  # d with its 95% interval
    se: float | None  # d's standard error
    dof: float | None
    seeds: int  # seeds an arm (the smaller arm's)
    why: str  # which end of the interval decided it, or what stops a decision
    detectable: float | None  # smallest |true d − threshold| decided at 80% power
    seeds_to_decide: int | None  # seeds an arm that would decide the observed d
    stopped: bool = False  # a floor, a ceiling or a guard withholds the verdict: no seeds can
    # The test set's own error (the part of se no number of seeds shrinks) keeps the
    # observed d from being decided, however many seeds train.
    seeds_cannot_decide: bool = False
    # The statistic's whole range (stats.Rule.span): a detectable effect beyond it means
    # the design detects none. None: unbounded or not known.
    span: float | None = None

    def words(self, digits: int = 3) -> str:
        """'d = +0.041 [+0.012, +0.070] (12 seeds an arm): reproduced; detects 0.030 at
        80% power'."""
        if self.interval is None:
            return self.why
        d = self.interval
        text = (f"d = {d.mean:+.{digits}f} [{d.low:+.{digits}f}, {d.high:+.{digits}f}] "
                f"({self.seeds} seeds an arm): {self.verdict} ({self.why})")
        if self.detectable is not None:
            text += f"; the design detects {self.detectable:.{digits}f} at 80% power"
        if self.verdict == INCONCLUSIVE and not self.stopped:
            if self.seeds_cannot_decide:
                text += ("; no number of seeds would decide the observed d: the test "
                         "set's own error holds the threshold")
            elif self.seeds_to_decide is not None:
                text += f"; about {self.seeds_to_decide} seeds an arm would decide the observed d"
        return text


def _quantiles(dof: float, level: float = stats.LEVEL) -> float:
    t = stats._t()
    if math.isinf(dof):
        from scipy.stats import norm
        return float(norm.ppf(1 - level / 2) + norm.ppf(POWER))
    return float(t.ppf(1 - level / 2, dof) + t.ppf(POWER, dof))


MOST_SEEDS = 1_000_000  # where the search for the seeds that decide gives up


def _fixed_part_holds(fixed_se: float, distance: float, level: float) -> bool:
    """Whether the error no number of seeds shrinks keeps a true d ``distance`` from the
    threshold from being decided at 80% power, however many seeds train."""
    return bool(distance) and _quantiles(math.inf, level) * fixed_se >= abs(distance)


def seeds_needed(seeds: int, se: float, dof: float, distance: float,
                 fixed_se: float = 0.0, level: float = stats.LEVEL,
                 arm_variances: tuple[float, float] | None = None) -> int | None:
    """The fewest seeds an arm at which a true d ``distance`` from the threshold is
    decided at 80% power, from a design of ``seeds`` an arm whose d has standard error
    ``se`` (of which ``fixed_se`` does not shrink with seeds) on ``dof`` degrees of
    freedom: the seeds' variance shrinks as 1/n and their degrees of freedom grow as
    n − 1. With ``arm_variances`` (each arm's variance over its seeds, for arms of
    unequal size, where ``se`` and ``seeds`` alone would misweigh them) d's variance at n
    an arm is their sum over n, on Welch's degrees of freedom at n. None where no number
    of seeds does it (d on the threshold, or the fixed part alone too wide)."""
    distance = abs(distance)
    if not distance or not se > 0 or not dof > 0 or seeds < 2:
        return None
    if _fixed_part_holds(fixed_se, distance, level):
        return None
    if arm_variances is not None:
        one_seed = sum(arm_variances)  # d's seed variance with one seed an arm
        welch_factor = one_seed ** 2 / sum(v ** 2 for v in arm_variances)
    else:  # equal arms: the same two figures, from the design's own
        one_seed = max(se ** 2 - fixed_se ** 2, 0.0) * seeds
        welch_factor = dof / (seeds - 1)

    def decides(n: int) -> bool:
        spread = math.sqrt(one_seed / n + fixed_se ** 2)
        return _quantiles(welch_factor * (n - 1), level) * spread <= distance

    low, high = 2, seeds
    while not decides(high):  # double, then bisect: decides(n) only turns true once
        low, high = high, 2 * high
        if high > MOST_SEEDS:
            return None
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if decides(middle) else (middle + 1, high)
    return high


def decide_interval(interval: stats.Interval, se: float, dof: float, seeds: int,
                    claim: Claim, stopped: str = "", fixed_se: float = 0.0,
                    level: float = stats.LEVEL, span: float | None = None,
                    arm_variances: tuple[float, float] | None = None) -> Decision:
    """The rule on d's interval, its standard error and degrees of freedom, with
    ``seeds`` an arm. ``stopped``: why no verdict may be read (a floor, a ceiling), or "".
    ``fixed_se``: the part of ``se`` more seeds do not shrink (a test set's sentences);
    ``level``: the interval's (a Bonferroni-corrected contrast's), for its power;
    ``arm_variances``: each arm's variance over seeds, where the arms differ in size."""
    distance = interval.mean - claim.threshold
    factor = _quantiles(dof, level) if dof > 0 else math.inf
    detectable = factor * se if math.isfinite(factor) and se > 0 else None
    needed = seeds_needed(seeds, se, dof, distance, fixed_se, level, arm_variances)
    cannot = _fixed_part_holds(fixed_se, distance, level)
    beyond = interval.low > claim.threshold if claim.direction == ABOVE else interval.high < claim.threshold
    ruled_out = interval.high < claim.threshold if claim.direction == ABOVE else interval.low > claim.threshold
    if stopped:
        verdict, why = INCONCLUSIVE, stopped
    elif beyond:
        verdict, why = REPRODUCED, f"the interval lies beyond {claim.threshold:+g}"
    elif ruled_out:
        verdict, why = NOT_REPRODUCED, f"the interval rules out {claim.threshold:+g}"
    else:
        verdict, why = INCONCLUSIVE, f"the interval holds {claim.threshold:+g}"
    return Decision(verdict, interval, se, dof, seeds, why, detectable, needed, bool(stopped),
                    cannot, span)


def decide(a, b, claim: Claim, rule: stats.Rule, ceiling: float | None = None,
           level: float = stats.LEVEL, stopped: str = "") -> Decision:
    """d = mean(a) − mean(b) over seeds (Welch), decided against ``claim`` on its
    (1 − ``level``) interval (a rule correcting over a family passes a smaller level).
    No verdict where both arms' means are under ``rule.floor`` or at or above
    ``ceiling``, or where the caller names another ``stopped`` reason (a guard)."""
    x, y = stats.finite(a), stats.finite(b)
    seeds = min(len(x), len(y))
    interval = stats.difference_interval(x, y, level)
    test = stats.welch(x, y)
    if interval is None or test is None:
        return Decision(INCONCLUSIVE, None, None, None, seeds,
                        "under 2 seeds on a side: no test", None, None)
    constants = stats.constant(x) and stats.constant(y)
    se = 0.0 if constants else math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    means = (float(x.mean()), float(y.mean()))
    if rule.floor is not None and max(means) < rule.floor:
        stopped = f"both arms under the floor {rule.floor:g}"
    elif ceiling is not None and min(means) >= ceiling:
        stopped = f"both arms at the ceiling (≥ {ceiling:g})"
    elif constants and x[0] == y[0]:
        # Two arms at one constant (every seed at 1.0, say): an interval of [0, 0] would
        # 'rule out' any threshold; it is a floor or a ceiling the caller did not name.
        stopped = "both arms the same constant on every seed: nothing to test"
    elif constants and test.p >= level:
        # Each arm one value on every seed: the interval is a point, which would decide
        # any threshold by construction. The exact permutation test is the only test
        # (welch's): a verdict needs it below the level, as an interval would.
        stopped = (f"each arm one value on every seed: no interval; the exact permutation "
                   f"test gives p = {test.p:.2g}, too few seeds to separate them")
    unequal = (x.var(ddof=1), y.var(ddof=1)) if len(x) != len(y) else None
    return decide_interval(interval, se, test.dof, seeds, claim, stopped, level=level,
                           span=rule.span, arm_variances=unequal)


def decide_level(values, claim: Claim, rule: stats.Rule | None = None) -> Decision:
    """One arm's mean over seeds (its t interval) against ``claim``'s threshold, for a
    claim about a level (e.g. "keeps at least half its accuracy"). With ``rule``, no
    verdict where the mean and the threshold are both under its floor."""
    x = stats.finite(values)
    interval = stats.t_interval(x)
    if interval.low is None:
        return Decision(INCONCLUSIVE, None, None, None, len(x),
                        "under 2 seeds: no interval", None, None)
    se = float(x.std(ddof=1) / math.sqrt(len(x)))
    floor = rule.floor if rule is not None else None
    stopped = (f"the level and its threshold under the floor {floor:g}"
               if floor is not None and max(claim.threshold, interval.mean) < floor else "")
    return decide_interval(interval, se, len(x) - 1, len(x), claim, stopped,
                           span=rule.span if rule is not None else None)


def all_of(decisions: list[Decision]) -> str:
    """Several contrasts that must all hold (an intersection-union test, no correction):
    reproduced if every one is, not reproduced if any one is, else inconclusive."""
    verdicts = [d.verdict for d in decisions]
    if verdicts and all(v == REPRODUCED for v in verdicts):
        return REPRODUCED
    return NOT_REPRODUCED if NOT_REPRODUCED in verdicts else INCONCLUSIVE


# What this project's CPU trains in a day: two cores (issue 73, item 4: a row whose
# deciding seeds cost more says so).
CPU_DAY_S = 2 * 24 * 3600


def member_seconds(results) -> float | None:
    """One member's training wall time in ``results`` (a record's folder): its
    summary.md's seconds over its members (each cohort's members train together, on one
    core), or None where it states none."""
    from experiments.lab.costs import recorded_cost
    cost = recorded_cost(results)
    return cost.seconds / cost.members if cost and cost.members else None


class Power(str):
    """A power cell's words, carrying what the page reads of them: the seeds an arm
    that would decide the row's weakest undecided contrast (None where none are
    named: the row is decided, stopped, or no number of seeds would decide it)."""

    seeds_to_decide: int | None = None

    @classmethod
    def of(cls, text: str, seeds_to_decide: int | None = None) -> "Power":
        power = cls(text)
        power.seeds_to_decide = seeds_to_decide
        return power

    def after(self, words: str) -> "Power":
        """``words`` then this cell, still carrying its seeds (a plain ``+`` drops them)."""
        return Power.of(words + self, self.seeds_to_decide)


def _detects(decision: Decision) -> str:
    """'detects 0.1', or, where that exceeds the statistic's whole range, that the design
    detects no effect on it (a referee read 'detects 1.99' on an accuracy)."""
    if decision.span is not None and decision.detectable > decision.span:
        return (f"detects no effect on this scale ({decision.detectable:.3g} exceeds its "
                f"range, {decision.span:g})")
    return f"detects {decision.detectable:.3g}"


STOPPED = "stopped (a floor, a ceiling or a guard: the row says which)"


def power_words(decisions: list[Decision], member_seconds: float | None = None,
                arms: int = 2) -> Power:
    """The summary table's power cell for a row decided by ``decisions`` (the contrasts
    its verdict needs): the smallest effect the weakest of them detects at 80% power;
    for an undecided one, the seeds an arm that would decide its observed d and, given
    ``member_seconds`` (one member's training, from the record), what the extra members
    of ``arms`` arms cost, or that they are beyond a day of this CPU."""
    tested = [d for d in decisions if d.detectable is not None]
    # A stopped contrast (a floor, a ceiling, a guard, or two arms one constant apiece
    # with no interval) is beyond any seeds, whatever another contrast would need: the
    # cell says so, never a seed count (a referee: it had been dropped when another
    # undecided contrast needed more seeds, or had no detectable effect at all).
    stopped = any(d.stopped for d in decisions if d.verdict == INCONCLUSIVE)
    if not tested:
        return Power.of(STOPPED if stopped else "no test")
    undecided = [d for d in tested if d.verdict == INCONCLUSIVE]
    if stopped:
        weakest = max(undecided or tested, key=lambda d: d.detectable)
        return Power.of(f"{_detects(weakest)}; {STOPPED}")
    if not undecided:
        return Power.of(_detects(max(tested, key=lambda d: d.detectable)))
    weakest = max(undecided, key=lambda d: (d.seeds_to_decide or math.inf))
    text = _detects(weakest)
    if weakest.seeds_cannot_decide:
        return Power.of(text + "; no number of seeds decides it (more test sentences would)")
    if weakest.seeds_to_decide is None:
        return Power.of(text + "; d sits on the threshold")
    text += f"; about {weakest.seeds_to_decide} seeds an arm decide"
    if member_seconds:
        extra = max(weakest.seeds_to_decide - weakest.seeds, 0) * arms * member_seconds
        text += (" (beyond a day of this CPU)" if extra > CPU_DAY_S
                 else f" ({extra / 3600:.1f} more core-hours)")
    return Power.of(text, weakest.seeds_to_decide)
