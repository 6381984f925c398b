"""The claims experiments/compare_attention.py's record decides: what the "when it fails"
columns of docs/formulations.md claim from that sweep, each decided by a named test on
the committed record (rows of experiments/FINDINGS.md). The history of these rules is
in results/compare_attention/README.md, "Decision log".
"""

import dataclasses
import math

# What the findings page reads of the experiment (findings.with_replication) with it.
from experiments.compare_attention import CONTROLS, NAMES, NO_LOSS, REPLICATED, SEEDS  # noqa: F401
from attention_research.metric_names import at_step, column, eval_key, length_range
from attention_research.running import sweeps

TASKS = ("copy", "reverse", "sort")
SEEN, UNSEEN = column("seq_acc", length_range(1, 25)), column("seq_acc", length_range(26, 50))
EARLY = at_step(SEEN, 500)
SEEN_LOGGED = eval_key("seq_acc", length_range(1, 25))  # as metrics.jsonl names it
ZERO_SHARE = column("attn_zero_share", length_range(1, 25))
MARGIN = 0.05  # "no worse than": the difference's 95% interval stays above −MARGIN
CEILING = 0.98  # the one rule reads no verdict where both arms sit at or above it
PLOT = "results/compare_attention/plots/seq_acc_by_length_{task}.png"


BESIDE = {NO_LOSS: CONTROLS[1]}  # trained and shown, read by no rule


def _setting(name: str, task: str) -> str:
    return sweeps.member_name({**(NAMES[name] if name in NAMES else BESIDE[name]),
                               "config.task.name": task})


def findings(results):
    """Each claim of the formulation tables (docs/formulations.md) that rests on this sweep: papers'
    claims (See et al. on coverage and copying, Martins & Astudillo and Peters et al. on
    sparse weights, Luong et al. on local-m, Raffel et al. on monotonic attention) and
    our own observations (``paper=None``)."""
    from experiments.lab import findings as f
    rows = f.report_rows(results)
    settings = [_setting(name, task) for name in NAMES for task in TASKS]
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):
        what = f"of the formulations read here, {f.progress(results, rows, settings, len(SEEDS))}"
        return [f.pending(key, title, paper, what)
                for key, (title, paper) in _CLAIMS.items()]
    get = _Reader(f, rows, results)
    return [check(f, get) for check in (
        _coverage, _sparse, _local_m, _monotonic, _dot_fits_fastest,
        _scaled_dot_in_the_rnn, _location, _local_p_sort, _pointer_limits,
        _location_aware_sort, _cosine_unseen)]


class _Reader:
    """Per-seed values of a metric for a formulation and task, and their cell."""

    def __init__(self, f, rows, results):
        self.f, self.rows, self.results = f, rows, results

    def __call__(self, name, task, metric=SEEN):
        return self.f.column(self.rows, metric, setting=_setting(name, task))

    def at(self, name, task, step, metric=SEEN_LOGGED):
        """Per-seed values at an evaluation ``step`` (from the members' logs)."""
        return self.f.member_values(self.results, _setting(name, task), metric, step=step)

    def cell(self, name, task, metric=SEEN):
        from attention_research.reports import stats
        return stats.t_interval(self(name, task, metric)).cell()


_CLAIMS = {  # key: (title, paper; None: our observation)
    "coverage-loss-from-the-start": ("The coverage loss from the first step hurts training",
     "See, Liu & Manning 2017, §7: training with the coverage loss from the first "
     "iteration, rather than as a last phase, 'interfered with the main objective, "
     "reducing overall performance' (no number; they add it for a last 3,000 iterations, "
     "λ = 1)"),
    "sparse-attention-matches-softmax": ("Sparse attention weights cost no accuracy "
                                         "(within 0.05 on sort; copy and reverse at the "
                                         "ceiling)",
     "Martins & Astudillo 2016 (abstract, SNLI): sparsemax attention performs similarly to "
     "softmax with a more compact focus; Peters, Niculae & Martins 2019: entmax "
     "attention is sparse at no loss (no number quoted here)"),
    # Checks by construction since issue 73's second referee: the window and the
    # monotonic process decide these outcomes by design (results' README, Decision log).
    "local-m-needs-monotonic-alignment": ("Local-m's window cannot reach an alignment "
                                          "beyond ±D",
     "Luong, Pham & Manning 2015, §3.2: local-m sets p_t = t, 'assuming that source and "
     "target sequences are roughly monotonically aligned' (no number)"),
    "monotonic-attention-cannot-read-back": ("Monotonic attention cannot read back",
     "Raffel et al. 2017, §1–2: hard monotonic attention is for problems whose "
     "input-output alignment is monotonic; it never reads a position twice or goes back "
     "(no number for other tasks)"),
    "dot-fits-fastest": ("dot fits faster than general, cosine and additive", None),
    "scaled-dot-blurs-in-the-rnn": ("One-head scaled_dot fails in the RNN", None),
    "location-fails-unseen-lengths-and-sort": (
        "location scores nothing on unseen lengths, and sorts no better than none", None),
    "local-p-fails-sort": ("local_p fails on sort", None),
    # Titled by what the rule tests ("neither extrapolates" would read as "worse than
    # additive there", where it is slightly above it)
    "pointer-generator-limits": ("Copying stays below 0.5 on unseen lengths, and sorts "
                                 "worse than attention alone", None),
    # Titled by what was measured until a referee (issue 73) found that "does not hold"
    # was read off the ordering of the means; the claim is now tested both ways.
    "location-aware-sorts-best": ("location_aware sorts best of the RNN formulations", None),
    "cosine-keeps-most-beyond-training": (
        "cosine keeps the most of the content scores on unseen lengths", None),
}


# The rows of the papers' claims were ruled after the first record (its README's
# Decision log); the replication, ruled before it ran, is their confirmatory test.
# Rules written after the record they decide (results/compare_attention/README.md,
# Decision log): the page says so on each row (findings._written_after). The coverage
# row, written between its two arms, says so in its own words.
AFTER_THE_RECORD = "433d059, 2026-11-24 16:24, after the 5-seed record of 14:41, 3da87d5"
RULES_AFTER_FIRST_RUN = {key: AFTER_THE_RECORD for key in (
    "sparse-attention-matches-softmax", "local-m-needs-monotonic-alignment",
    "monotonic-attention-cannot-read-back", "dot-fits-fastest",
    "scaled-dot-blurs-in-the-rnn", "location-fails-unseen-lengths-and-sort",
    "local-p-fails-sort", "pointer-generator-limits", "location-aware-sorts-best",
    "cosine-keeps-most-beyond-training")}


def _one_rule(decisions, verdict: str) -> str:
    """Why the row keeps its own rule, and what the lab's one rule gives on the same
    contrasts (issue 73, item 1): every contrast must hold (rule.all_of)."""
    from experiments.lab import rule
    again = rule.all_of(decisions)
    # Where a contrast is stopped (a ceiling, a floor), the row names it (a referee).
    stopped = list(dict.fromkeys(d.why for d in decisions if d.stopped))
    return (". Its rule, Welch's t at 5% with the minimum effect on the mean (Holm over "
            "the tasks), was registered before the lab's one decision rule existed and "
            "is kept as registered; the one rule (experiments/lab/rule.py: each "
            "interval beyond the minimum effect) on the same contrasts gives "
            f"{again}" + ("" if again == verdict else ", not the registered verdict")
            + (f" (no verdict where {'; '.join(stopped)})"
               if again == rule.INCONCLUSIVE and stopped else ""))


def _within_margin(difference) -> bool:
    """Whether a difference's 95% interval lies inside ±MARGIN: the 'no different'
    outcome of the rules that have one (coverage, local_p on sort)."""
    return difference is not None and -MARGIN < difference.low and difference.high < MARGIN


def _finding(f, key, ours, verdict, why, plot=None, construction=""):
    title, paper = _CLAIMS[key]
    if construction:  # a check: its rule's "reproduced" reads "verified"
        verdict = f.as_check(verdict)
    return f.Finding(key, title, paper, ours, verdict, why, plot,
                     construction=construction)


# Why this rule replaced the first one (whose control was plain additive attention):
# results/compare_attention/README.md, "Decision log".
COVERAGE_RULE = (
    "the coverage model with λ = 1 from step 0 against the same model with λ = 1 for the "
    "last fifth of the 1,500 steps only (coverage_loss_from 0.8, See et al.'s final phase), "
    "seq acc 1–25 at step 1500, per task, Welch's t over the seeds Holm-corrected over the 3 "
    "tasks with the accuracy rule (floor 0.05, minimum effect 0.02): reproduced if from the "
    "start is below on at least one task and above on none; not reproduced if above on any, "
    "or if every task's difference lies inside ±0.05 by its 95% interval; else "
    "inconclusive. Plain additive attention is shown beside, not tested")


def _coverage(f, get):
    from attention_research.reports import stats
    early, late = "coverage", "coverage, final phase"
    tests = stats.contrasts([(get(early, t), get(late, t)) for t in TASKS], stats.ACCURACY)
    from scipy.stats import mannwhitneyu
    failed = {(arm, t): sum(v < 0.5 for v in get(arm, t)) for arm in (early, late)
              for t in TASKS}  # both arms: a control can fail too
    # From the start, seeds either fail or solve the task: Welch's t on two modes is
    # shown with a rank test beside it (Mann-Whitney U, exact, uncorrected; not in the rule).
    ranks = {t: mannwhitneyu(get(early, t), get(late, t), method="exact").pvalue
             for t in TASKS}
    ours = "; ".join(
        f"{t}: λ = 1 from step 0 {get.cell(early, t)} ({failed[early, t]} of {len(SEEDS)} "
        f"seeds below 0.5), for the last fifth {get.cell(late, t)} ({failed[late, t]} of "
        f"{len(SEEDS)} below 0.5; {c.words(corrected=True)}; "
        f"Mann-Whitney p = {ranks[t]:.2g}); additive {get.cell('additive', t)}"
        for t, c in zip(TASKS, tests)) + " (seq acc 1–25 at step 1500)"
    same = all(_within_margin(c.difference) for c in tests)
    verdict = ("reproduced" if any(c.below for c in tests) and not any(c.above for c in tests)
               else "not reproduced" if any(c.above for c in tests) or same
               else "inconclusive")
    # Power: the claim needs one task below (the likeliest one decides it), at the
    # family's Holm-adjusted level, here taken at its strictest (0.05 / 3).
    from experiments.lab import rule
    below = rule.Claim(-stats.ACCURACY.min_effect, rule.BELOW)
    decisions = [rule.decide(get(early, t), get(late, t), below, stats.ACCURACY,
                             level=stats.LEVEL / len(TASKS)) for t in TASKS]
    likeliest = min(decisions, key=lambda d: (d.seeds_to_decide or math.inf))
    return dataclasses.replace(
        _finding(f, "coverage-loss-from-the-start", ours, verdict, COVERAGE_RULE
                 + ". The one decision rule (experiments/lab/rule.py) would read each "
                 "task's interval against −0.02; the rule above, registered before it, is "
                 "kept. The first run is partly exploratory: the rule was written after the "
                 "from-step-0 arm was recorded and before its control (the final phase) "
                 "trained (results/compare_attention/README.md, Decision log); the "
                 "replication, ruled before it ran, is the confirmatory test",
                 PLOT.format(task="sort")),
        power=rule.power_words([likeliest], rule.member_seconds(get.results)))


def _sparse(f, get):
    from attention_research.reports import stats
    parts, worse, unsure = [], [], []
    for name in ("sparsemax", "entmax15"):
        for task in TASKS:
            d = stats.difference_interval(get(name, task), get("additive", task))
            zeros = stats.t_interval(get(name, task, ZERO_SHARE))
            # A loss beyond the margin refutes (a third referee: the branch read "below
            # 0", so a loss inside the margin would have refuted; no verdict moves).
            worse.append(d.high < -MARGIN or zeros.mean <= 0.5)
            unsure.append(d.low < -MARGIN)
            parts.append(f"{name} {task} {get.cell(name, task)} against softmax "
                         f"{get.cell('additive', task)}: difference {d.mean:+.3f} "
                         f"[{d.low:+.3f}, {d.high:+.3f}], weights exactly 0: {zeros.cell()}")
    verdict = ("not reproduced" if any(worse) else "inconclusive" if any(unsure)
               else "reproduced")
    # What the lab's minimum effect (0.02) gives on sort, the one task off the ceiling.
    from experiments.lab import rule
    strict = rule.Claim(-stats.ACCURACY.min_effect, rule.ABOVE)
    on_sort = {name: rule.decide(get(name, "sort"), get("additive", "sort"), strict,
                                 stats.ACCURACY) for name in ("sparsemax", "entmax15")}
    ceiling = [t for t in TASKS if min(stats_mean(get(n, t)) for n in
                                       ("sparsemax", "entmax15", "additive")) >= 0.98]
    margin_words = (
        f". The margin {MARGIN} is the registered one (a sequence-accuracy loss of 5 points "
        "counts as no loss), 2.5 times the lab's minimum effect; the papers give no "
        "margin (Martins & Astudillo's SNLI accuracies differ by under a point)"
        + (f". On {' and '.join(ceiling)} every arm sits at the ceiling (≥ 0.98), so "
           "those tasks show no loss but cannot show one; sort alone carries evidence"
           if ceiling else ""))
    strict_words = ". Against the lab's minimum effect (−0.02) on sort, by the one rule: " + "; ".join(
        f"{name}'s interval's low end {d.interval.low:+.3f}, "
        + ("no loss of 0.02" if d.verdict == rule.REPRODUCED else
           "a loss beyond 0.02" if d.verdict == rule.NOT_REPRODUCED else
           "undecided" + (f" (about {d.seeds_to_decide} seeds an arm would decide it)"
                          if d.seeds_to_decide else ""))
        for name, d in on_sort.items())
    undecided = [name for name, d in on_sort.items() if d.verdict != rule.REPRODUCED]
    if undecided and verdict == "reproduced":
        # A fresh referee: say at which margin the verdict holds, where it is read.
        strict_words += (f". So 'reproduced' on these seeds holds at the registered margin "
                         f"of {MARGIN} alone, on sort alone: at the lab's 0.02, "
                         f"{' and '.join(undecided)} {'is' if len(undecided) == 1 else 'are'} "
                         "undecided")
    return dataclasses.replace(_finding(
        f, "sparse-attention-matches-softmax",
        "; ".join(parts) + " (seq acc 1–25, additive score)" + strict_words, verdict,
        "non-inferiority: on every task the 95% Welch interval of (sparse − "
        f"softmax) lies above −{MARGIN} and most weights are exactly 0: "
        "reproduced; an interval wholly below −0.05 (below 0 as registered, corrected "
        "in issue 73 after a referee found the asymmetry: a stricter branch, which can "
        "only withhold a 'not reproduced'; no verdict moves), or half the "
        "weights or fewer at 0: not reproduced; else inconclusive" + margin_words),
        # The cell sizes the one rule's reading at −0.02, not the registered margin's
        # verdict (a fourth referee asked that it say so).
        power=rule.power_words(list(on_sort.values()),
                               rule.member_seconds(get.results)).after("at −0.02: "))


def _local_m(f, get):
    from attention_research.reports import stats
    monotone = stats.difference_interval(get("local_m", "copy"), get("additive", "copy"))
    tests = f.separated_holm([(get("local_m", t), get("additive", t), False)
                              for t in ("reverse", "sort")])
    ours = (f"seq acc 1–25, local_m against global additive: copy (monotonic) "
            f"{get.cell('local_m', 'copy')} against {get.cell('additive', 'copy')}; "
            + "; ".join(f"{t} {get.cell('local_m', t)} against {get.cell('additive', t)} "
                        f"({test[1]})" for t, test in zip(("reverse", "sort"), tests)))
    fine = monotone.low >= -MARGIN
    verdict = ("reproduced" if fine and all(s for s, _ in tests)
               else "not reproduced" if not any(s for s, _ in tests) else "inconclusive")
    from experiments.lab import rule
    decisions = ([rule.decide(get("local_m", "copy"), get("additive", "copy"),
                              rule.Claim(-MARGIN, rule.ABOVE), stats.ACCURACY,
                              ceiling=CEILING)]
                 + [rule.decide(get("local_m", t), get("additive", t),
                                rule.Claim(-stats.ACCURACY.min_effect, rule.BELOW),
                                stats.ACCURACY) for t in ("reverse", "sort")])
    return dataclasses.replace(_finding(
        f, "local-m-needs-monotonic-alignment", ours + _window(f, get), verdict,
        f"on copy the interval of (local_m − global) above −{MARGIN}, and on "
        "reverse and sort local_m below global by Welch's t (Holm over 2): "
        "verified; below on neither: not verified; else inconclusive"
        + _one_rule(decisions, verdict), PLOT.format(task="reverse"),
        construction=(
            "local_m's window [t − D, t + D] around p_t = t covers the whole source while "
            "L ≤ D + 1 (local_m is global attention there) and cannot reach position "
            "L − 1 − t beyond it, so its failure on reverse and sort follows from the "
            "window's width (Luong et al.'s 'assuming … roughly monotonically aligned' "
            "states the design, not a finding). What the check adds: the bidirectional "
            "encoder does not carry the far token into the window")),
        power=rule.power_words(decisions, rule.member_seconds(get.results)))


def _window(f, get) -> str:
    """Where local-m fails on reverse, against its window's reach: the t-th target token
    sits at source position L − 1 − t, inside [t − D, t + D] for every t only while
    L ≤ D + 1, so beyond that the failure is the window's by construction."""
    from experiments.compare_attention import get_config
    window = get_config().model.attention.window
    finals = f.member_finals(get.results, _setting("local_m", "reverse"), SEEDS)
    if not finals:
        return ""
    mean = lambda n: sum(m["seq_acc_by_length"].get(str(n), 0.0)  # noqa: E731
                         for m in finals) / len(finals)
    zero = next((n for n in range(window + 2, 26) if mean(n) == 0.0), None)
    return (f". By source length on reverse, local_m scores {mean(window + 1):.2f} at "
            f"L = {window + 1}, {mean(window + 2):.2f} at {window + 2}"
            + (f" and 0 from {zero}" if zero else "")
            + f": the t-th target token sits at source position L − 1 − t, inside the "
            f"window [t − D, t + D] (D = {window}) for every t only while L ≤ D + 1 = "
            f"{window + 1}, so its failure on reverse is the window's reach by "
            "construction; within it, local_m reads a reversed source as well as global "
            "attention: what it needs is that the source position stay within D of t")


def _monotonic(f, get):
    tests = f.separated_holm(
        [(get("monotonic", t), get("additive", t), False) for t in ("reverse", "sort")]
        + [(get("monotonic", "copy"), get("monotonic", t), True) for t in ("reverse", "sort")])
    copy_test = f.separated_holm([(get("monotonic", "copy"), get("additive", "copy"), False)])
    ours = (f"seq acc 1–25: monotonic copy {get.cell('monotonic', 'copy')}, reverse "
            f"{get.cell('monotonic', 'reverse')}, sort {get.cell('monotonic', 'sort')}; "
            f"softmax additive {get.cell('additive', 'copy')}, "
            f"{get.cell('additive', 'reverse')}, {get.cell('additive', 'sort')}. Below "
            f"additive on reverse ({tests[0][1]}) and sort ({tests[1][1]}); its copy above "
            f"its reverse ({tests[2][1]}) and sort ({tests[3][1]}); on copy itself below "
            f"additive: {'yes' if copy_test[0][0] else 'not separated'} ({copy_test[0][1]})")
    verdict = ("reproduced" if all(s for s, _ in tests)
               else "not reproduced" if not any(s for s, _ in tests[:2]) else "inconclusive")
    from attention_research.reports import stats
    from experiments.lab import rule
    effect = stats.ACCURACY.min_effect
    decisions = ([rule.decide(get("monotonic", t), get("additive", t),
                              rule.Claim(-effect, rule.BELOW), stats.ACCURACY)
                  for t in ("reverse", "sort")]
                 + [rule.decide(get("monotonic", "copy"), get("monotonic", t),
                                rule.Claim(effect, rule.ABOVE), stats.ACCURACY)
                    for t in ("reverse", "sort")])
    # Raffel et al.'s claim with content (competitive on a monotonic task), shown beside
    # by the one rule: monotonic against softmax on copy, no loss beyond 0.02.
    on_copy = rule.decide(get("monotonic", "copy"), get("additive", "copy"),
                          rule.Claim(-effect, rule.ABOVE), stats.ACCURACY, ceiling=CEILING)
    ours += (f". With no attention at all, reverse scores {get.cell('none', 'reverse')}: "
             "monotonic attention reads nothing back, and reverses only what the encoder "
             "carries. Raffel et al.'s claim with content, that monotonic attention is "
             "competitive on a monotonic task, by the one rule on copy (no loss beyond "
             f"0.02): {on_copy.words()}")
    return dataclasses.replace(_finding(
        f, "monotonic-attention-cannot-read-back", ours, verdict,
        "monotonic below softmax on the non-monotonic tasks (reverse, sort) and "
        "better on copy than on either, each by Welch's t (Holm over the 4): "
        "verified; not below softmax on either: not verified; else "
        "inconclusive" + _one_rule(decisions, verdict),
        PLOT.format(task="reverse"),
        construction=(
            "the monotonic process never attends to a position before its last one "
            "(attention/monotonic.py), at training (the expected alignment) and at test "
            "(the hard process), so it cannot read a reversed or sorted source back: "
            "failing there follows from the mechanism (Raffel et al. state it as the "
            "design's scope)")),
        power=rule.power_words(decisions, rule.member_seconds(get.results)))


def _dot_fits_fastest(f, get):
    others = ("general", "cosine", "additive")
    pairs = [(o, t) for o in others for t in ("copy", "reverse")]
    tests = f.separated_holm([(get("dot", t, EARLY), get(o, t, EARLY), True)
                              for o, t in pairs])
    lowest_final = min(stats_mean(get(n, t)) for n in ("dot", *others)
                       for t in ("copy", "reverse"))
    ours = ("seq acc 1–25 at step 500: dot copy " + get.cell("dot", "copy", EARLY)
            + ", reverse " + get.cell("dot", "reverse", EARLY) + "; " + "; ".join(
                f"{o} {t} {get.cell(o, t, EARLY)} ({test[1]})"
                for (o, t), test in zip(pairs, tests))
            + f". At step 1500 all four ≥ {lowest_final:.3f}")
    reversed_ = f.separated_holm([(get("dot", t, EARLY), get(o, t, EARLY), False)
                                  for o, t in pairs])
    verdict = ("holds" if all(s for s, _ in tests)
               else "does not hold" if any(s for s, _ in reversed_) else "inconclusive")
    one_rule, power = f.one_rule_reading(
        [(get("dot", t, EARLY), get(o, t, EARLY), True) for o, t in pairs],
        verdict=verdict, results=get.results)
    return dataclasses.replace(_finding(
        f, "dot-fits-fastest", ours, verdict,
        "dot above each of general, cosine and additive at step 500 on copy and reverse by "
        "Welch's t (Holm over the 6): holds; one of them above dot by the same test: does "
        "not hold; else inconclusive" + one_rule), power=power)


def _scaled_dot_in_the_rnn(f, get):
    tests = f.separated_holm([(get("dot", t), get("scaled_dot", t), True)
                              for t in ("copy", "reverse")])
    heads = f.separated_holm([(get("scaled_dot, 4 heads", t), get("scaled_dot", t), True)
                              for t in ("copy", "reverse")])
    ours = "; ".join(
        f"{t}: one-head scaled_dot {get.cell('scaled_dot', t)} against dot "
        f"{get.cell('dot', t)} ({tests[i][1]}) and 4 heads of d/4 "
        f"{get.cell('scaled_dot, 4 heads', t)} ({heads[i][1]})"
        for i, t in enumerate(("copy", "reverse"))) + " (seq acc 1–25 at step 1500)"
    verdict = ("holds" if all(s for s, _ in tests)
               else "does not hold" if not any(s for s, _ in tests) else "inconclusive")
    one_rule, power = f.one_rule_reading(
        [(get("dot", t), get("scaled_dot", t), True) for t in ("copy", "reverse")],
        verdict=verdict, results=get.results)
    return dataclasses.replace(_finding(
        f, "scaled-dot-blurs-in-the-rnn", ours, verdict,
        "dot above one-head scaled_dot on copy and reverse by Welch's t (Holm over 2): "
        "holds; on neither: does not hold; else inconclusive. Why (tanh-bounded states, so "
        "qᵀk/√d stays small and the weights blurred) is a hypothesis this sweep does not "
        "test" + one_rule, PLOT.format(task="reverse")), power=power)


def _location(f, get):
    unseen = {t: get("location", t, UNSEEN) for t in ("copy", "reverse")}
    sort_test = f.separated_holm([(get("location", "sort"), get("none", "sort"), True)])[0]
    ours = (f"seq acc 26–50 (never trained): copy {get.cell('location', 'copy', UNSEEN)}, "
            f"reverse {get.cell('location', 'reverse', UNSEEN)}; seq acc 1–25 on sort: "
            f"location {get.cell('location', 'sort')} against none "
            f"{get.cell('none', 'sort')} ({sort_test[1]})")
    zero = all(max(v) == 0 for v in unseen.values())
    # A second referee (issue 73): 'no better' was read off a non-separation. The one
    # rule reads it as a claim: location − none below +0.02 by its interval.
    from attention_research.reports import stats
    from experiments.lab import rule
    no_better = rule.decide(get("location", "sort"), get("none", "sort"),
                            rule.Claim(stats.ACCURACY.min_effect, rule.BELOW), stats.ACCURACY)
    ours += (f"; 'no better' by the one rule (location − none under +0.02): "
             f"{no_better.words()}. On 26–50 the failure is partly by construction: "
             "location's scores come from W_a's rows for positions up to the longest "
             "evaluated source (50), and the rows past 25 never receive a gradient")
    verdict = ("holds" if zero and no_better.verdict == rule.REPRODUCED
               else "does not hold" if not zero and sort_test[0] else "inconclusive")
    return dataclasses.replace(_finding(
        f, "location-fails-unseen-lengths-and-sort", ours, verdict,
        "every seed 0 on 26–50 of copy and reverse, and on sort location's lead over none "
        "ruled out beyond +0.02 by the one rule's interval: holds; neither: does not hold; "
        "else inconclusive. Revised after a second audit (issue 73), after both runs: the "
        "registered rule read 'no better' off a non-separation by Welch's t, which supports "
        "it but does not prove it", PLOT.format(task="sort")),
        power=rule.power_words([no_better], rule.member_seconds(get.results)))


def _local_p_sort(f, get):
    test = f.separated_holm([(get("local_p", "sort"), get("additive", "sort"), False)])[0]
    ours = (f"seq acc 1–25 on sort: local_p {get.cell('local_p', 'sort')} against global "
            f"additive {get.cell('additive', 'sort')} ({test[1]}); on copy and reverse "
            f"{get.cell('local_p', 'copy')} and {get.cell('local_p', 'reverse')}")
    from attention_research.reports import stats
    equal = _within_margin(stats.difference_interval(get("local_p", "sort"),
                                                     get("additive", "sort")))
    verdict = "holds" if test[0] else "does not hold" if equal else "inconclusive"
    one_rule, power = f.one_rule_reading(
        [(get("local_p", "sort"), get("additive", "sort"), False)], verdict=verdict,
        results=get.results)
    return dataclasses.replace(_finding(
        f, "local-p-fails-sort", ours, verdict,
        "local_p below global additive on sort by Welch's t: holds; the 95% interval of the "
        f"difference inside ±{MARGIN} (the refuting outcome, added after an audit found "
        "none, issue 35): does not hold; else inconclusive. Why (a wrong p_t hides "
        "everything beyond ±D) is a hypothesis" + one_rule, PLOT.format(task="sort")),
        power=power)


def _pointer_limits(f, get):
    from attention_research.reports import stats
    unseen = {t: stats.t_interval(get("pointer_generator", t, UNSEEN))
              for t in ("copy", "reverse")}
    sort_test = f.separated_holm(
        [(get("pointer_generator", "sort"), get("additive", "sort"), False)])[0]
    ours = ("; ".join(f"{t} 26–50 (never trained): {unseen[t].cell()} against additive "
                      f"{get.cell('additive', t, UNSEEN)}" for t in unseen)
            + f"; sort 1–25: {get.cell('pointer_generator', 'sort')} against additive "
            f"{get.cell('additive', 'sort')} ({sort_test[1]})")
    far = all(i.high is not None and i.high < 0.5 for i in unseen.values())
    verdict = ("holds" if far and sort_test[0]
               else "does not hold" if not far and not sort_test[0] else "inconclusive")
    from experiments.lab import rule
    levels = [rule.decide_level(get("pointer_generator", t, UNSEEN),
                                rule.Claim(0.5, rule.BELOW)) for t in unseen]
    return dataclasses.replace(_finding(
        f, "pointer-generator-limits", ours, verdict,
        "the pointer-generator's 95% interval on 26–50 below 0.5 on copy and reverse, and "
        "below additive on sort by Welch's t: holds; neither: does not hold; else "
        "inconclusive", PLOT.format(task="sort")),
        power=f.one_rule_reading([(get("pointer_generator", "sort"), get("additive", "sort"),
                                   False)], results=get.results, also=levels)[1])


def _location_aware_sort(f, get):
    from attention_research.reports import stats
    from experiments.lab import rule
    rnn = stats.separation({n: get(n, "sort") for n in NAMES})
    ours = (f"seq acc 1–25 on sort: location_aware {get.cell('location_aware', 'sort')}, "
            f"softmax additive {get.cell('additive', 'sort')}; the highest RNN mean among "
            f"the ruled formulations: {rnn.leader} {get.cell(rnn.leader, 'sort')}")
    # The coverage model without its loss, a control shown beside and read by no rule.
    no_loss = get(NO_LOSS, "sort")
    no_loss_trained = bool(no_loss) and all(v is not None for v in no_loss)
    if rnn.leader == "coverage, final phase":
        before, after = (get.at("coverage, final phase", "sort", n) for n in (1200, 1500))
        lower = sum(b is not None and a is not None and a < b for a, b in zip(after, before))
        ours += (". The leader is issue 35's coverage control, added after this observation "
                 "was first made; its loss, on for the last fifth of training only (from "
                 "about a tenth of the peak learning rate), leaves its sort accuracy lower "
                 f"at step 1500 than at 1200, when it starts, on {lower} of {len(after)} "
                 "seeds, so its coverage score rather than the loss may be what sorts: the "
                 "same model without the loss " + (
                     get.cell(NO_LOSS, "sort") if no_loss_trained
                     else "is defined but not yet trained"))
        if no_loss_trained and stats_mean(no_loss) > stats_mean(get(rnn.leader, "sort")):
            # A sixth referee: the control shown beside is higher still, though no rule
            # reads it.
            ours += " (shown beside, read by no rule, and higher than the ruled leader)"
    # Revised after a referee (issue 73; results/compare_attention/README.md, Decision
    # log): the registered rule read 'does not hold' off the ordering of the means. Now
    # each side needs the lab's one rule: location_aware ahead of every other ruled RNN
    # formulation by more than the minimum effect (all must hold: no correction), or one
    # of them ahead of it by more (any may: Bonferroni over the others).
    claim = rule.Claim(stats.ACCURACY.min_effect, rule.ABOVE)
    others = [n for n in NAMES if n != "location_aware"]
    family = stats.LEVEL / len(others)
    aware = get("location_aware", "sort")
    above = {o: rule.decide(aware, get(o, "sort"), claim, stats.ACCURACY) for o in others}
    ahead = {o: rule.decide(get(o, "sort"), aware, claim, stats.ACCURACY, level=family)
             for o in others}
    beaten_by = [o for o, d in ahead.items() if d.verdict == rule.REPRODUCED]
    if rnn.leader == "location_aware":
        closest = min(above.values(), key=lambda d: d.interval.low if d.interval else -1)
        ours += (f". By the lab's one rule, location_aware above each of the other "
                 f"{len(others)}: {sum(d.verdict == rule.REPRODUCED for d in above.values())} "
                 f"separated; its narrowest lead, {closest.words()}")
        deciding = list(above.values())
    else:
        ours += (f". By the lab's one rule at the family's level ({len(others)} others, "
                 f"Bonferroni: {family:.2g}), {rnn.leader} − location_aware "
                 f"{ahead[rnn.leader].words()}; separated ahead of location_aware: "
                 f"{', '.join(beaten_by) or 'none'}")
        deciding = [ahead[rnn.leader]]
    if no_loss_trained:
        # The referee's other reading: the control beside would separate. It is named,
        # not ruled (no fresh seeds of it were trained).
        beside = rule.decide(no_loss, aware, claim, stats.ACCURACY, level=family)
        ours += (f". Beside, read by no rule (a control, never trained on fresh seeds): "
                 f"the coverage model without its loss − location_aware at the same level "
                 f"{beside.words()}")
    verdict = ("holds" if all(d.verdict == rule.REPRODUCED for d in above.values())
               else "does not hold" if beaten_by else "inconclusive")
    return dataclasses.replace(_finding(
        f, "location-aware-sorts-best", ours, verdict,
        "seq acc 1–25 on sort at step 1500, 5 seeds a formulation, the lab's one rule "
        "(experiments/lab/rule.py) against the minimum effect 0.02: holds if location_aware "
        f"lies above each of the other {len(others)} ruled RNN formulations (every 95% "
        "interval of location_aware − other beyond +0.02); does not hold if another lies "
        "above it (an interval of other − location_aware beyond +0.02, at the level "
        "Bonferroni-corrected over the others); else inconclusive. Revised after a "
        "referee (issue 73): the registered rule read 'does not hold' off the highest mean, "
        "an ordering no test separated, and the fresh seeds gave another leader "
        "(results/compare_attention/README.md, Decision log). The Transformers "
        "(0.97–0.98) are not part of this claim", PLOT.format(task="sort")),
        power=rule.power_words(deciding, rule.member_seconds(get.results)))


def _cosine_unseen(f, get):
    content = ("dot", "general", "additive")
    tests = f.separated_holm([(get("cosine", t, UNSEEN), get(o, t, UNSEEN), True)
                              for t in ("copy", "reverse") for o in content])
    pairs = [(t, o) for t in ("copy", "reverse") for o in content]
    ours = "; ".join(
        f"{t}: cosine {get.cell('cosine', t, UNSEEN)} against {o} "
        f"{get.cell(o, t, UNSEEN)} ({test[1]})" for (t, o), test in zip(pairs, tests)
    ) + " (seq acc 26–50, never trained)"
    # Revised with location-aware-sorts-best's row (issue 73, a referee): 'does not hold'
    # had been read off a higher mean; now it needs a content score separated above
    # cosine by the lab's one rule, Bonferroni over the 6 contrasts. No verdict moved
    # (cosine has the highest mean on both tasks).
    from attention_research.reports import stats
    from experiments.lab import rule
    ahead = [rule.decide(get(o, t, UNSEEN), get("cosine", t, UNSEEN),
                         rule.Claim(stats.ACCURACY.min_effect, rule.ABOVE), stats.ACCURACY,
                         level=stats.LEVEL / len(pairs)) for t, o in pairs]
    verdict = ("holds" if all(s for s, _ in tests)
               else "does not hold" if any(d.verdict == rule.REPRODUCED for d in ahead)
               else "inconclusive")
    return dataclasses.replace(_finding(
        f, "cosine-keeps-most-beyond-training", ours, verdict,
        "cosine above dot, general and additive on 26–50 of copy and reverse by Welch's t "
        "(Holm over the 6): holds; another above cosine on a task by the lab's one rule "
        "(its 95% interval beyond +0.02, Bonferroni over the 6; revised after a referee, "
        "issue 73, from 'another's mean higher'): does not hold; else inconclusive",
        PLOT.format(task="reverse")),
        power=f.one_rule_reading([(get("cosine", t, UNSEEN), get(o, t, UNSEEN), True)
                                  for t in ("copy", "reverse") for o in content],
                                 results=get.results)[1])


def stats_mean(values) -> float:
    from attention_research.reports import stats
    return float(stats.finite(values).mean())
