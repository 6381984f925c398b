"""The claims experiments/hard_vs_soft.py's record decides (rows of experiments/FINDINGS.md):
Xu et al.'s hard attention against soft, and what REINFORCE's estimator gains from the
soft steps, by their rules.
"""

from attention_research.metric_names import auc, column, eval_key, length_range
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.hard_vs_soft import (  # noqa: F401
    ALL_SAMPLED_WEIGHTS, NO_REINFORCE, REPLICATED, SAME_POINT, SEEDS, TASKS,
    XU_CODE_SETTINGS, XU_CODE_WEIGHTS, XU_SCALE, get_config)


SEEN = column("seq_acc", length_range(1, 25))
SEEN_AUC, SEEN_ALIGN = auc(SEEN), column("align_acc", length_range(1, 25))
SPANS = {"26-50": column("seq_acc", length_range(26, 50)), "1-25": SEEN}

ALL_SAMPLED_PREFIX = ("alignment-hard_reward-sequence_mean_soft_fraction-0.0_soft_unit-sequence"
                      "_reinforce_weight-")
SOFT = "alignment-global"
XU_EQ12 = "alignment-hard_reward-sequence_soft_fraction-0.5_soft_unit-sequence"
XU_CODE_PREFIX = ("alignment-hard_reward-sequence_mean_soft_fraction-0.5_soft_unit-sequence"
                  "_reinforce_weight-")
XU = XU_CODE_PREFIX + "0.1"
OURS = "alignment-hard_reward-token_soft_fraction-0.0_soft_unit-step"
XU_TABLE = ("Xu et al. 2015, Table 1 (BLEU-4, soft / hard): Flickr8k 19.5 / 21.3, "
            "Flickr30k 18.9 / 19.9, COCO 24.3 / 25.0: hard attention, trained with their "
            "estimator, is slightly better")


# The decision rules (when each was written, revised or replaced, and why:
# results/hard_vs_soft/README.md, "Decision log").
ACCURACY_RULE = (
    "area under seq acc 1-25 (steps 0-1500) of Xu's code setting (reward R/|y|, λ_r = 0.1, "
    "the expected context on half the sequences) against soft, per task, 5 seeds, "
    "Welch's t Holm-corrected over the 2 tasks, with the accuracy rule (floor 0.05, minimum "
    "effect 0.02: stats.ACCURACY): reproduced if above soft on both tasks, not reproduced "
    "if below on both, otherwise inconclusive, and 'matches soft' where the difference's "
    "95% interval lies inside ±0.1 on both. Sensitivity: on copy, λ_r = 0.1, 0.32, 1 and "
    "3.2 each against soft by the same rule (Holm over the 4); the verdict says "
    "'depends on λ_r' where their outcomes differ. Eq. 12's summed reward at λ_r = 1 (the "
    "first record) is reported beside, not part of the verdict; on copy/reverse, not "
    "captioning")
XU_SCALE_RULE = (
    "Xu's code at Xu's relative scale (reward R/|y|, λ_r = B/10 and entropy weight 0.002·B "
    "for their batch sizes B = 16 and 64, the expected context on half the sequences in "
    "training and at test), 5 seeds, final held-out sequence accuracy against soft, per "
    "task: reproduced if at both B it is above soft on lengths 26-50 (never trained; on "
    "1-25 both sit at the ceiling) on both tasks by the accuracy rule (Holm over the 2 "
    "tasks × 2 B) and below soft on 1-25 on neither; not reproduced if below soft on 1-25 "
    "or 26-50 on a task at both B; else inconclusive, saying 'depends on B' where the two "
    "disagree. Area under the curve beside. Written after an audit found λ_r = 0.1 below "
    "Xu's relative scale, and after the λ_r = 0.1 runs (which put hard ahead on 26-50), "
    "before these were trained; the first rule's result (area at λ_r = 0.1) is beside")
BETWEEN_RUNS_NOISE_RULE = (
    "Xu et al. §4.1 add the moving-average baseline and the soft steps to reduce "
    "REINFORCE's variance; the soft steps are tested (the baseline is always on here): the "
    "unbiased signal to noise (‖ḡ‖² − tr Cov/N) / tr Cov = recorded ratio − 1/N (N = 100 "
    "minibatches) of the attention parameters' gradient, Xu's code (R/|y|, λ_r = 0.1) "
    "with the expected context on half the sequences against every sequence sampled, per "
    "task at steps 100 and 500, once the baseline has settled, Welch's t Holm-corrected "
    "over the 4, minimum effect 0.05: reproduced if above at all 4, not reproduced if "
    "below at any, else inconclusive. Revised after an audit found that the first rule's "
    "step 0 measured REINFORCE before its baseline existed (b = 0, the advantage the whole "
    "reward); these data were recorded before the revision, so the replication on fresh "
    "seeds is its test. REINFORCE against soft attention is shown beside")
NOISE_RULE = (
    "revised again, before its members were trained, after a second audit found that the "
    "rule above compares two runs at their own steps 100 and 500, so at different "
    "parameters (the soft-half run has learned by then, the all-sampled one has not), and "
    "cannot separate the estimator from the point it is measured at. Now: in the "
    "soft-half runs (Xu's code, R/|y|, λ_r = 0.1), 5 seeds, per task at steps 100 and 500, "
    "both estimators at the same parameters, baseline and minibatches "
    "(train.gradient_alt_soft_fraction = 0): the unbiased signal to noise of the soft-half "
    "estimator against every sequence sampled, Welch's t Holm-corrected over the 4, "
    "minimum effect 0.05: reproduced if above at all 4, not reproduced if below at any, "
    "else inconclusive. The between-run comparison of the rule before is shown beside. "
    "That rule: " + BETWEEN_RUNS_NOISE_RULE)
NOISE_STEPS = (0, 100, 500)
SOFT_HALF_RULE = (
    "on copy, 5 seeds, area under seq acc 1-25: Xu's code setting without REINFORCE "
    "(λ_r = 0, the soft half alone trains the attention) against the same at λ_r = 0.1, "
    "non-inferiority with a margin of 0.05 (the low end of the difference's 95% Welch "
    "interval above −0.05); and every sequence sampled (soft_fraction 0) at λ_r = 0.1, 1 "
    "and 3.2 each below soft by the accuracy rule (Holm over the 3). Holds if both; does "
    "not hold if λ_r = 0 is below λ_r = 0.1 by the accuracy rule or an all-sampled λ_r is "
    "not below soft with a mean within 0.05 of it; else inconclusive. Written before "
    "these members were trained, after the λ_r sweep was seen")

# A rule written after the record it decides (results/hard_vs_soft/README.md, Decision
# log); the page says so on the row (findings._written_after).
RULES_AFTER_FIRST_RUN = {"per-token-reinforce-is-slower":
                         "f1c705d, 2026-11-24 16:46, after the record of 2026-11-23, d315a31"}


def findings(results):
    """Accuracy of Xu's estimator against soft; the noise of the gradients; two
    observations. Each waits for the settings it reads alone."""
    from experiments.lab import findings as f
    rows = f.report_rows(results)

    def waiting(settings, key, title, paper):
        needed = [f"task-{task}_{s}" for task, s in settings]
        complete = f.finished_members(rows, needed, len(SEEDS))
        if complete == len(needed) * len(SEEDS):
            return None
        return f.pending(key, title, paper, f"RNN, additive score, {len(SEEDS)} seeds: "
                         f"{complete} of {len(needed) * len(SEEDS)} members in the report")

    both = [(t, s) for t in TASKS for s in (SOFT, XU, OURS)]
    noise = both + [(t, sweeps.member_name(XU_CODE_SETTINGS[0])) for t in TASKS] + [
        (t, sweeps.member_name(SAME_POINT)) for t in TASKS]
    accuracy = both + [(t, XU_EQ12) for t in TASKS] + [
        ("copy", XU_CODE_PREFIX + str(w)) for w in XU_CODE_WEIGHTS] + [
        (t, sweeps.member_name(x)) for t in TASKS for x in XU_SCALE]
    noise_paper = ("Xu et al. 2015, §4.1: the moving-average baseline and the soft steps are "
                   "there to reduce REINFORCE's variance (no number given)")
    speed = [(t, s) for t in TASKS for s in (SOFT, OURS)]
    # Issue 73: hard_vs_soft_converged decides the first two rows again, in distribution,
    # at convergence, by rules written before its runs; once its record is complete, its
    # rows replace these (its SUPERSEDES).
    return [
        waiting(accuracy, "hard-attention-accuracy", "Hard attention (Xu's estimator) "
                "against soft", XU_TABLE) or _accuracy(f, rows),
        waiting(noise, "reinforce-gradient-noise", "The soft steps raise REINFORCE's signal "
                "to noise", noise_paper) or _noise(f, results),
        _per_token_speed_row(waiting, speed, f, rows, results), _soft_half(f, rows, results)]


def _per_token_speed_row(waiting, speed, f, rows, results=None):
    return (waiting(speed, "per-token-reinforce-is-slower", "Hard attention with a "
                    "per-token reward is slower than soft", None)
            or _per_token_speed(f, rows, results))


def _accuracy(f, rows):
    """Xu's code at Xu's relative scale against soft (XU_SCALE_RULE); the first rule's
    λ_r = 0.1 area and the λ_r sweep beside."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    get = lambda metric, task, setting: f.column(rows, metric,  # noqa: E731
                                                 setting=f"task-{task}_{setting}")
    scale = [sweeps.member_name(x) for x in XU_SCALE]
    batches = (16, 64)
    found = {}
    for span in ("26-50", "1-25"):  # Holm over the 2 tasks × 2 B of each span, as written
        keys = [(b, task, span) for b in batches for task in TASKS]
        found.update(zip(keys, stats.contrasts(
            [(get(SPANS[span], task, scale[batches.index(b)]),
              get(SPANS[span], task, SOFT)) for b, task, span in keys],
            stats.ACCURACY)))
    per_batch = []
    for b in batches:
        ahead = all(found[b, t, "26-50"].above for t in TASKS)
        behind = [found[b, t, span].below for t in TASKS for span in ("26-50", "1-25")]
        per_batch.append("reproduced" if ahead and not any(behind)
                         else "not reproduced" if any(behind) else "inconclusive")
    verdict = per_batch[0] if len(set(per_batch)) == 1 else "inconclusive"
    parts = []
    for b, setting in zip(batches, scale):
        for task in TASKS:
            parts.append(
                f"B = {b} (λ_r {b / 10:g}), {task}: seq acc 26-50 "
                f"{cell(get(SPANS['26-50'], task, setting))} vs soft "
                f"{cell(get(SPANS['26-50'], task, SOFT))} "
                f"({found[b, task, '26-50'].words(corrected=True)}); 1-25 "
                f"{cell(get(SEEN, task, setting))} vs "
                f"{cell(get(SEEN, task, SOFT))}; area "
                f"{cell(get(SEEN_AUC, task, setting))} vs "
                f"{cell(get(SEEN_AUC, task, SOFT))}")
    auc = lambda task, setting: get(SEEN_AUC, task, setting)  # noqa: E731
    first = stats.contrasts([(auc(task, XU), auc(task, SOFT)) for task in TASKS],
                            stats.ACCURACY)
    sweep = ", ".join(f"{w:g} {cell(auc('copy', XU_CODE_PREFIX + str(w)))}"
                      for w in XU_CODE_WEIGHTS)
    ours = ("; ".join(parts)
            + (f". Depends on B: {', '.join(f'{b} {v}' for b, v in zip(batches, per_batch))}"
               if len(set(per_batch)) > 1 else "")
            + ". First rule (area 1-25 at λ_r = 0.1, argmax at test): "
            + "; ".join(f"{t} {cell(auc(t, XU))} vs soft {cell(auc(t, SOFT))} "
                        f"({c.words(corrected=True)})" for t, c in zip(TASKS, first))
            + f"; λ_r on copy: {sweep}; Eq. 12's summed reward at λ_r = 1: copy "
            f"{cell(auc('copy', XU_EQ12))}, reverse {cell(auc('reverse', XU_EQ12))}")
    return f.Finding("hard-attention-accuracy", "Hard attention (Xu's estimator) against soft",
                     XU_TABLE, ours, verdict, XU_SCALE_RULE,
                     "results/hard_vs_soft/plots/learning_curves_reverse.png")


def _noise(f, results):
    """The soft half's effect on the REINFORCE gradient's signal to noise (NOISE_RULE)."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    count = get_config().train.gradient_batches
    sampled = sweeps.member_name(XU_CODE_SETTINGS[0])  # every sequence sampled

    same_point = sweeps.member_name(SAME_POINT)

    def snr(task, setting, step, metric="grad_snr"):
        values = f.member_values(results, f"task-{task}_{setting}", eval_key(metric, "attention"),
                                 step=step)
        return [None if v is None else v - 1 / count for v in values]

    rule = stats.Rule("in signal to noise", floor=None, min_effect=0.05)
    steps = [n for n in NOISE_STEPS if n > 0]
    keys = [(task, step) for step in steps for task in TASKS]
    tests = dict(zip(keys, stats.contrasts(
        [(snr(t, same_point, n), snr(t, same_point, n, "grad_snr_alt")) for t, n in keys],
        rule)))
    between = dict(zip(keys, stats.contrasts(
        [(snr(t, XU, n), snr(t, sampled, n)) for t, n in keys], rule)))
    beside = {(t, n, s): stats.contrast(snr(t, s, n), snr(t, SOFT, n), rule)
              for t in TASKS for n in NOISE_STEPS for s in (OURS, XU)}
    parts = [f"{task}, step {step}: soft-half estimator "
             f"{cell(snr(task, same_point, step), 3)} against every sequence sampled "
             f"{cell(snr(task, same_point, step, 'grad_snr_alt'), 3)} at the same parameters "
             f"({tests[task, step].words(corrected=True)})" for task, step in keys]
    before = [f"{task}, step {step}: soft-half run {cell(snr(task, XU, step), 3)}, "
              f"all-sampled run {cell(snr(task, sampled, step), 3)} "
              f"({between[task, step].words(corrected=True)})" for task, step in keys]
    context = [f"{task}, step {step}: soft attention {cell(snr(task, SOFT, step), 3)}, "
               f"per-token REINFORCE {cell(snr(task, OURS, step), 3)} "
               f"({beside[task, step, OURS].outcome}), Xu's code "
               f"{cell(snr(task, XU, step), 3)} ({beside[task, step, XU].outcome})"
               for step in NOISE_STEPS for task in TASKS]
    verdict = ("reproduced" if all(c.above for c in tests.values()) else
               "not reproduced" if any(c.below for c in tests.values()) else "inconclusive")
    return f.Finding(
        "reinforce-gradient-noise", "The soft steps raise REINFORCE's signal to noise",
        "Xu et al. 2015, §4.1: the moving-average baseline and the soft steps are there to "
        "reduce REINFORCE's variance (no number given)",
        "unbiased (‖ḡ‖² − tr Cov/N)/tr Cov, in the soft-half runs: " + "; ".join(parts)
        + ". Between two runs, at different parameters (the rule before; not evidence of "
        "the estimator): " + "; ".join(before)
        + ". Beside, against soft attention (per-test outcome, uncorrected): "
        + "; ".join(context), verdict, NOISE_RULE,
        "results/hard_vs_soft/plots/learning_curves_reverse.png")


def _soft_half(f, rows, results=None):
    """An observation: in Xu's setting the soft half, not REINFORCE, trains the
    attention (SOFT_HALF_RULE)."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    key, title = ("xu-soft-half-trains-the-attention",
                  "At λ_r = 0.1, REINFORCE adds under 0.05 to what Xu's soft half learns, "
                  "and alone does not train the model in 1,500 steps")
    auc = lambda setting: f.column(rows, SEEN_AUC,  # noqa: E731
                                   setting=f"task-copy_{setting}")
    off = sweeps.member_name(NO_REINFORCE)
    sampled = [ALL_SAMPLED_PREFIX + str(w) for w in [0.1] + ALL_SAMPLED_WEIGHTS]
    needed = [f"task-copy_{s}" for s in [off, XU, SOFT] + sampled]
    complete = f.finished_members(rows, needed, len(SEEDS))
    if complete < len(needed) * len(SEEDS):
        return f.pending(key, title, None, f"copy, {len(SEEDS)} seeds: {complete} of "
                         f"{len(needed) * len(SEEDS)} members in the report")
    gap = stats.difference_interval(auc(off), auc(XU))
    worse = stats.contrast(auc(off), auc(XU), stats.ACCURACY)
    fails = stats.contrasts([(auc(s), auc(SOFT)) for s in sampled], stats.ACCURACY)
    weights = [0.1] + ALL_SAMPLED_WEIGHTS
    ours = (f"copy, area under seq acc 1-25: Xu's code setting at λ_r = 0 {cell(auc(off))} "
            f"against λ_r = 0.1 {cell(auc(XU))} ({worse.words()}); every sequence sampled "
            + ", ".join(f"λ_r = {w:g} {cell(auc(s))} ({c.words(corrected=True)})"
                        for w, s, c in zip(weights, sampled, fails))
            + f"; soft {cell(auc(SOFT))}. Alignment accuracy 1-25 with every sequence "
            "sampled: " + ", ".join(
                f"λ_r = {w:g} {cell(f.column(rows, SEEN_ALIGN, setting=f'task-copy_{s}'))}"
                for w, s in zip(weights, sampled))
            + " (a content-blind argmax scores 25/325 ≈ 0.077): REINFORCE alone moves the "
            "attention, slowly. Not separated here: what the soft half gives through its "
            "backpropagated α from what the expected context gives the decoder")
    non_inferior = gap is not None and gap.low > -0.05
    # A fresh referee: the margin of 0.05 was written after the λ_r sweep was seen; the
    # lab's one rule at its minimum effect (no loss beyond 0.02) is read beside it.
    from experiments.lab import rule
    strict = rule.decide(auc(off), auc(XU), rule.Claim(-stats.ACCURACY.min_effect, rule.ABOVE),
                         stats.ACCURACY)
    ours += (f". By the lab's one rule at its minimum effect (λ_r = 0 no worse than λ_r = 0.1 "
             f"by more than {stats.ACCURACY.min_effect:g}): {strict.words()}"
             + ("; the margin of 0.05, written after the λ_r sweep was seen, is what "
                "decides the row" if strict.verdict != rule.REPRODUCED else ""))
    all_fail = all(c.below for c in fails)
    verdict = ("holds" if non_inferior and all_fail else
               "does not hold" if worse.below or any(
                   not c.below and c.mean_a > c.mean_b - 0.05 for c in fails)
               else "inconclusive")
    # A tenth referee: a decided observation's power cell, as every other row's: the one
    # rule on its non-inferiority contrast and on each all-sampled arm below soft, sized
    # at the one rule's −0.02, not the registered margin's 0.05 (as the sparse row's).
    power = f.one_rule_reading([(auc(s), auc(SOFT), False) for s in sampled], results=results,
                               also=[strict])[1].after(f"at −{stats.ACCURACY.min_effect:g}: ")
    return f.Finding(key, title, None, ours, verdict, SOFT_HALF_RULE,
                     "results/hard_vs_soft/plots/learning_curves_copy.png", power=power)


def _per_token_speed(f, rows, results=None):
    """An observation (no paper states it): hard attention with our per-token reward
    reaches 0.99 later than soft attention, and ends where soft does."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    step = lambda task, setting: f.column(rows, "step_to_0.99",  # noqa: E731
                                          setting=f"task-{task}_{setting}")
    tests = stats.contrasts([(step(t, OURS), step(t, SOFT)) for t in TASKS], stats.STEPS)
    parts = []
    for task, test in zip(TASKS, tests):
        reached = sum(v is not None for v in step(task, OURS))
        final = lambda s: f.column(rows, SEEN, setting=f"task-{task}_{s}")  # noqa: E731
        parts.append(f"{task}: step to 0.99 per-token REINFORCE {cell(step(task, OURS), 0)} "
                     f"({reached} of {len(SEEDS)} reached) against soft "
                     f"{cell(step(task, SOFT), 0)} ({test.words(0, corrected=True)}); final "
                     f"seq acc 1-25 {cell(final(OURS))} against {cell(final(SOFT))}")
    verdict = ("holds" if all(t.above for t in tests) else "does not hold"
               if all(t.mean_a <= t.mean_b for t in tests) else "inconclusive")
    one_rule, power = f.one_rule_reading([(step(t, OURS), step(t, SOFT), True) for t in TASKS],
                                         stats.STEPS, verdict, results)
    return f.Finding(
        "per-token-reinforce-is-slower", "Hard attention with a per-token reward is slower "
        "than soft", None, "; ".join(parts), verdict,
        "per-token REINFORCE's step to 0.99 (checked every 100 steps) later than soft's on "
        "copy and reverse by Welch's t (Holm over the 2) by at least one evaluation "
        "interval (stats.STEPS: minimum effect 100 steps): holds; not later on either: does "
        "not hold; else inconclusive. Seeds that never reach 0.99 are left out of the means"
        + one_rule, "results/hard_vs_soft/plots/learning_curves_reverse.png", power=power)
