"""The claims experiments/relative_positions.py's records decide (rows of
experiments/FINDINGS.md): Shaw et al.'s relative positions and Press et al.'s ALiBi beyond
the trained length, each against sinusoidal positions and, beside, against NoPE (the
causal mask alone), by the rules the experiment file wrote before its runs (RULES),
through the lab's one decision rule (experiments/lab/rule.py).

The rows were decided on length_generalization's 5 seeds before issue 73; they moved here,
to 10 seeds an arm with NoPE ruled (results/relative_positions/README.md, "Decision log").
"""

from pathlib import Path

from attention_research.metric_names import eval_key, length_range
from attention_research.reports import stats
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.relative_positions import (  # noqa: F401
    MIN_EFFECT, REPLICATION_SEEDS, RULES, SCHEMES, SEEDS, STATISTIC, TASKS, _scheme)
from experiments.lab import rule

RELATIVE_KEY, ALIBI_KEY = "relative-positions-generalise", "alibi-extrapolates"
REPLICATED = (RELATIVE_KEY, ALIBI_KEY)
# Both rules reach "not reproduced" only by an interval that rules the claim out (the
# contrast's below +0.02, or the scheme's own below half its seen accuracy).
SEPARATES_BOTH_WAYS = REPLICATED
PER_ARM = len(SEEDS)  # both runs train 10 seeds an arm
NEAR = range(21, 41)  # sources of twice the trained length at most
SEEN = eval_key("token_acc", length_range(1, 20))
WHOLE = eval_key("token_acc", length_range(21, 40))
SEQUENCES = eval_key("seq_acc", length_range(21, 40))
ABOVE = rule.Claim(MIN_EFFECT, rule.ABOVE)
# Qualified after a referee's audit (issue 73): the contrast with sinusoidal holds largely
# by construction, and on reverse neither scheme does more than the causal mask (NoPE).
TITLES = {RELATIVE_KEY: ("Relative positions keep half their accuracy at unseen positions "
                        "(teacher-forced; below NoPE on reverse)"),
          ALIBI_KEY: ("ALiBi extrapolates beyond the training length (teacher-forced; not "
                      "above NoPE on reverse)")}
PAPERS = {
    RELATIVE_KEY: ("Shaw, Uszkoreit & Vaswani 2018, §3.2 (no number): clipping relative "
                   "distances to ±k lets the model generalise to sequence lengths not seen "
                   "in training"),
    ALIBI_KEY: ("Press, Smith & Lewis 2022 (abstract, Fig. 1; language modelling): a model "
                "with ALiBi trained on inputs of length 1024 extrapolates to 2048 with the "
                "perplexity of a sinusoidal model trained on 2048, while sinusoidal "
                "positions fail a few tokens beyond the training length"),
}
SCHEME_OF = {RELATIVE_KEY: "relative", ALIBI_KEY: "alibi"}
CAVEATS = {
    RELATIVE_KEY: (
        "The verdict rests on the registered statistic: the unseen positions alone, each "
        "length weighed equally. Shaw et al. give the claim as a rationale (§3.2), not an "
        "experiment, and for translation with an encoder-decoder; this decoder-only "
        "regime is Press et al.'s, teacher-forced (with the right previous token given, "
        "copy and reverse can read its neighbour in the source, an offset both schemes "
        "represent), so the free-running and whole-target readings are given beside. In "
        "this layout (source BOS target) target position t reads its source symbol at a "
        "distance of L on copy and 2t - 1 on reverse, beyond k = 16 already on the seen "
        "lengths, which the model solves: the tasks need alignment beyond the clip, and "
        "are not unsolvable by construction. No unclipped control is trained here: "
        "without clipping, the offsets beyond 40 never receive a gradient on lengths "
        "1-20, so such a control tests exactly those untrained offsets and fails partly "
        "by construction (on copy the offset it needs, L, was trained); "
        "length_generalization's replication holds one (k = 402), shown beside"),
    ALIBI_KEY: (
        "This is Press et al.'s qualitative claim (ALiBi keeps working up to twice the "
        "trained length where sinusoidal positions fail), on teacher-forced token "
        "accuracy, as their perplexity is; their quantitative claim, parity with a "
        "sinusoidal model trained at twice the length, has no arm here, and the rule's "
        "half of the seen accuracy is more lenient than the no loss of quality they "
        "report, so the row gives ALiBi's unseen against its seen accuracy per task. "
        "Position is also carried by the causal mask, so only the NoPE contrast says "
        "whether ALiBi's bias, rather than the mask, does the work"),
}
BY_CONSTRUCTION = (
    "The sinusoidal contrast holds largely by construction: every scored token sits at an "
    "absolute position no sinusoidal model saw in training; the causal mask alone, by "
    "the same rule")
NOPE_WORDS = {rule.REPRODUCED: "more than the causal mask on both tasks",
              rule.NOT_REPRODUCED: "not more than the causal mask on at least one task",
              rule.INCONCLUSIVE: "undecided against the causal mask"}
KEPT = {rule.REPRODUCED: "kept", rule.NOT_REPRODUCED: "lost", rule.INCONCLUSIVE: "unclear"}
FITTED = 0.9  # a seed whose seen accuracy is under it did not fit the trained lengths
CONTROL = "length_generalization_replication"  # holds the unclipped relative control


def _kept(level: rule.Decision) -> str:
    return "at the floor" if level.stopped else KEPT[level.verdict]


def _interval(decision: rule.Decision) -> str:
    i = decision.interval
    return f"{i.mean:+.3f} [{i.low:+.3f}, {i.high:+.3f}]"


def _side(decision: rule.Decision) -> str:
    """One task's scheme - NoPE in words: above by the minimum effect, below 0, not
    above by it, or undecided."""
    i = decision.interval
    if i.low > MIN_EFFECT:
        return "above NoPE by more than +0.02"
    if i.high < 0:
        return "below NoPE"
    if i.high < MIN_EFFECT:
        return "not above NoPE by +0.02"
    return "not separated from NoPE"


def _setting(scheme: str, task: str) -> str:
    return sweeps.member_name({**_scheme(scheme), "config.task.name": task})


def _mean_over(by_length: dict, weights=None) -> float:
    """The mean over L = 21-40 of ``by_length`` (JSON keys), each length weighed equally
    or by ``weights[L]``."""
    weights = weights or {n: 1.0 for n in NEAR}
    return (sum(weights[n] * by_length[str(n)] for n in NEAR)
            / sum(weights[n] for n in NEAR))


def _beyond(final: dict) -> float:
    """STATISTIC for one member: the mean over L = 21-40 of its token accuracy at the
    unseen target positions of sources of length L."""
    return _mean_over(final["token_acc_beyond_seen_by_length"])


# Readings shown beside the rule, per member. A source of length L has L + 1 target
# tokens (EOS included), of which L - 19 lie at the unseen positions 21 to L + 1.
BESIDE = {
    "by unseen tokens": lambda m: _mean_over(m["token_acc_beyond_seen_by_length"],
                                             {n: n - 19 for n in NEAR}),
    "at L = 40": lambda m: m["token_acc_beyond_seen_by_length"]["40"],
    "at the seen positions 1-20 of those sources": lambda m: _mean_over(
        {str(n): ((n + 1) * m["token_acc_by_length"][str(n)]
                  - (n - 19) * m["token_acc_beyond_seen_by_length"][str(n)]) / 20
         for n in NEAR}),
    "whole targets": lambda m: m["final"][WHOLE],
    "greedy sequence accuracy": lambda m: m["final"][SEQUENCES],
}


def _arms(f, results) -> tuple[dict, dict, dict]:
    """Per (scheme, task): each finished member's STATISTIC, its seen accuracy and its
    final results."""
    beyond, seen, finals = {}, {}, {}
    for scheme in SCHEMES:
        for task in TASKS:
            members = f.member_finals(results, _setting(scheme, task))
            finals[scheme, task] = members
            beyond[scheme, task] = [_beyond(m) for m in members]
            seen[scheme, task] = [m["final"][SEEN] for m in members]
    return beyond, seen, finals


def _decide(beyond, seen, scheme: str) -> dict:
    """RULES for ``scheme``: per task, the contrast against sinusoidal at 95% (reproduced
    on both tasks) and 97.5% (Bonferroni over the tasks, not reproduced on either), the
    scheme's own interval against half its seen accuracy (95%: the rule names its
    Bonferroni for the contrast), and the NoPE contrast ruled the same way; then the
    verdict and NoPE's answer."""
    out = {"tasks": {}}
    for task in TASKS:
        values = beyond[scheme, task]
        half = stats.finite(seen[scheme, task]).mean() / 2
        level = rule.decide_level(values, rule.Claim(half, rule.ABOVE), stats.ACCURACY)
        out["tasks"][task] = {
            "half": half,
            "level": level,
            **{f"{other} {level}": rule.decide(values, beyond[other, task], ABOVE,
                                               stats.ACCURACY, level=alpha)
               for other in ("sinusoidal", "nope")
               for level, alpha in (("95", stats.LEVEL), ("97.5", stats.LEVEL / 2))}}
    tasks = out["tasks"].values()
    if all(t["sinusoidal 95"].verdict == rule.REPRODUCED
           and t["level"].verdict == rule.REPRODUCED for t in tasks):
        out["verdict"] = rule.REPRODUCED
    elif any(t["sinusoidal 97.5"].verdict == rule.NOT_REPRODUCED
             or t["level"].verdict == rule.NOT_REPRODUCED for t in tasks):
        out["verdict"] = rule.NOT_REPRODUCED
    else:
        out["verdict"] = rule.INCONCLUSIVE
    if all(t["nope 95"].verdict == rule.REPRODUCED for t in tasks):
        out["nope"] = rule.REPRODUCED
    elif any(t["nope 97.5"].verdict == rule.NOT_REPRODUCED for t in tasks):
        out["nope"] = rule.NOT_REPRODUCED
    else:
        out["nope"] = rule.INCONCLUSIVE
    return out


def _leave_one_out(values, seen) -> int:
    """How many of the subsets that leave one seed out still keep half the seen accuracy
    (the low end of the interval at or above it): how much the level rests on one seed."""
    return sum(rule.decide_level(values[:i] + values[i + 1:], rule.Claim(
        stats.finite(seen[:i] + seen[i + 1:]).mean() / 2, rule.ABOVE)).verdict
               == rule.REPRODUCED for i in range(len(values)))


def _unfitted(beyond, seen, finals, scheme: str, task: str) -> str:
    """The seeds of NoPE that did not fit the seen lengths (seen accuracy under FITTED),
    and the NoPE contrast without them: what the mask's answer rests on."""
    keep = [i for i, a in enumerate(seen["nope", task]) if a >= FITTED]
    if len(keep) == len(seen["nope", task]):
        return ""
    if len(keep) < 2:
        return f"; NoPE did not fit the seen lengths on {task} (seen accuracy under {FITTED:g})"
    left = ", ".join(f"seed {finals['nope', task][i]['seed']} ({seen['nope', task][i]:.3f})"
                     for i in range(len(seen["nope", task])) if i not in keep)
    without = rule.decide(beyond[scheme, task], [beyond["nope", task][i] for i in keep],
                          ABOVE, stats.ACCURACY, level=stats.LEVEL / 2)
    return (f"; NoPE did not fit the seen lengths on {task} at {left}: without it, "
            f"{scheme} - NoPE at 97.5% is {_interval(without)} ({_side(without)})")


def _control(f, results) -> str:
    """length_generalization's replication's unclipped relative control (k = 402, seeds
    100-104) beside its clipped model, on the same statistic (its held-out set ran to
    200, other draws): whether the clipping is what carries."""
    from experiments import length_generalization as lg
    from attention_research.reports.tables import interval_cell as cell
    record = Path(results).parent / CONTROL
    parts = []
    for task in TASKS:
        values = {name: [_beyond(m) for m in f.member_finals(
            record, sweeps.member_name({**model, "config.task.name": task}), lg.REVISED_SEEDS)]
            for name, model in (("k = 16", lg._decoder_only("relative")),
                                ("unclipped", lg.UNCLIPPED))}
        if min(map(len, values.values())) < len(lg.REVISED_SEEDS):
            return ""
        parts.append(f"{task} k = 16 {cell(values['k = 16'])}, unclipped "
                     f"{cell(values['unclipped'])}")
    return (f". The unclipped control of {CONTROL} (seeds {lg.REVISED_SEEDS[0]}-"
            f"{lg.REVISED_SEEDS[-1]}, the same statistic, read by no rule): " + "; ".join(parts))


def _fresh_arms(f, results) -> tuple[dict, dict] | None:
    """On the first run's record, the complete replication's (STATISTIC, seen accuracy)
    per (scheme, task), else None."""
    fresh = Path(results).parent / f"{Path(results).name}_replication"
    if Path(results).name.endswith("_replication") or not fresh.is_dir():
        return None
    beyond, seen, _ = _arms(f, fresh)
    return (beyond, seen) if min(len(v) for v in beyond.values()) >= PER_ARM else None


def _nope_replicated(fresh, scheme: str) -> str:
    """The replication's answer on NoPE (``fresh``: ``_fresh_arms``; the rule's
    'replicated' reads the verdict alone; this says whether the NoPE answer repeats
    too)."""
    if fresh is None:
        return ""
    decided = _decide(*fresh, scheme)
    sides = ", ".join(f"{task} {_side(decided['tasks'][task]['nope 95'])}" for task in TASKS)
    return (f" (seeds {REPLICATION_SEEDS[0]}-{REPLICATION_SEEDS[-1]}: "
            f"{NOPE_WORDS[decided['nope']]}; {sides})")


def findings(results):
    """Relative positions and ALiBi beyond the trained length against sinusoidal
    positions (the papers' baseline) and NoPE, decoder-only, on the finished members of
    the record (the first run's seeds 200-209 or the replication's 210-219, whichever the
    folder holds)."""
    from experiments.lab import findings as f
    from attention_research.reports.tables import interval_cell as cell
    beyond, seen, finals = _arms(f, results)
    if min(len(v) for v in beyond.values()) < PER_ARM:
        rows = f.report_rows(results) or []
        what = f.progress(results, rows, [_setting(s, t) for s in SCHEMES for t in TASKS],
                          PER_ARM)
        return [f.pending(key, TITLES[key], PAPERS[key], what) for key in REPLICATED]
    arms = "; ".join(
        f"{task}: " + ", ".join(f"{scheme} {cell(beyond[scheme, task])} (seen "
                                f"{cell(seen[scheme, task])})" for scheme in SCHEMES)
        for task in TASKS)
    # What the causal mask alone clears of the sinusoidal contrast, by the same rule.
    mask = {task: rule.decide(beyond["nope", task], beyond["sinusoidal", task], ABOVE,
                              stats.ACCURACY) for task in TASKS}
    cleared = "; ".join(f"{task} NoPE - sinusoidal {_interval(d)}: {d.verdict}"
                        for task, d in mask.items())
    fresh = _fresh_arms(f, results)
    out = []
    for key in REPLICATED:
        scheme = SCHEME_OF[key]
        decided = _decide(beyond, seen, scheme)
        tests, beside = [], []
        for task, t in decided["tasks"].items():
            subsets = _leave_one_out(beyond[scheme, task], seen[scheme, task])
            level, against_nope = t["level"], t["nope 95"]
            tests.append(
                f"{task}: {scheme} - sinusoidal {t['sinusoidal 95'].words()}; {scheme}'s "
                f"own interval {_interval(level)} against half its seen accuracy "
                f"{t['half']:.3f}: {_kept(level)} (the design detects "
                f"{level.detectable:.3f} at 80% power; kept in {subsets} of {PER_ARM} "
                f"leave-one-seed-out subsets); {scheme} - NoPE d = "
                f"{_interval(against_nope)}: {_side(against_nope)}"
                + (f" (the design detects {against_nope.detectable:.3f} at 80% power; about "
                   f"{against_nope.seeds_to_decide} seeds an arm would decide the observed d)"
                   if against_nope.verdict == rule.INCONCLUSIVE else "")
                + _unfitted(beyond, seen, finals, scheme, task))
            beside.append(f"{task}: " + ", ".join(
                f"{name} {cell([read(m) for m in finals[scheme, task]])}"
                + (f" (NoPE {cell([read(m) for m in finals['nope', task]])})"
                   if name == "greedy sequence accuracy" else "")
                for name, read in BESIDE.items()))
        nope = (f"Against NoPE, by the rule: {NOPE_WORDS[decided['nope']]}"
                + _nope_replicated(fresh, scheme))
        if decided["nope"] != rule.REPRODUCED:
            # A fresh referee: the contrast with sinusoidal holds largely by construction,
            # so say what the verdict rests on and where the scheme beats the mask.
            above = [task for task, t in decided["tasks"].items()
                     if t["nope 95"].verdict == rule.REPRODUCED]
            nope += (f". So the verdict rests on the level clause ({scheme}'s own interval "
                     "against half its seen accuracy); that the scheme, not the causal mask "
                     "alone, does the work is shown on "
                     + (f"{' and '.join(above)} alone" if above else "no task"))
        # A fourth referee (issue 73): Shaw's claim is about sequence lengths not seen;
        # over whole targets of 21-40 the same half-of-seen rule may not hold where it
        # holds at the unseen positions alone. Said, and put in the title.
        whole = {task: rule.decide_level([m["final"][WHOLE] for m in finals[scheme, task]],
                                         rule.Claim(t["half"], rule.ABOVE))
                 for task, t in decided["tasks"].items()}
        short = [task for task, d in whole.items() if d.verdict != rule.REPRODUCED]
        nope += (". Over whole targets of 21-40 (seen and unseen positions), the same rule "
                 "gives " + "; ".join(f"{task} {_interval(d)} against {decided['tasks'][task]['half']:.3f}: "
                                      f"{d.verdict}" for task, d in whole.items())
                 + (f", so over whole sequences the claim is shown on "
                    f"{', '.join(t for t in TASKS if t not in short) or 'no task'} only"
                    if short else ""))
        title = TITLES[key]
        if short and len(short) < len(TASKS):
            title = title.replace("(teacher-forced;", f"(teacher-forced; over whole targets "
                                  f"on {', '.join(t for t in TASKS if t not in short)} only;")
        out.append(f.Finding(
            key, title, PAPERS[key],
            f"decoder-only Transformer (4 layers, 4 heads) trained on lengths 1-20, "
            f"{STATISTIC}, {PER_ARM} seeds an arm (mean ± the half-width of its 95% "
            f"interval): {arms}. Tests: " + "; ".join(tests) + f". {nope}. Beside, read by "
            f"no rule, {scheme} on sources of 21-40, at the unseen positions weighed by "
            f"their tokens, at L = 40 alone, at the seen positions of those sources, over "
            f"whole targets (pooled), and greedy: " + "; ".join(beside)
            + f". {BY_CONSTRUCTION} ({cleared})"
            + (_control(f, results) if scheme == "relative" else ""),
            decided["verdict"],
            f"{RULES[key]} (the lab's one decision rule: {rule.WORDS}). {CAVEATS[key]}. "
            "Decided on length_generalization's 5 seeds until issue 73, where an audit found "
            "copy's pass rested on one seed; this sweep's 10 seeds an arm, NoPE ruled, "
            "replace them",
            f"results/relative_positions/plots/token_acc_by_position_"
            f"{'reverse' if scheme == 'relative' else 'copy'}.png",
            records=(CONTROL,) if scheme == "relative" else (),
            power=rule.power_words(
                [t[name] for t in decided["tasks"].values() for name in ("sinusoidal 95", "level")],
                rule.member_seconds(Path(results)))))
    return out
