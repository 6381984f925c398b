"""The observations experiments/transformer_scores.py's record decides (rows of
experiments/FINDINGS.md): the scores inside the Transformer, by their rules.
"""

# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from attention_research.metric_names import auc, column, length_range
from experiments.transformer_scores import (  # noqa: F401
    REPLICATED, SEEDS)


SEEN = column("seq_acc", length_range(1, 25))
SEEN_AUC = auc(SEEN)

# Rules written after the record they decide (results/transformer_scores/README.md,
# Decision log); the page says so on each row (findings._written_after).
RULES_AFTER_FIRST_RUN = {
    key: "433d059, 2026-11-24 16:24, after the 5-seed record of 14:41, 3da87d5"
    for key in ("transformer-additive-fits-faster-at-a-cost", "transformer-unscaled-dot-trails")}


def findings(results):
    """The claims (docs/models.md) about the Transformer's scores on reverse, as observations
    (no paper states them): additive's larger area under the learning curve and its
    cost, and unscaled dot behind scaled_dot."""
    import json

    from experiments.lab import findings as f
    from attention_research.reports import stats
    rows = f.report_rows(results)
    names = ("scaled_dot", "additive", "dot")
    settings = [f"score-{n}" for n in names]
    keys = [("transformer-additive-fits-faster-at-a-cost",
             "In the Transformer, additive fits faster than scaled_dot, at several times the time"),
            ("transformer-unscaled-dot-trails", "In the Transformer, unscaled dot trails scaled_dot")]
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):
        return [f.pending(k, t, None, f"{complete} of {len(settings) * len(SEEDS)} members")
                for k, t in keys]
    auc = {n: f.column(rows, SEEN_AUC, setting=f"score-{n}") for n in names}
    final = {n: f.column(rows, SEEN, setting=f"score-{n}") for n in names}
    # Each cohort's wall time (every member of a cohort reports its cohort's).
    seconds = {n: max(json.loads(p.read_text())["wall_time_s"]
                      for p in f.member_files(results, f"score-{n}", "summary.json"))
               for n in ("scaled_dot", "additive")}
    ratio = seconds["additive"] / seconds["scaled_dot"]
    (faster, faster_test), (trails, trails_test) = f.separated_holm(
        [(auc["additive"], auc["scaled_dot"], True), (final["dot"], final["scaled_dot"], False)])
    cell = lambda values: stats.t_interval(values).cell()  # noqa: E731
    reached = lambda name: sum(v is not None for v in f.column(  # noqa: E731
        rows, "step_to_0.99", setting=f"score-{name}"))
    plot = "results/transformer_scores/plots/learning_curves.png"
    fits_faster = ("holds" if faster and ratio > 2 else
                   "does not hold" if stats.finite(auc["additive"]).mean()
                   <= stats.finite(auc["scaled_dot"]).mean() else "inconclusive")
    dot_trails = ("holds" if trails else "does not hold" if stats.finite(final["dot"]).mean()
                  >= stats.finite(final["scaled_dot"]).mean() else "inconclusive")
    faster_rule = f.one_rule_reading([(auc["additive"], auc["scaled_dot"], True)],
                                     verdict=fits_faster, results=results)
    trails_rule = f.one_rule_reading([(final["dot"], final["scaled_dot"], False)],
                                     verdict=dot_trails, results=results)
    return [
        f.Finding(
            *keys[0], None,
            f"area under seq acc 1-25: additive {cell(auc['additive'])} against scaled_dot "
            f"{cell(auc['scaled_dot'])} ({faster_test}); final {cell(final['additive'])} "
            f"and {cell(final['scaled_dot'])}; the {len(SEEDS)}-seed cohort took {seconds['additive']:,.0f} s "
            f"against {seconds['scaled_dot']:,.0f} s (×{ratio:.1f}; one cohort each, on one "
            "core of this project's 2-core CPU while the other trained: no interval, and the "
            "ratio moves with cohort size and load)",
            fits_faster,
            "additive's area above scaled_dot's by Welch's t (Holm over this experiment's 2 "
            "tests) and its cohort more than twice as long: holds; its mean area not above: "
            "does not hold; else inconclusive" + faster_rule[0], plot, power=faster_rule[1]),
        f.Finding(
            *keys[1], None,
            f"seq acc 1-25 at step 1500: dot {cell(final['dot'])} against scaled_dot "
            f"{cell(final['scaled_dot'])} ({trails_test}); seeds reaching 0.99 (descriptive, "
            f"beside the rule): dot {reached('dot')} of {len(SEEDS)}, scaled_dot "
            f"{reached('scaled_dot')} of {len(SEEDS)}",
            dot_trails,
            "dot below scaled_dot by Welch's t (Holm over 2): holds; its mean not below: "
            "does not hold; else inconclusive. That the cause is the unscaled scores' "
            "spread is tested in score_scaling, not here" + trails_rule[0], plot,
            power=trails_rule[1]),
    ]
