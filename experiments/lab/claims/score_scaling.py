"""The claims experiments/score_scaling.py's record decides (rows of experiments/FINDINGS.md):
Vaswani et al.'s √d spread of unscaled dot scores, the softmax it saturates, and the
scaling that training needs at large d_k (their reading of Britz et al.), by their rules.
"""

# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from attention_research.metric_names import auc, column, length_range
from experiments.score_scaling import (  # noqa: F401
    REPLICATED, SEEDS, SIZES)


SEEN = column("seq_acc", length_range(1, 25))
SEEN_AUC = auc(SEEN)

VASWANI = ("Vaswani et al. 2017, §3.2.1 and footnote 4: with unit-variance components, "
           "qᵀk has variance d_k, so its spread grows as √d_k (×8 from d_k = 16 to 1024)")


# Why the untrained rows are checks, not findings (issue 73: a referee's audit).
BY_CONSTRUCTION = (
    "score_statistics draws q and k with independent unit-variance components, and dot "
    "has no parameters, so qᵀk has variance d_k exactly as footnote 4 derives it: the "
    "spread grows as √d_k by the identity, and this row checks that the code computes "
    "it. Whether trained models' scores spread so is not measured (that would take the "
    "scores of score_scaling's own models at step 0 and after training). The record "
    "score_scaling_replication draws again on seeds 100-102: the same identity, not a "
    "replication")
SATURATES = (
    "on the same unit-variance draws the scores spread as √d_k (the row above), and a "
    "softmax over scores of growing spread concentrates on its largest, so its entropy "
    "and Jacobian norm fall as d_k grows by the same construction; scaled_dot's 'does "
    "not fall' is a non-separation, shown, not ruled. Whether trained models' softmaxes "
    "saturate so is not measured")


def findings(results):
    """The untrained measurement (untrained.csv) and the training sweep (summary.csv)."""
    from experiments.lab import findings as f
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    out = []
    if (results / "untrained.csv").is_file():
        rows = f.read_table(results / "untrained.csv")
        std = lambda score, d: f.column(rows, "score_std", score=score, d=float(d))
        ratio = stats.t_interval([a / b for a, b in zip(std("dot", 1024), std("dot", 16))])
        flat = stats.t_interval([a / b for a, b in zip(std("scaled_dot", 1024),
                                                        std("scaled_dot", 16))])
        near = ratio.low is not None and 0.9 * 8 <= ratio.low and ratio.high <= 1.1 * 8
        out.append(f.Finding(
            "score-std-grows-as-root-d", "Unscaled dot scores spread as √d", VASWANI,
            f"dot: ×{ratio.cell(2)} (n = {ratio.n}); scaled_dot: ×{flat.cell(2)}",
            "verified" if near else "not verified",
            "the ratio's 95% interval lies within 10% of √(1024/16) = 8",
            "results/score_scaling/plots/untrained_statistics.png",
            construction=BY_CONSTRUCTION))
        jac = lambda score, d: f.column(rows, "jacobian_norm", score=score, d=float(d))
        ent = lambda score, d: f.column(rows, "entropy", score=score, d=float(d))
        dot_drop, dot_test = f.separated(jac("dot", 16), jac("dot", 1024), rule=stats.ANY)
        flat_drop, _ = f.separated(jac("scaled_dot", 16), jac("scaled_dot", 1024),
                                   rule=stats.ANY)
        out.append(f.Finding(
            "dot-saturates-the-softmax", "Large d saturates the softmax of unscaled dot",
            "Vaswani et al. 2017, §3.2.1: large dot products push the softmax \"into regions "
            "where it has extremely small gradients\" (no number given)",
            f"dot, d = 16 → 1024: entropy {cell(ent('dot', 16))} → {cell(ent('dot', 1024))} "
            f"nats, ‖∂α/∂e‖_F {cell(jac('dot', 16))} → {cell(jac('dot', 1024))}; scaled_dot "
            f"‖∂α/∂e‖_F {cell(jac('scaled_dot', 16))} → {cell(jac('scaled_dot', 1024))}",
            "verified" if dot_drop and not flat_drop else "not verified",
            f"dot's Jacobian norm falls from d = 16 to 1024 ({dot_test}); scaled_dot's does "
            f"not fall by that test",
            "results/score_scaling/plots/untrained_statistics.png",
            construction=SATURATES))
    # Retitled (issue 73): Britz et al. compare multiplicative with additive attention in
    # an RNN at d = 128-1024 in BLEU; this row compares dot with scaled_dot in a
    # Transformer at d_k = 16-1024, which is Vaswani et al.'s reading of them.
    britz = ("Vaswani et al. 2017, §3.2.1, reading Britz et al. 2017: for small d_k "
             "dot-product and additive attention perform similarly, for larger d_k "
             "unscaled dot products fall behind, so Vaswani et al. scale them by 1/√d_k "
             "(Britz et al.'s BLEU, an RNN, no scaling: multiplicative 22.03 / 22.33 / "
             "21.78 / 18.22 and additive 22.23 / 22.33 / 22.47 / 22.10 at d = 128 / 256 / "
             "512 / 1024)")
    title = "Scaling dot products by 1/√d_k helps only at large d_k"
    rows = f.report_rows(results)
    settings = [f"score-{score}_head_dim-{d}" for score in ("dot", "scaled_dot") for d in SIZES]
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):  # judge the whole sweep, not a part of it
        out.append(f.pending("dot-slows-training-at-large-d", title, britz,
                             f"Transformer, one head, d_k 16 … 1024, 5 seeds: {complete} of "
                             f"{len(settings) * len(SEEDS)} members in the report"))
        return out
    auc = lambda score, d: f.column(rows, SEEN_AUC,
                                    setting=f"score-{score}_head_dim-{d}")
    large, large_test = f.separated(auc("scaled_dot", 1024), auc("dot", 1024))
    small, small_test = f.separated(auc("scaled_dot", 16), auc("dot", 16))
    verdict = ("reproduced" if large and not small else
               "not reproduced" if not large else "inconclusive")
    # Every size the sweep trained, by the same test (a fifth referee found the title's
    # 'every d_k' read off the two ends alone).
    middle = {d: f.separated(auc("scaled_dot", d), auc("dot", d)) for d in SIZES[1:-1]}
    every = small and large and all(found for found, _ in middle.values())
    if every:  # the title says what the sweep shows beside the claim it names
        title += f": here it helps at every d_k tested ({', '.join(map(str, SIZES))})"
    out.append(f.Finding(
        "dot-slows-training-at-large-d", title, britz,
        f"area under seq acc 1-25, scaled_dot vs dot, {len(SEEDS)} seeds an arm: "
        + "; ".join(f"d_k = {d} {cell(auc('scaled_dot', d))} vs {cell(auc('dot', d))}"
                    for d in SIZES)
        + ". Between the ends, read by no rule: " + "; ".join(
            f"d_k = {d} {'above' if found else 'not above'} ({test})"
            for d, (found, test) in middle.items())
        # A fresh referee (issue 73): the title's 'every d_k' rests on these seeds alone.
        + (f". 'Helps at every d_k' is read on these {len(SEEDS)} seeds alone, by four "
           "Welch tests at 5% (uncorrected), and is not replicated: the row is "
           "inconclusive, so no fresh seeds were trained for it" if every else ""),
        verdict,
        "reproduced if scaled_dot is above dot by Welch's t at 5% at d_k = 1024 but not at "
        "16 (Britz: unscaled products fall behind only at large d); not reproduced if not "
        "above at 1024; inconclusive otherwise. What is tested is Vaswani et al.'s "
        "scaling in a Transformer, one head, on reverse, not Britz et al.'s multiplicative "
        "against additive attention in an RNN (d = 128-1024, BLEU), and d_k = 16 lies "
        "below Britz et al.'s range. Here: "
        f"{'above' if large else 'not above'} at 1024 ({large_test}), "
        f"{'above' if small else 'not above'} at 16 ({small_test}). Its rule, Welch's t at "
        "5%, was registered before the lab's one decision rule; the one rule, reading 'not "
        "at 16' as a claim (the difference under +0.02), would give not reproduced, read "
        f"off an arm below Britz et al.'s range whose unscaled scores already spread √16 = 4 "
        "(not small): the row keeps inconclusive, since the 'only' is not tested. The "
        "'only at large d_k' is Vaswani et al.'s reading of Britz et al.'s comparison; "
        "Vaswani et al. do not claim that scaling is useless at small d_k, so scaling "
        "helping at every d_k tested here does not contradict them",
        "results/score_scaling/plots/learning_curves.png",
        power=("no seeds decide the 'only': an arm at d_k ≤ 4, or additive as the "
               "comparison, would") if small else ""))
    return out
