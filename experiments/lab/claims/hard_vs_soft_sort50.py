"""The claim experiments/hard_vs_soft_sort50.py's records decide (a row of
experiments/FINDINGS.md): Xu et al.'s hard attention against soft, at convergence, in
distribution, on sort trained and tested on lengths 1-50, by the rule the experiment file
wrote and committed before any member trained (RULES, 8c50afe), through the lab's one
decision rule (experiments/lab/rule.py).

Written while the first members trained, before any result was read. The row takes over
hard_vs_soft_converged's row of the same key once this record holds every member of
the two ruled arms (``supersedes``); until then that row stands and this waits. B = 64's
scale, beside, trains twice as long and is read once it is recorded.

The convergence guard reads each arm's seed mean of sequence accuracy on 1-50 from its
learning curve (metrics.jsonl), the only per-evaluation accuracy these runs record; the
fallback to lengths 26-50 (soft at the ceiling on 1-50) reads the final per-length
accuracies, and its guard still reads the 1-50 curve.
"""

from pathlib import Path

from attention_research.metric_names import eval_key, length_range
from attention_research.reports import stats
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.hard_vs_soft_sort50 import (  # noqa: F401
    CEILING, FALLBACK, GUARD_STEP, MAX_LENGTH, MIN_EFFECT, NUM_STEPS, REPLICATION_SEEDS,
    RULES, SEEDS, SOFT, WIDE_GUARD_STEP, WIDE_STEPS, XU_16, XU_64)
from experiments.lab import rule
from experiments.lab.claims.hard_vs_soft import XU_TABLE

KEY = "hard-attention-accuracy"
REPLICATED = (KEY,)
SEPARATES_BOTH_WAYS = REPLICATED  # "not reproduced" only by an interval that rules it out
PER_ARM = len(SEEDS)
ACCURACY = eval_key("seq_acc", length_range(1, MAX_LENGTH))
NAMES = {"soft": sweeps.member_name(SOFT), "B = 16": sweeps.member_name(XU_16),
         "B = 64": sweeps.member_name(XU_64)}
RULED = ("soft", "B = 16")  # the arms the row needs; B = 64 is beside
BUDGETS = {"soft": (GUARD_STEP, NUM_STEPS), "B = 16": (GUARD_STEP, NUM_STEPS),
           "B = 64": (WIDE_GUARD_STEP, WIDE_STEPS)}
TITLE = "Hard attention (Xu's estimator) against soft, at convergence"


def replication_seed_words(_):
    """The replication's own seeds (430-439), not the project's 100-102."""
    return f"seeds {REPLICATION_SEEDS[0]}–{REPLICATION_SEEDS[-1]}", len(REPLICATION_SEEDS)


def supersedes(results) -> bool:
    """Whether this record decides the row (both ruled arms finished):
    hard_vs_soft_converged's row of the same key then gives way."""
    from experiments.lab import findings as f
    return all(len(f.member_finals(results, NAMES[arm])) >= PER_ARM for arm in RULED)


def _accuracy_at(f, results, name: str, step: int) -> list[float]:
    return f.member_values(results, name, ACCURACY, step)


def _still_rising(f, results, arms) -> list[str]:
    """The arms whose seed mean on 1-50 at the end of their budget exceeds their mean at
    two thirds of it by more than the minimum effect (the rule's convergence guard)."""
    rising = []
    for arm in arms:
        guard, last = BUDGETS[arm]
        early, late = (stats.finite(_accuracy_at(f, results, NAMES[arm], step))
                       for step in (guard, last))
        if len(early) and len(late) and late.mean() - early.mean() > MIN_EFFECT:
            rising.append(f"{arm} ({early.mean():.3f} at step {guard}, "
                          f"{late.mean():.3f} at {last})")
    return rising


def findings(results):
    """The row on the record's finished members (seeds 420-429, or the replication's
    430-439); [] on the first record until both ruled arms are complete."""
    from experiments.lab import findings as f
    finals = {arm: f.member_finals(results, name) for arm, name in NAMES.items()}
    if min(len(finals[arm]) for arm in RULED) < PER_ARM:
        if not Path(results).name.endswith("_replication"):
            return []  # hard_vs_soft_converged's row of this key stands
        return [f.pending(KEY, TITLE, XU_TABLE, (
            f"sort 1-{MAX_LENGTH}, soft against Xu's estimator at B = 16, {PER_ARM} seeds an "
            f"arm: {sum(min(len(finals[a]), PER_ARM) for a in RULED)} of "
            f"{len(RULED) * PER_ARM} members recorded"))]
    return [_accuracy(f, results, finals)]


def _statistic(finals) -> tuple[str, dict]:
    """The lengths the rule reads and each arm's per-seed accuracy on them: 1-50, or
    26-50 where soft's mean on 1-50 is at the ceiling."""
    whole = {arm: [m["final"][ACCURACY] for m in members] for arm, members in finals.items()}
    if stats.finite(whole["soft"]).mean() < CEILING:
        return f"1-{MAX_LENGTH}", whole
    first, last = FALLBACK
    from experiments.lab import findings as f
    return f"{first}-{last}", {
        arm: [f.mean_accuracy(m["seq_acc_by_length"], first, last) for m in members]
        for arm, members in finals.items()}


def _accuracy(f, results, finals):
    from attention_research.reports.tables import interval_cell as cell
    lengths, values = _statistic(finals)
    above = rule.Claim(MIN_EFFECT, rule.ABOVE)
    wide_recorded = len(finals["B = 64"]) >= PER_ARM
    arms = ["B = 16"] + (["B = 64"] if wide_recorded else [])
    soft = stats.finite(values["soft"])
    decided = {}
    for arm in arms:
        stops = ([f"soft at the ceiling on {lengths} ({soft.mean():.3f} ≥ {CEILING:g})"]
                 if soft.mean() >= CEILING else [])
        rising = _still_rising(f, results, ["soft", arm])
        stops += ["still rising: " + "; ".join(rising)] if rising else []
        decided[arm] = rule.decide(values[arm], values["soft"], above, stats.ACCURACY,
                                   stopped="; ".join(stops))
    verdict = decided["B = 16"].verdict
    if not wide_recorded:
        scales = (f"B = 64 (trained {WIDE_STEPS:,} steps) is not recorded yet: "
                  f"{len(finals['B = 64'])} of {PER_ARM} seeds")
    elif decided["B = 64"].verdict == verdict:
        scales = "the two scales agree"
    else:
        scales = f"B = 64 gives {decided['B = 64'].verdict}: the verdict depends on the scale"
    curves = "; ".join(
        f"{arm} " + ", ".join(f"{cell(_accuracy_at(f, results, NAMES[arm], step))} at "
                              f"{step:,}" for step in BUDGETS[arm])
        for arm in NAMES if finals[arm])
    ours = (f"sort, greedy sequence accuracy on held-out sequences of the trained lengths "
            f"{lengths} at the last step, {PER_ARM} seeds an arm (mean ± the half-width of "
            f"its 95% interval): " + ", ".join(f"{arm} {cell(v)}" for arm, v in
                                                values.items() if v)
            + ". Tests: " + "; ".join(f"{arm} - soft {d.words()}" for arm, d in decided.items())
            + f". {scales}. Seed means on 1-{MAX_LENGTH} at two thirds of each budget and at "
            f"its end (the convergence guard): {curves}")
    return f.Finding(KEY, TITLE, XU_TABLE, ours, verdict,
                     f"{RULES[KEY]} (the lab's one decision rule: {rule.WORDS}). On sort, "
                     "not captioning: Xu's claim is about BLEU on images, and exact-match "
                     "sort cannot show the regularising effect Xu report for BLEU. The "
                     "optimiser, learning rate, schedule and gradient clipping are this "
                     "project's defaults, tuned for soft attention, not for hard",
                     power=rule.power_words([decided["B = 16"]],
                                            rule.member_seconds(Path(results))))
