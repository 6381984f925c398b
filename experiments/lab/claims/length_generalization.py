"""The claims experiments/length_generalization.py's records decide (rows of
experiments/FINDINGS.md): Dehghani et al.'s collapse far beyond training, Chorowski et
al.'s location-aware attention and RoPE on the seen lengths, by their rules. Press et
al.'s ALiBi and Shaw et al.'s relative positions were decided here on 5 seeds until issue
73; they moved to experiments/lab/claims/relative_positions.py (10 seeds an arm, NoPE
ruled), and this sweep's decoder-only position arms are no row's evidence now.
"""

from pathlib import Path
from attention_research.metric_names import column, length_range
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.length_generalization import (  # noqa: F401
    DECODER_ONLY, MODELS, REPLICATED, SCORE, SEEDS, TASKS, _decoder_only, _transformer)


# Sequence accuracy on the trained lengths, the near and the far unseen ones.
SPANS = {f"{first}-{last}": column("seq_acc", length_range(first, last))
         for first, last in ((1, 20), (21, 80), (81, 200))}

ABSOLUTE = ("sinusoidal", "learned")  # the Transformers of Dehghani et al.'s comparison
FAR = range(81, 201)  # the lengths of Dehghani et al.'s regime (4-10x)
# The decision rules (when each was written: results/length_generalization/README.md,
# "Decision log").
DEHGHANI_RULE = (
    "the decoder-only Transformer with sinusoidal and with learned positions, sequence "
    "accuracy on lengths 81-200 after training on 1-20, 5 seeds: reproduced if every "
    "one's 95% interval lies at or below 0.1 on both tasks, not reproduced if any one's "
    "lies wholly above 0.1, else inconclusive (the last branch added after a referee "
    "found none, issue 73; the registered rule read any other outcome as not reproduced, "
    "and no verdict moves). The encoder-decoder Transformers are shown beside (a second "
    "regime). It is a claim of failure, so it is decided at the floor by nature")
DEHGHANI = {"copy": 0.03, "reverse": 0.06}


def _setting(model: dict, task: str) -> str:
    return sweeps.member_name({**model, "config.task.name": task})

# A rule written after the members it reads (results/length_generalization/README.md,
# Decision log); the page says so on the row (findings._written_after). The Chorowski
# row, written between its two tasks' members, says so in its own words.
RULES_AFTER_FIRST_RUN = {"rope-fits-seen-lengths-worse":
                         "433d059, 2026-11-24 16:24, after the RoPE Transformers were "
                         "recorded at 07:11, 56b73b2"}


def findings(results):
    """The Transformer's collapse far beyond training, against Dehghani et al.;
    location-aware against content-based attention on 10x longer sources, against
    Chorowski et al.; RoPE on the seen lengths (an observation)."""
    from experiments.lab import findings as f
    # Only this reading's seeds (SEEDS, which the page swaps for the replication's 100-102:
    # some of its arms have 5 fresh seeds). A fresh referee found the sequence-accuracy
    # cells reading all five beside token cells that read three.
    rows = [row for row in f.report_rows(results) if int(row["seed"]) in SEEDS]
    return [_dehghani(f, rows, results), _chorowski(f, rows, results),
            _rope(f, rows, results)]


def _finals(f, results, model, task, seeds=None) -> list[dict]:
    """The recorded finals of ``model`` on ``task`` for ``seeds`` (default SEEDS, which
    the replication reads as its seeds 100-102: some of its arms have 5 fresh seeds, and
    the rows read 3)."""
    return f.member_finals(results, _setting(model, task), SEEDS if seeds is None else seeds)


def _plot(results, name: str, only: str) -> str:
    """The sweep's plot once its report is in; until then, that of the --only report the
    finding reads (only/ONLY/plots/)."""
    whole = Path(results) / "plots" / name
    return (f"results/length_generalization/plots/{name}" if whole.is_file()
            else f"results/length_generalization/only/{only}/plots/{name}")


def _missing(f, rows, models, key, title, paper, results):
    """A pending finding while any member of ``models`` x TASKS is unrecorded, else None."""
    settings = [_setting(m, t) for m in models for t in TASKS]
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):
        return f.pending(key, title, paper,
                         f"train 1-20, evaluate to 200, {len(models)} models x 2 tasks x "
                         f"5 seeds: {f.progress(results, rows, settings, len(SEEDS))}")
    return None


def _dehghani(f, rows, results):
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    key, title = "transformer-fails-far-beyond-training", "Transformers fail on lengths far beyond training"
    paper = ("Dehghani et al. 2018, Table 4: a Transformer trained on length 40, tested on "
             "400, sequence accuracy ≈ 0.03 on copy and 0.06 on reverse (character "
             "accuracy 0.53 and 0.13)")
    models = [_decoder_only(p) for p in ABSOLUTE]
    waiting = _missing(f, rows, models, key, title, paper, results)
    if waiting:
        return waiting
    parts, low, high, spread = [], [], [], []
    for task in TASKS:
        for model in models:
            values = f.column(rows, SPANS["81-200"], setting=_setting(model, task))
            interval = stats.t_interval(values)
            low.append(interval.high is not None and interval.high <= 0.1)
            high.append(interval.low is not None and interval.low > 0.1)
            spread.extend(stats.finite(values))
            positions = model["config.model.positions"]
            other = f.column(rows, SPANS["81-200"],
                             setting=_setting(_transformer(positions), task))
            seen = f.column(rows, SPANS["1-20"], setting=_setting(model, task))
            tokens = [sum(by[str(n)] for n in FAR) / len(FAR)
                      for by in (m.get("token_acc_by_length", {})
                                 for m in _finals(f, results, model, task))
                      if all(str(n) in by for n in FAR)]
            parts.append(f"{task}, {positions} positions: {cell(values)} (on the trained "
                         f"1-20 {cell(seen)}; teacher-forced token accuracy on 81-200 "
                         f"{cell(tokens)}; encoder-decoder {cell(other)}; paper "
                         f"{DEHGHANI[task]})")
    return f.Finding(
        key, title, paper,
        "sequence accuracy on lengths 81-200 after training on 1-20, decoder-only "
        "Transformer: " + "; ".join(parts) + ". A failure deeper than the paper's (0.000 "
        "against 0.03/0.06), at 4-10x the trained length where theirs is 10x. Dehghani et "
        "al.'s Transformer had sinusoidal positions, the arm that tests their claim; with "
        "learned positions the rows past 41 never receive a gradient, so that arm fails "
        "there by construction (shown, as the rule names it, but no evidence)",
        "verified" if all(low) else "not verified" if any(high) else "inconclusive",
        DEHGHANI_RULE + " (its 'reproduced' reads 'verified' since the row became a check)"
        ". Our failure is far deeper than theirs: the paper's character "
        "accuracy (0.53, 0.13) against our teacher-forced token accuracy near chance "
        "(shown above), so the regimes differ as well as the lengths",
        _plot(results, "seq_acc_by_length_copy.png", "positions-sinusoidal"),
        power=("every seed of every arm scores 0.000: no spread to size" if spread
               and max(spread) == 0 else ""),
        # A third referee (issue 73): the relative-positions row calls the same arm's
        # failure built in; the page must not call it evidence here.
        construction=(
            "every token scored on 81-200 sits at absolute positions no model here saw in "
            "training (it trains on 1-20, targets to position 41): the learned positions' "
            "rows there never receive a gradient, and the sinusoidal arm meets encodings it "
            "never trained on, so the failure follows largely from the construction, as "
            "the relative-positions row says of the same arm; an arm trained with random "
            "position offsets, so that every position is seen, would make it a finding"))


def _chorowski(f, rows, results):
    """Location-aware against content-based (additive) attention up to 10x the training
    length: the content model must fail there, the location-aware one keep most of what
    it scores on the seen lengths (Chorowski's PER went from 18% to 20%)."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    key, title = "location-aware-extrapolates", "Location-aware attention carries to 10x longer sources"
    paper = ("Chorowski et al. 2015 (abstract; TIMIT): the content-based model adapted "
             "from translation reaches 18.7% PER but 'can only be applied to utterances "
             "which are roughly as long as the ones it was trained on'; with location-aware "
             "attention, 18% PER on single utterances and 20% on 10-times longer (repeated) "
             "ones")
    aware, content = {SCORE: "location_aware"}, {SCORE: "additive"}
    waiting = _missing(f, rows, [aware, content], key, title, paper, results)
    if waiting:
        return waiting
    parts, comparisons, kept, failed = [], [], [], []
    for task in TASKS:
        a = {r: f.column(rows, key, setting=_setting(aware, task)) for r, key in SPANS.items()}
        c = {r: f.column(rows, key, setting=_setting(content, task))
             for r, key in SPANS.items()}
        comparisons.append((a["81-200"], c["81-200"], True))
        kept.append(stats.finite(a["81-200"]).mean() >= 0.9 * stats.finite(a["1-20"]).mean())
        interval = stats.t_interval(c["81-200"])
        failed.append(interval.high is not None and interval.high <= 0.1)
        holding = sum(v >= 0.9 for v in stats.finite(a["81-200"]))
        parts.append(f"{task}: location_aware 1-20 {cell(a['1-20'])}, 21-80 "
                     f"{cell(a['21-80'])}, 81-200 {cell(a['81-200'])} ({holding} of "
                     f"{len(stats.finite(a['81-200']))} seeds at 0.9 or above there); "
                     f"additive {cell(c['1-20'])}, {cell(c['21-80'])}, {cell(c['81-200'])}")
    tests = f.separated_holm(comparisons)
    above = [s for s, _ in tests]
    verdict = ("reproduced" if all(above) and all(kept) and all(failed)
               else "not reproduced" if not any(above) else "inconclusive")
    # The 'keeps' clause compares means, as registered; the one rule's reading of it
    # (each seed's 81-200 over its 1-20 accuracy, its 95% interval against 0.9) gives
    # the row its power: what would decide it (issue 73, item 4).
    from experiments.lab import rule
    ratios = {task: [far / seen for far, seen in zip(
        f.column(rows, SPANS["81-200"], setting=_setting(aware, task)),
        f.column(rows, SPANS["1-20"], setting=_setting(aware, task))) if seen]
        for task in TASKS}
    keeps = {task: rule.decide_level(ratios[task], rule.Claim(0.9, rule.ABOVE))
             for task in TASKS}
    keep_words = (
        ". Its rule was written after location_aware's copy members were recorded and "
        "before its reverse ones (results/length_generalization/README.md, Decision "
        "log), and its 'keeps' clause compares means, as registered; the one rule on that "
        "clause (each seed's accuracy on 81-200 over its own on 1-20, the 95% interval "
        "against 0.9): " + "; ".join(f"{task} {d.words()}" for task, d in keeps.items())
        + ". A seed that collapses (as one did on reverse) and four that keep all cannot "
        "be told from a model that keeps 80% by the mean alone" + _collapses(keeps, ratios))
    return f.Finding(
        key, title, paper,
        "RNN, trained on 1-20, sequence accuracy: " + "; ".join(parts) + ". Location-aware "
        "above additive on 81-200: " + ", ".join(f"{t} {test}" for t, (_, test) in
                                                  zip(TASKS, tests)),
        verdict,
        "reproduced: on both tasks additive's 95% interval on 81-200 at or below 0.1, "
        "location-aware's mean there at least 0.9 of its mean on 1-20, and above "
        "additive's by Welch's t (Holm over the 2 tasks); not reproduced: above it on "
        "neither task; else inconclusive" + keep_words,
        _plot(results, "seq_acc_by_length_reverse.png", "score-location_aware"),
        # A third referee: the one rule's seed count sizes a reading that would rule the
        # clause out, while the registered mean clause stays short at the observed
        # ratio however many seeds train: the cell says so.
        power=(rule.power_words(list(keeps.values()), rule.member_seconds(Path(results)),
                                arms=1)
               if all(k.interval is None or k.interval.mean >= 0.9 for k in keeps.values())
               else "no seeds pass its rule at the observed ratio (under 0.9); the row "
                    "says what would decide it"))


def _collapses(keeps, ratios) -> str:
    """What would decide a 'keeps' clause whose seeds split into some that keep all and
    some that collapse: how often a seed collapses (under half its 1-20 accuracy on
    81-200; ``ratios``: {task: each seed's 81-200 over its 1-20}), bounded by Clopper and
    Pearson's exact interval."""
    from scipy.stats import beta
    words = []
    for task, decision in keeps.items():
        collapsed, n = sum(r < 0.5 for r in ratios[task]), len(ratios[task])
        if not collapsed or decision.interval is None or decision.interval.mean >= 0.9:
            continue
        low = beta.ppf(0.025, collapsed, n - collapsed + 1)
        high = beta.ppf(0.975, collapsed + 1, n - collapsed) if collapsed < n else 1.0
        # The seeds at which the observed collapse rate, were it the truth, would have
        # its exact interval's low end above 10% (the rate the mean clause tolerates).
        rate = collapsed / n
        needed = next((m for m in range(n, 2001) if rate > 0.1 and beta.ppf(
            0.025, round(rate * m), m - round(rate * m) + 1) > 0.1), None)
        words.append(
            f". On {task}, {collapsed} of {n} seeds collapse (the rate's exact 95% interval "
            f"[{low:.3f}, {high:.3f}]): at the observed ratio, {decision.interval.mean:.2f} "
            f"of 1-20, the registered mean clause stays under 0.9 however many seeds "
            f"train, and the one rule's {decision.seeds_to_decide or '—'} seeds an arm "
            "would rule the clause out, not pass it; what would decide the claim is the "
            "collapse rate (it must be under 10% for the mean to reach 0.9)"
            + (f": at the observed rate, about {needed} seeds would place it above 10%"
               if needed else ""))
    return "".join(words)


def _rope(f, rows, results):
    """An observation (no paper claims it): RoPE, with no absolute position anywhere,
    fits the trained lengths worse than sinusoidal positions in the same 1,500 steps."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    key, title = "rope-fits-seen-lengths-worse", "RoPE fits the trained lengths worse than sinusoidal"
    rope, sinusoidal = _transformer("rope"), _transformer("sinusoidal")
    waiting = _missing(f, rows, [rope, sinusoidal], key, title, None, results)
    if waiting:
        return waiting
    values = lambda model, task, r: f.column(  # noqa: E731
        rows, SPANS[r], setting=_setting(model, task))
    tests = f.separated_holm([(values(rope, t, "1-20"), values(sinusoidal, t, "1-20"), False)
                              for t in TASKS])
    beyond = f.separated_holm([(values(rope, t, "21-80"), values(sinusoidal, t, "21-80"), True)
                               for t in TASKS])
    parts = [f"{t}: 1-20 RoPE {cell(values(rope, t, '1-20'))} against sinusoidal "
             f"{cell(values(sinusoidal, t, '1-20'))} ({test}); 21-80 "
             f"{cell(values(rope, t, '21-80'))} against {cell(values(sinusoidal, t, '21-80'))} "
             f"({far})" for t, (_, test), (_, far) in zip(TASKS, tests, beyond)]
    below = [s for s, _ in tests]
    # Contrary evidence is RoPE shown not below by more than the minimum effect (its
    # difference's interval above −min effect) on both tasks; not being separated is
    # not.
    seen_contrasts = stats.contrasts([(values(rope, t, "1-20"), values(sinusoidal, t, "1-20"))
                                      for t in TASKS], stats.ACCURACY)
    not_worse = [c.above or (c.difference is not None
                             and c.difference.low > -stats.ACCURACY.min_effect)
                 for c in seen_contrasts]
    verdict = ("holds" if all(below) else "does not hold" if all(not_worse)
               else "inconclusive")
    one_rule, power = f.one_rule_reading(
        [(values(rope, t, "1-20"), values(sinusoidal, t, "1-20"), False) for t in TASKS],
        verdict=verdict, results=results)
    return f.Finding(
        key, title, None,
        "seq2seq Transformer (2 layers, 4 heads), trained on 1-20 for 1,500 steps: "
        + "; ".join(parts),
        verdict,
        "RoPE below sinusoidal on 1-20 of both tasks by Welch's t (Holm over the 2 tasks): "
        "holds; shown not below by more than the minimum effect on both (the difference's "
        "95% interval above -0.02; narrowed from 'not below on either' after an audit of "
        "the replication, which that wording read as contrary evidence): does not hold; "
        "else inconclusive. The 21-80 tests (Holm over 2) are reported, not part of the "
        "verdict" + one_rule, _plot(results, "seq_acc_by_length_copy.png", "positions-rope"),
        power=power)
