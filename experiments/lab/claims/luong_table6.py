"""The claims experiments/luong_table6.py's records decide (rows of experiments/FINDINGS.md):
Luong et al.'s Table 6 where alignments are known, alignment accuracy on reverse, by the
rules the experiment file wrote before its runs (RULES), through the lab's one decision
rule (experiments/lab/rule.py).
"""

from attention_research.metric_names import column, length_range
from attention_research.reports import stats
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.luong_table6 import (  # noqa: F401
    ALIGNMENT, MIN_EFFECT, REPLICATION_SEEDS, RULES, SCORE, SEEDS, STATISTIC, TASK)
from experiments.lab import rule

LOCATION_KEY, LOCAL_P_KEY = "location-aligns-poorly", "local-p-aligns-better-than-location"
REPLICATED = (LOCATION_KEY, LOCAL_P_KEY)
# Both rules reach "not reproduced" by an interval that rules the claim out: a positive
# finding the other way, replicated as well.
SEPARATES_BOTH_WAYS = REPLICATED
PER_ARM = len(SEEDS)  # both runs train 12 seeds an arm (the page's replication counts)
PAPER = ("Luong et al. 2015, §5.3: the location function does not learn good alignments "
         "(its small gain from unknown-word replacement, Table 4); §5.4, Table 6, AER on "
         "RWTH's 508 hand-aligned De-En sentences (lower is better): global (location) "
         "0.39, local-m (general) 0.34, local-p (general) 0.36. Table 6 gives no AER for "
         "global dot or general")
LOCAL_P_PAPER = ("Luong et al. 2015, §5.4, Table 6 (AER): local-p (general) 0.36 against "
                 "global (location) 0.39, so local attention aligns better than global")
# Qualified after a referee's audit (issue 73): at this budget poorer and slower are not
# told apart, and global general aligns as well as local-p (general).
LOCAL_P_TITLE = ("Local-p (general) aligns better than global location, as global general "
                 "does (at 1,500 steps)")
LOCATION_TITLE = "The location function aligns poorly (reverse, at 1,500 steps)"
NAMES = {"location": {SCORE: "location"}, "dot": {SCORE: "dot"},
         "general": {SCORE: "general"},
         "local-m (general)": {SCORE: "general", ALIGNMENT: "local_m"},
         "local-p (general)": {SCORE: "general", ALIGNMENT: "local_p"}}


def _mean(f, rows, metric: str, name: str) -> float:
    values = f.column(rows, column(metric, length_range(1, 25)), setting=_setting(NAMES[name]))
    return sum(values) / len(values)


def _sizes(f, results, first: float) -> str:
    """On the first run's record, whether its location − dot (``first``) lies inside the
    replication's interval (the direction may replicate without the size)."""
    fresh = results.parent / f"{results.name}_replication"
    if results.name.endswith("_replication") or not (fresh / "summary.csv").is_file():
        return ""
    rows = [r for r in f.report_rows(fresh) if r.get("status") == "finished"]
    again = stats.difference_interval(
        f.column(rows, STATISTIC, setting=_setting(NAMES["location"])),
        f.column(rows, STATISTIC, setting=_setting(NAMES["dot"])))
    if again is None or again.low is None:
        return ""
    inside = again.low <= first <= again.high
    return (f". The first run's location − dot, {first:+.3f}, lies "
            f"{'inside' if inside else 'outside'} the replication's interval "
            f"[{again.low:+.3f}, {again.high:+.3f}]"
            + ("" if inside else ": the direction replicates, the exact size does not"))


def _setting(arm: dict) -> str:
    return sweeps.member_name({**arm, "config.task.name": TASK})


def findings(results):
    """Location against dot and general, and local-p (general) against location: each
    arm's alignment accuracy on reverse, its finished members of the record (the first
    run's seeds 300-311 or the replication's 320-331, whichever the folder holds)."""
    from experiments.lab import findings as f
    from attention_research.reports.tables import interval_cell as cell
    rows = [r for r in f.report_rows(results) if r.get("status") == "finished"]
    accuracy = {name: f.column(rows, STATISTIC, setting=_setting(arm))
                for name, arm in NAMES.items()}
    done = sum(min(len(v), PER_ARM) for v in accuracy.values())
    if done < len(NAMES) * PER_ARM:
        what = f"{f.progress(results, rows, [_setting(a) for a in NAMES.values()], PER_ARM)}"
        return [f.pending(LOCATION_KEY, LOCATION_TITLE, PAPER, what),
                f.pending(LOCAL_P_KEY, LOCAL_P_TITLE, LOCAL_P_PAPER,
                          what)]
    arms = (f"alignment accuracy (the attention's argmax on the true source position, "
            f"L - 1 - t) on reverse, lengths 1-25, step 1500, {PER_ARM} seeds an arm: "
            + ", ".join(f"{name} {cell(values)}" for name, values in accuracy.items()))
    below = rule.Claim(-MIN_EFFECT, rule.BELOW)
    location = accuracy["location"]
    # RULES: reproduced if both 95% intervals lie below -0.02 (every contrast must hold);
    # not reproduced if either 97.5% interval (Bonferroni over the two) lies above it.
    decided = {other: (rule.decide(location, accuracy[other], below, stats.ACCURACY),
                       rule.decide(location, accuracy[other], below, stats.ACCURACY,
                                   level=stats.LEVEL / 2))
               for other in ("dot", "general")}
    if rule.all_of([at_95 for at_95, _ in decided.values()]) == rule.REPRODUCED:
        verdict = rule.REPRODUCED
    elif any(at_975.verdict == rule.NOT_REPRODUCED for _, at_975 in decided.values()):
        verdict = rule.NOT_REPRODUCED
    else:
        verdict = rule.INCONCLUSIVE
    tests = "; ".join(f"location − {other}: {at_95.words()}"
                      for other, (at_95, _) in decided.items())
    local_p = rule.decide(accuracy["local-p (general)"], location,
                          rule.Claim(MIN_EFFECT, rule.ABOVE), stats.ACCURACY)
    general = rule.decide(accuracy["local-p (general)"], accuracy["general"],
                          rule.Claim(MIN_EFFECT, rule.ABOVE), stats.ACCURACY)
    at_003 = all(at_95.interval.high < -0.03 for at_95, _ in decided.values())
    shown = ("local-m (general) is shown, read by no rule: its window [t - 10, t + 10] "
             "misses reverse's position L - 1 - t at some step of every source of 12 "
             "words or more, so its best possible score on lengths 1-25 is 0.655; it "
             "scores at that bound (it aligns wherever its window allows), and Table 6's "
             "best arm cannot be tested on reverse")
    caveats = (
        "A synthetic test of content-blind, length-dependent positioning, with a source "
        "order Luong did not use (they reversed the source, which makes reverse a copy, "
        "where location scores 1.000 in compare_attention's record), and "
        "a bidirectional encoder whose backward states encode the distance to the end, "
        "which dot and general can match; not a reproduction of AER on translation. The "
        "task and this design were sized from compare_attention's reverse result, so "
        "this confirms a known result on fresh seeds. Alignment accuracy here is 1 - AER "
        "with one sure link a word: the same units as Table 6, another regime. The "
        "budget does not separate poorer from slower: location is still rising at step "
        "1500 (the cosine schedule reaches zero there); location trained 3x as long "
        "would decide it. Location's deficit is blurred attention whose argmax slips by "
        "a position near the source's end, mostly not wrong outputs (token accuracy "
        f"{_mean(f, rows, 'token_acc', 'location'):.3f}). The minimum effect, 0.02, is "
        f"below Table 6's smallest gap (0.03); at 0.03 both intervals "
        f"{'still' if at_003 else 'no longer'} lie beyond it"
        + _sizes(f, results, decided["dot"][0].interval.mean))
    regime = ("Not Luong's regime: reverse's alignment is one sure link a step, and "
              "general and local-p both sit at its ceiling")
    plot = "results/luong_table6/plots/attention_score-location_task-reverse.png"
    return [
        f.Finding(LOCATION_KEY, LOCATION_TITLE, PAPER,
                  f"{arms}. Tests: {tests}", verdict,
                  f"{RULES[LOCATION_KEY]} (the lab's one decision rule: {rule.WORDS}); at "
                  f"step 1500. {shown}. {caveats}", plot,
                  power=rule.power_words([at_95 for at_95, _ in decided.values()],
                                         rule.member_seconds(results))),
        f.Finding(LOCAL_P_KEY, LOCAL_P_TITLE, LOCAL_P_PAPER,
                  f"{arms}. Test: local-p (general) − location: {local_p.words()}. Shown, "
                  f"read by no rule: local-p (general) − global general: "
                  f"{general.interval.mean:+.4f} [{general.interval.low:+.4f}, "
                  f"{general.interval.high:+.4f}]",
                  local_p.verdict,
                  f"{RULES[LOCAL_P_KEY]} (the lab's one decision rule: {rule.WORDS}); at "
                  f"step 1500. The registered text's \"beyond length 21\" is wrong: local-m "
                  f"fails from 12 words (the location row). Local-p adds nothing over global general here: the gap is "
                  f"general's over location, the confound Table 6 has too (it pairs the "
                  f"local arms with general and the global arm with location). {regime}. "
                  f"{caveats}",
                  "results/luong_table6/plots/attention_score-general_alignment-local_p_task-reverse.png",
                  power=rule.power_words([local_p], rule.member_seconds(results)),
                  # local-p (general) and global general align alike, so this reads the
                  # location row's effect again: not counted twice (issue 73's referee).
                  repeats=LOCATION_KEY),
    ]
