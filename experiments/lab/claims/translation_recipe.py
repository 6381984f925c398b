"""The claims experiments/translation_recipe.py's record decides (rows of
experiments/FINDINGS.md): the tuned translation default against the first, by its rule.
"""

from attention_research.metric_names import final_key
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.translation_recipe import (  # noqa: F401
    FIRST_DEFAULT, REPLICATED, SEEDS, SETTINGS, TUNED_DEFAULT)


DEFAULT_SEEDS = 3
BOOTSTRAP = 1000  # resamples of the paired bootstrap beside the test
REPLICATION_READS = {"luong_table4": "luong_table4.py:replicate",
                     "explicit_vs_implicit_translation":
                         "explicit_vs_implicit.py:task=translation,replicate"}

# A rule written after one of the two records it reads (results/translation_recipe/
# README.md, Decision log); the page says so on the row (findings._written_after).
RULES_AFTER_FIRST_RUN = {"tuned-translation-default":
                         "c806456, 2026-11-24 23:12: after one side it reads, "
                         "explicit_vs_implicit's translation members (05:59, 6a88aa7), and "
                         "before the other, luong_table4's additive cohort"}


def findings(results):
    """The tuned default against the first one: test BLEU over seeds (Welch's t decides)
    and the paired bootstrap over test sentences of the seed-mean BLEU beside it; and,
    read by no rule, what the validation sweep says of where the gain comes from."""
    from attention_research.reports import bleu_tests, stats
    from attention_research.reports.tables import interval_cell as cell
    from experiments.lab import findings as f
    from experiments import explicit_vs_implicit
    from experiments.lab.claims import luong_table4
    key, title = ("tuned-translation-default",
                  "The tuned translation default beats the first on test BLEU")
    # The replication (findings.replicate_findings) reads the fresh seeds' records.
    suffix = "_replication" if results.name.endswith("_replication") else ""
    seeds = {TUNED_DEFAULT[0]: luong_table4.SEEDS,
             FIRST_DEFAULT[0]: explicit_vs_implicit.SEEDS}
    sides = {}
    for experiment, setting in (TUNED_DEFAULT, FIRST_DEFAULT):
        folder = results.parent / (experiment + suffix)
        # This run's seeds only: a member of another seed in the folder is not one of
        # the row's.
        own = list(f.REPLICATION_SEEDS) if suffix else seeds[experiment]
        finals = f.member_finals(folder, setting, own)
        sides[experiment] = ([m["final"][final_key("test", "bleu")] for m in finals],
                             [m["final"][final_key("test", "chrf")] for m in finals], folder,
                             setting, own)
    missing = [f"{e}{suffix} {s}: {len(sides[e][0])} of {DEFAULT_SEEDS}"
               for e, s in (TUNED_DEFAULT, FIRST_DEFAULT) if len(sides[e][0]) < DEFAULT_SEEDS]
    if missing:
        return [f.pending(key, title, None, "seeds recorded: " + "; ".join(missing))]
    (tuned, tuned_chrf, *tuned_at), (first, first_chrf, *first_at) = (
        sides[TUNED_DEFAULT[0]], sides[FIRST_DEFAULT[0]])
    better, welch = f.separated(tuned, first, rule=stats.BLEU)
    worse, _ = f.separated(tuned, first, higher=False, rule=stats.BLEU)
    # Each side's test translations, of the seeds read above.
    (tuned_hyps, references), (first_hyps, _) = (luong_table4._translations(*tuned_at),
                                                 luong_table4._translations(*first_at))
    test = bleu_tests.compare_settings({"tuned": tuned_hyps, "first": first_hyps},
                                    references, [("tuned", "first")],
                                    n_samples=BOOTSTRAP)[("tuned", "first")]
    # The smallest p the bootstrap can give is 1 / (B + 1).
    p = ("p ≤ 0.001" if test["p"] <= 1 / (BOOTSTRAP + 1) + 1e-12
         else f"p = {test['p']:.2g}")
    ours = (f"ding_de_en test, RNN with additive attention, {DEFAULT_SEEDS} seeds each: "
            f"BLEU {cell(tuned, 2)} (tuned: label smoothing 0.1, all embeddings tied, "
            f"8000 steps, best validation BLEU; {TUNED_DEFAULT[0]}{suffix}) against "
            f"{cell(first, 2)} (first: a 3000-step schedule decayed to zero at its end, "
            f"the final parameters; {FIRST_DEFAULT[0]}{suffix}); "
            f"chrF {cell(tuned_chrf, 1)} against {cell(first_chrf, 1)}. {welch}; paired "
            f"bootstrap of the seed means {test['difference']:+.2f} BLEU "
            f"[{test['low']:+.2f}, {test['high']:+.2f}], {p}")
    # A fresh referee: the lab's one rule on the same seeds, beside the registered test.
    from experiments.lab import rule
    one_rule = rule.decide(tuned, first, rule.Claim(stats.BLEU.min_effect, rule.ABOVE),
                           stats.BLEU)
    ours += (". By the lab's one rule (tuned − first beyond +"
             f"{stats.BLEU.min_effect:g} BLEU): " + one_rule.words())
    return [f.Finding(
        key, title, None, ours,
        "holds" if better else "does not hold" if worse else "inconclusive",
        f"Welch's t over seeds on test BLEU at 5%, by at least {stats.BLEU.min_effect:g} "
        "BLEU on the difference of the means (stats.BLEU's minimum effect; the seeds' "
        "spread is the larger "
        "uncertainty; the paired bootstrap, which holds the models fixed, is beside it). "
        "A claim about the two recipes as wholes, not their parts: "
        + _where_the_gain_is(results.parent / "translation_recipe")
        + " BLEU on ding_de_en is low (dictionary example sentences, one reference): the "
          "claim is relative, and chrF agrees",
        records=(f"{TUNED_DEFAULT[0]}{suffix}", f"{FIRST_DEFAULT[0]}{suffix}"),
        # A tenth referee: a decided row's power cell, as every other row's.
        power=rule.power_words([one_rule], rule.member_seconds(tuned_at[0])))]


def _where_the_gain_is(record) -> str:
    """What the validation sweep says of the tuned default's gain, read by no rule: its
    ``base`` is the first recipe trained as long as the tuned one, with the best
    checkpoint."""
    from experiments.lab import findings as f
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    values = {name: [m["final"][final_key("validation", "bleu")] for m in
                     f.member_finals(record, sweeps.member_name(SETTINGS[name]))]
              for name in ("baseline", "smooth_tie")}
    if any(len(v) < len(SEEDS) for v in values.values()):
        return "the validation sweep that would say which part pays is not recorded."
    _, words = f.separated(values["smooth_tie"], values["baseline"], rule=stats.BLEU)
    return (f"on the validation split (translation_recipe, {len(SEEDS)} seeds a setting), "
            f"the first recipe trained 8000 steps with the best checkpoint (its baseline) "
            f"reaches BLEU {cell(values['baseline'], 2)} against the tuned default's "
            f"{cell(values['smooth_tie'], 2)} ({words}): smoothing and tying are not "
            f"separated from the longer schedule alone, which looks to be most of the gain "
            f"(a reading, not a test). This row is not evidence that label smoothing or "
            f"tying helps here.")
