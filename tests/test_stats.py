"""The statistics of the reports against known values."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from attention_research.reports import stats

# Welch's worked example (Wikipedia, "Welch's t-test", example 1): t = −2.46,
# ν = 24.99, p = 0.021.
A = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
     21.4]
B = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
     24.4]


def test_t_interval_matches_the_textbook_quantile():
    interval = stats.t_interval([1, 2, 3, 4, 5])
    # t_{0.975, 4} = 2.776445; s = √2.5; half-width = 2.776445 · √2.5 / √5.
    assert interval.n == 5 and interval.mean == 3.0
    assert interval.half_width == pytest.approx(2.776445105 * math.sqrt(2.5 / 5), rel=1e-8)
    assert interval.cell() == "3.000 ± 1.963"
    # scipy's own interval routine agrees.
    low, high = scipy_stats.t.interval(0.95, 4, loc=3.0, scale=scipy_stats.sem([1, 2, 3, 4, 5]))
    assert (interval.low, interval.high) == pytest.approx((low, high))


def test_t_interval_of_one_or_no_value_has_no_width():
    assert stats.t_interval([0.5]).cell() == "0.500"
    assert stats.t_interval([None, float("nan")]).cell() == "—"
    assert stats.t_interval([0.5, None]).n == 1


def test_welch_reproduces_the_worked_example():
    test = stats.welch(A, B)
    assert test.t == pytest.approx(-2.46, abs=0.005)
    assert test.dof == pytest.approx(24.99, abs=0.005)
    assert test.p == pytest.approx(0.021, abs=0.0005)
    reference = scipy_stats.ttest_ind(A, B, equal_var=False)
    assert (test.t, test.p) == pytest.approx((reference.statistic, reference.pvalue))


def test_welch_degenerate_cases():
    assert stats.welch([1.0], [0.0, 1.0]) is None  # one seed: no test
    assert stats.welch([1.0, 1.0], [1.0, 1.0]).p == 1.0
    # Two constant groups that differ: not p = 0 (issue 35) but the exact permutation
    # test, as scipy's permutation_test computes it over every split of the pooled seeds.
    constant = stats.welch([1.0] * 5, [0.5] * 5)
    assert constant.method.startswith("permutation")
    exact = scipy_stats.permutation_test(([1.0] * 5, [0.5] * 5),
                                         lambda x, y: np.mean(x) - np.mean(y),
                                         permutation_type="independent", n_resamples=10**6)
    assert constant.p == pytest.approx(exact.pvalue) == pytest.approx(2 / 252)
    assert stats.welch([1.0, 1.0], [0.5, 0.5]).p == pytest.approx(1 / 3)
    # A constant that floating point cannot hold exactly: three 0.9s have a computed
    # variance of about 1e-32, not 0. They are constant all the same (a referee's case:
    # Welch on that variance gave p = 6e-31).
    nines = stats.welch([0.9] * 3, [0.8] * 3)
    assert nines.method.startswith("permutation") and nines.p == pytest.approx(0.1)
    point = stats.difference_interval([0.9] * 3, [0.8] * 3)
    assert point.low == point.mean == point.high == pytest.approx(0.1)


def test_no_direction_is_named_at_the_floor_or_under_the_minimum_effect():
    """issue 35: 0.009 against 0.002 (every seed of one setting 0) is 'separated' by
    Welch, a one-sample test in disguise; the rule names no direction there."""
    floor = stats.contrast([0.008, 0.009, 0.010, 0.009, 0.009], [0.0] * 5, stats.ACCURACY)
    assert floor.test.p < 0.05 and floor.outcome == stats.AT_FLOOR
    assert not floor.above and "both at the floor" in floor.words()
    small = stats.contrast([0.700, 0.701, 0.702, 0.701, 0.701],
                           [0.690, 0.691, 0.692, 0.691, 0.691], stats.ACCURACY)
    assert small.test.p < 0.05 and small.outcome == stats.UNDER_EFFECT
    clear = stats.contrast([0.70, 0.72, 0.68, 0.71, 0.69], [0.60, 0.62, 0.58, 0.61, 0.59],
                           stats.ACCURACY)
    assert clear.above and clear.difference.low > 0
    assert clear.words().startswith("difference +0.100 [")
    # beside a Holm-corrected p the 95% interval is the single test's: it says so
    assert ", unadjusted], Welch t = " in clear.words(corrected=True)
    assert stats.contrast([1.0, 2.0], [1.5], stats.ANY).outcome == stats.NO_TEST
    # Steps: lower is better, no floor; 'above' still means the larger mean.
    slower = stats.contrast([1300, 1320, 1340], [1000, 1020, 1040], stats.STEPS)
    assert slower.above


def test_contrasts_are_one_holm_family_across_metrics():
    a, b = [0.70, 0.72, 0.68, 0.71, 0.69], [0.66, 0.68, 0.64, 0.67, 0.65]
    steps_a, steps_b = [1300, 1350, 1250], [1000, 1100, 1050]
    alone = stats.contrast(a, b, stats.ACCURACY)
    family = stats.contrasts([(a, b, stats.ACCURACY), (steps_a, steps_b, stats.STEPS)])
    p_values = [stats.welch(a, b).p, stats.welch(steps_a, steps_b).p]
    assert [c.p for c in family] == pytest.approx(stats.holm(p_values))
    assert family[0].p >= alone.p
    with pytest.raises(ValueError, match="needs a rule"):
        stats.contrasts([(a, b)])


def test_difference_interval_is_scipys_welch_interval():
    a, b = [1.0, 2.0, 3.5], [0.0, 0.4, 1.1, 0.2]
    expected = scipy_stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    got = stats.difference_interval(a, b)
    assert got.mean == pytest.approx(sum(a) / 3 - sum(b) / 4)
    assert (got.low, got.high) == pytest.approx((expected.low, expected.high))
    assert stats.difference_interval([1.0], b) is None
    same = stats.difference_interval([0.5, 0.5], [0.25, 0.25])
    assert (same.low, same.mean, same.high) == (0.25, 0.25, 0.25)


def test_holm_adjusts_step_down():
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 -> kept at 0.06
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_separation_names_a_winner_only_when_every_test_separates():
    clear = stats.separation({"a": [0.90, 0.91, 0.92], "b": [0.50, 0.52, 0.51],
                              "c": [0.30, 0.31, 0.29]})
    assert clear.winner == "a" and clear.tied == []
    close = stats.separation({"a": [0.90, 0.80, 0.95], "b": [0.88, 0.85, 0.90],
                              "c": [0.10, 0.12, 0.11]})
    assert close.leader == "a" and close.winner is None and close.tied == ["b"]
    single = stats.separation({"a": [0.9], "b": [0.1]})  # one seed each: nothing testable
    assert single.leader == "a" and single.winner is None
    lower = stats.separation({"a": [1.0, 1.1], "b": [3.0, 3.1]}, higher_is_better=False)
    assert lower.winner == "a"


def test_area_under_curve_and_first_crossing():
    curve = {0: 0.0, 50: 0.5, 100: 1.0, 200: 1.0}
    # trapezoids: 50·0.25 + 50·0.75 + 100·1.0 = 150 over 200 steps
    assert stats.area_under_curve(curve, 200) == pytest.approx(0.75)
    assert stats.area_under_curve(curve, 300) is None  # not evaluated at the end
    assert stats.first_crossing(curve, 0.99) == 100
    assert stats.first_crossing(curve, 1.01) is None


def test_untrained_dot_scores_grow_as_root_d_and_scaled_dot_stays_flat():
    from attention_research.reports.score_statistics import measure
    small, large = (measure("dot", d, seed=0, queries=64) for d in (4, 64))
    assert large["score_std"] / small["score_std"] == pytest.approx(4.0, rel=0.15)
    assert large["entropy"] < small["entropy"]
    assert large["jacobian_norm"] < small["jacobian_norm"]
    flat = [measure("scaled_dot", d, seed=0, queries=64)["score_std"] for d in (4, 64)]
    assert flat[1] / flat[0] == pytest.approx(1.0, rel=0.15)
