"""The claims experiments/length_generalization.py's records decide (rows of
experiments/FINDINGS.md): Dehghani et al.'s collapse far beyond training, Press et al.'s
ALiBi, Shaw et al.'s relative positions, Chorowski et al.'s location-aware attention and
RoPE on the seen lengths, by their rules.
"""

from pathlib import Path
from attention_research.metric_names import column, length_range
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.length_generalization import (  # noqa: F401
    DECODER_ONLY, MODELS, REPLICATED, REVISED_SEEDS, SCORE, SEEDS, TASKS, UNCLIPPED,
    _decoder_only, _transformer)


# Sequence accuracy on the trained lengths, the near and the far unseen ones.
SPANS = {f"{first}-{last}": column("seq_acc", length_range(first, last))
         for first, last in ((1, 20), (21, 80), (81, 200))}

ABSOLUTE = ("sinusoidal", "learned")  # the Transformers of Dehghani et al.'s comparison
NEAR = range(21, 41)  # target positions 21-40: twice the trained length
FAR = range(81, 201)  # the lengths of Dehghani et al.'s regime (4-10x)
# The decision rules of the position findings (when each was written, and why
# REVISED_POSITION_RULE replaced the first ones: results/length_generalization/README.md,
# "Decision log").
DEHGHANI_RULE = (
    "the decoder-only Transformer with sinusoidal and with learned positions, sequence "
    "accuracy on lengths 81-200 after training on 1-20, 5 seeds: reproduced if every "
    "one's 95% interval lies at or below 0.1 on both tasks, not reproduced otherwise. The "
    "encoder-decoder Transformers are shown beside (a second regime)")
PRESS_RULE = (
    "decoder-only, teacher-forced token accuracy on target positions 21-40 (twice the "
    "trained length; the closest measure here to Press et al.'s perplexity on longer "
    "inputs), 5 seeds: reproduced if on both tasks ALiBi keeps at least half its accuracy "
    "on positions 1-20 (the low end of its 95% interval) and is above sinusoidal by the "
    "accuracy rule (Holm over the 2 tasks); not reproduced if on a task ALiBi's interval "
    "lies below half its accuracy on 1-20 or it is below sinusoidal by the rule; else "
    "inconclusive. Sequence accuracy on 21-80 and the encoder-decoder (whose encoder is "
    "sinusoidal) are shown beside")
SHAW_RULE = (
    "decoder-only with relative positions (k = 16), teacher-forced token accuracy on target "
    "positions 21-40, 5 seeds: reproduced if on both tasks it keeps at least half its "
    "accuracy on positions 1-20 (the low end of its 95% interval); not reproduced if on a "
    "task its interval lies below that half; else inconclusive. Its sinusoidal "
    "counterpart and the encoder-decoder (relative in both stacks) are shown beside")
REVISED_POSITION_RULE = (
    "for the replication (seeds 100-104 for the decoder-only sinusoidal, ALiBi, relative "
    "and unclipped relative arms, 5 seeds each; 1,500 steps on lengths 1-20 as the first "
    "run), teacher-forced token accuracy at the unseen target positions alone (21 to L+1, "
    "EOS included) on sources of lengths L = 21-40 (at most twice the trained length, "
    "Press et al.'s regime; a model wrong beyond position 20 scores 0), each length "
    "weighed equally (per seed, the mean over L = 21-40 of that length's accuracy over its "
    "unseen positions): reproduced if on both tasks the low end of its 95% interval over "
    "seeds is at least half the scheme's token accuracy on the seen lengths 1-20 (the "
    "half is this project's threshold; the papers give none) and it is above sinusoidal "
    "by the accuracy rule, and (relative, Shaw et al.'s clipping) above the same model "
    "without clipping (k = 402, beyond every distance here) by that rule, Holm over every "
    "contrast of the row; not reproduced if on a task its interval lies below that half, "
    "or it is below sinusoidal, or (relative) below the unclipped model; else "
    "inconclusive. No direction is named at the accuracy floor (0.05). Shown beside, read "
    "by no rule: the statistic without EOS, token accuracy over whole targets and greedy "
    "sequence accuracy on sources of 21-40")
DEHGHANI = {"copy": 0.03, "reverse": 0.06}


# The rows whose registered rule does not measure what it names (POOLING_CAVEAT): their
# first seeds decide nothing (inconclusive until the fresh seeds are in) and their fresh
# seeds are decided by REVISED_POSITION_RULE.
DECIDED_BY_FRESH_SEEDS = {
    "alibi-extrapolates": "positions 21-40 pool sources 21-200, not the 2x regime",
    "relative-positions-generalise": (
        "positions 21-40 pool sources 21-200, not the 2x regime; on reverse the statistic "
        "sits near chance, and it calls learned absolute positions, untrained past 41, "
        "'kept' (an audit as Shaw et al.)"),
}


def _setting(model: dict, task: str) -> str:
    return sweeps.member_name({**model, "config.task.name": task})


def findings(results):
    """The Transformer's collapse far beyond training, against Dehghani et al.; ALiBi
    against sinusoidal positions beyond training, against Press et al.; relative
    positions on unseen lengths, against Shaw et al.; location-aware against
    content-based attention on 10x longer sources, against Chorowski et al."""
    from experiments.lab import findings as f
    rows = f.report_rows(results)
    return [_dehghani(f, rows, results), _press(f, rows, results), _shaw(f, rows, results),
            _chorowski(f, rows, results), _rope(f, rows, results)]


def _finals(f, results, model, task, seeds=None) -> list[dict]:
    """The recorded finals of ``model`` on ``task`` for ``seeds`` (default SEEDS, which
    the replication reads as its seeds 100-102): the sinusoidal arm has 5 fresh seeds for
    the revised rule, and the rows that count 3 read 3."""
    return f.member_finals(results, _setting(model, task), SEEDS if seeds is None else seeds)


def _near(f, results, model, task) -> tuple[list, list]:
    """Per seed: teacher-forced token accuracy over target positions 1-20 and 21-40
    (each member's token_acc_by_position, positions weighted equally)."""
    finals = _finals(f, results, model, task)
    mean = lambda by, span: sum(by[str(p)] for p in span) / len(span)  # noqa: E731
    return ([mean(m["token_acc_by_position"], range(1, 21)) for m in finals],
            [mean(m["token_acc_by_position"], NEAR) for m in finals])


def _twice(f, results, model, task, seeds=None) -> list:
    """Per seed: teacher-forced token accuracy on sources of lengths 21-40 (the mean over
    those lengths of token_acc_by_length). The rules' positions 21-40 pool every held-out
    length that reaches them (21-200); this is Press et al.'s regime, inputs up to twice
    the trained length, shown beside the rules."""
    finals = _finals(f, results, model, task, seeds)
    return [sum(m["token_acc_by_length"][str(n)] for n in NEAR) / len(NEAR) for m in finals
            if "token_acc_by_length" in m]


def _seen(f, results, model, task, seeds=None) -> list:
    """Per seed: teacher-forced token accuracy on the seen source lengths 1-20 (the mean
    over those lengths of token_acc_by_length)."""
    finals = _finals(f, results, model, task, seeds)
    return [sum(m["token_acc_by_length"][str(n)] for n in range(1, 21)) / 20 for m in finals
            if "token_acc_by_length" in m]


def _beyond(f, results, model, task, seeds=None, eos=True) -> list:
    """Per seed: teacher-forced token accuracy at the unseen target positions (21 to
    L+1) on sources of lengths 21-40, the mean over those lengths of
    token_acc_beyond_seen_by_length (REVISED_POSITION_RULE's statistic); ``eos=False``:
    without each target's EOS (shown beside)."""
    field = ("token_acc_beyond_seen_by_length" if eos
             else "token_acc_beyond_seen_no_eos_by_length")
    finals = _finals(f, results, model, task, seeds)
    return [sum(m[field][str(n)] for n in NEAR) / len(NEAR) for m in finals if field in m]


def _sequences_twice(f, results, model, task, seeds=None) -> list:
    """Per seed: greedy sequence accuracy on sources of lengths 21-40."""
    finals = _finals(f, results, model, task, seeds)
    return [sum(m["seq_acc_by_length"][str(n)] for n in NEAR) / len(NEAR) for m in finals
            if "seq_acc_by_length" in m]


def _audit_note(f, results, model, task) -> str:
    """The scheme on the seen lengths and at twice them (sources of 21-40): the reading
    shown beside the registered rule, which decides no verdict."""
    from attention_research.reports.tables import interval_cell as cell
    seen, twice = _seen(f, results, model, task), _twice(f, results, model, task)
    return (f"{task}: seen lengths 1-20 {cell(seen)}, sources of 21-40 {cell(twice)} "
            f"({_keeps(seen, twice)} by the revised rule)")


POOLING_CAVEAT = (
    "Caveat from an audit as the paper's authors: the registered statistic on positions "
    "21-40 pools sources of lengths 21-200, most of its weight beyond twice the trained "
    "length, and its 'positions 1-20' baseline pools unseen lengths too, so it is not the "
    "2x regime the rule names; the reading on the seen lengths and on sources of 21-40 "
    "(chosen after the results, so no verdict) is given beside. The fresh seeds of the "
    "replication sweep will be decided by a revised rule, written here before they run: "
    + REVISED_POSITION_RULE)


def _position_verdict(kept, tests) -> str:
    """Reproduced if every task kept its accuracy and beat the baseline (``tests``; none
    for a scheme judged alone), not reproduced if one lost it or fell below, else
    inconclusive: the Press rule and the revised rule alike."""
    if all(k == "kept" for k in kept) and all(t.above for t in tests):
        return "reproduced"
    if "lost" in kept or any(t.below for t in tests):
        return "not reproduced"
    return "inconclusive"


def _replicating(results) -> bool:
    return Path(results).name.endswith("_replication")


ALIBI_CAVEAT = (
    "Caveat from an audit as the paper's authors: this is the qualitative claim (ALiBi "
    "keeps working at up to twice the trained length where sinusoidal positions fail), "
    "on teacher-forced token accuracy; the paper's quantitative claim, the perplexity of "
    "a sinusoidal model trained at twice the length, has no arm here. Position is also "
    "carried by the causal mask, so NoPE (no position signal beyond it; 3 seeds, read by "
    "no rule) is shown beside: where it is not separated from ALiBi, the gain over "
    "sinusoidal is not shown to come from ALiBi's bias")
SHAW_CAVEAT = (
    "Caveat from an audit as the paper's authors: Shaw et al. give this as a rationale "
    "(§3.2), not an experiment; 'reproduced' says the test registered for it passed. The "
    "unclipped control's embeddings for offsets beyond 40 never train (training sequences "
    "hold at most 41 positions), so it fails beyond the trained length partly by "
    "construction, as a learned table does. NoPE is shown beside, as for ALiBi, and how "
    "close the 'kept' margin is (each seed left out in turn)")


def _revised(f, results, key, title, paper, model, baseline, unclipped=None, caveat=""):
    """``REVISED_POSITION_RULE`` on a replication record (seeds REVISED_SEEDS): token
    accuracy at the unseen positions of sources 21-40 against half the seen-length
    accuracy, above ``baseline`` (sinusoidal) there and, for relative positions, above
    ``unclipped`` (the same model without clipping), Holm over every contrast."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    arms = {"model": model, "sinusoidal": baseline}
    if unclipped is not None:
        arms["unclipped"] = unclipped
    beyond = {(a, t): _beyond(f, results, m, t, REVISED_SEEDS)
              for a, m in arms.items() for t in TASKS}
    seen = {t: _seen(f, results, model, t, REVISED_SEEDS) for t in TASKS}
    if any(len(v) < len(REVISED_SEEDS) for v in [*beyond.values(), *seen.values()]):
        return f.pending(key, title, paper, "the token accuracy beyond the seen positions "
                         "(summary.json) of the revised rule's arms is not recorded for "
                         f"every one of seeds {REVISED_SEEDS[0]}-{REVISED_SEEDS[-1]}")
    kept = [_keeps(seen[t], beyond["model", t]) for t in TASKS]
    against = [a for a in arms if a != "model"]
    tests = stats.contrasts([(beyond["model", t], beyond[a, t]) for t in TASKS
                             for a in against], stats.ACCURACY)
    by_task = {t: tests[i * len(against):(i + 1) * len(against)] for i, t in enumerate(TASKS)}
    parts = []
    for index, task in enumerate(TASKS):
        side = lambda statistic, m: cell(  # noqa: E731
            statistic(f, results, m, task, REVISED_SEEDS))
        contrasts = "; ".join(f"{a} {cell(beyond[a, task])} ({test.words(corrected=True)})"
                              for a, test in zip(against, by_task[task]))
        parts.append(
            f"{task}: unseen positions of sources 21-40 {cell(beyond['model', task])} against "
            f"seen lengths 1-20 {cell(seen[task])} ({kept[index]}); against "
            f"{contrasts}. Beside: without EOS "
            f"{cell(_beyond(f, results, model, task, REVISED_SEEDS, eos=False))} (sinusoidal "
            f"{cell(_beyond(f, results, baseline, task, REVISED_SEEDS, eos=False))}); whole "
            f"targets of sources 21-40 {side(_twice, model)} (sinusoidal "
            f"{side(_twice, baseline)}); greedy sequence accuracy there "
            f"{side(_sequences_twice, model)} (sinusoidal {side(_sequences_twice, baseline)})")
    verdict = _position_verdict(kept, tests)
    # Read by no rule: how far the interval's low end lies above the
    # half, whether 'kept' survives leaving any one seed out, and NoPE beside.
    margins, nope = [], _decoder_only("nope")
    for task in TASKS:
        values, seen_values = beyond["model", task], seen[task]
        half = stats.finite(seen_values).mean() / 2
        survives = sum(_keeps(seen_values[:i] + seen_values[i + 1:],
                              values[:i] + values[i + 1:]) == "kept"
                       for i in range(len(values)))
        nope_values = _beyond(f, results, nope, task)
        against_nope = stats.contrast(values, nope_values, stats.ACCURACY)
        margins.append(
            f"{task}: the interval's low end {stats.t_interval(values).low:.3f} against "
            f"the half {half:.3f}, kept in {survives} of {len(values)} leave-one-seed-out "
            f"subsets; NoPE {cell(nope_values)} ({against_nope.words()})")
    return f.Finding(key, title, paper, f"decoder-only, teacher-forced token accuracy, "
                     f"{len(REVISED_SEEDS)} seeds: " + "; ".join(parts)
                     + ". Read by no rule: " + "; ".join(margins), verdict,
                     REVISED_POSITION_RULE + (f". {caveat}" if caveat else ""))


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
             "400, sequence accuracy ≈ 0.03 on copy and 0.06 on reverse")
    models = [_decoder_only(p) for p in ABSOLUTE]
    waiting = _missing(f, rows, models, key, title, paper, results)
    if waiting:
        return waiting
    parts, low = [], []
    for task in TASKS:
        for model in models:
            values = f.column(rows, SPANS["81-200"], setting=_setting(model, task))
            interval = stats.t_interval(values)
            low.append(interval.high is not None and interval.high <= 0.1)
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
        "reproduced" if all(low) else "not reproduced", DEHGHANI_RULE,
        _plot(results, "seq_acc_by_length_copy.png", "positions-sinusoidal"))


def _keeps(seen, near) -> str:
    """'kept' if the interval of accuracy on positions 21-40 lies at or above half the
    mean on 1-20, 'lost' if below it, else 'unclear'; 'at the floor' (no direction) when
    the half and the whole interval are under the accuracy floor (stats.ACCURACY)."""
    from attention_research.reports import stats
    interval, half = stats.t_interval(near), stats.finite(seen).mean() / 2
    if interval.low is None:
        return "unclear"
    if max(half, interval.high) < stats.ACCURACY.floor:
        return "at the floor"
    return "kept" if interval.low >= half else "lost" if interval.high < half else "unclear"


def _press(f, rows, results):
    """ALiBi against sinusoidal positions at twice the trained length, decoder-only."""
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    key, title = "alibi-extrapolates", "ALiBi extrapolates beyond the training length"
    paper = ("Press, Smith & Lewis 2022 (abstract, Fig. 1; language modelling): a model "
             "with ALiBi trained on inputs of length 1024 extrapolates to 2048 with the "
             "perplexity of a sinusoidal model trained on 2048, while sinusoidal "
             "positions fail a few tokens beyond the training length")
    alibi, sinusoidal = _decoder_only("alibi"), _decoder_only("sinusoidal")
    waiting = _missing(f, rows, [alibi, sinusoidal], key, title, paper, results)
    if waiting:
        return waiting
    if _replicating(results):
        return _revised(f, results, key, title, paper, alibi, sinusoidal,
                        caveat=ALIBI_CAVEAT)
    near = {(m["config.model.positions"], t): _near(f, results, m, t)
            for m in (alibi, sinusoidal) for t in TASKS}
    if any(len(seen) < len(SEEDS) for seen, _ in near.values()):
        return f.pending(key, title, paper, "the members' token accuracy by position "
                         "(summary.json) is not recorded for every seed")
    tests = stats.contrasts([(near["alibi", t][1], near["sinusoidal", t][1]) for t in TASKS],
                            stats.ACCURACY)
    kept = [_keeps(*near["alibi", t]) for t in TASKS]
    parts = []
    for task, test, keep in zip(TASKS, tests, kept):
        seq = lambda model: cell(f.column(rows, SPANS["21-80"],  # noqa: E731
                                          setting=_setting(model, task)))
        parts.append(
            f"{task}: token accuracy at positions 21-40 ALiBi {cell(near['alibi', task][1])} "
            f"(1-20: {cell(near['alibi', task][0])}, {keep}) against sinusoidal "
            f"{cell(near['sinusoidal', task][1])} ({test.words(corrected=True)}); sequence "
            f"accuracy 21-80 {seq(alibi)} against {seq(sinusoidal)}; token accuracy on "
            f"sources of lengths 21-40 (positions 21-40 above pool lengths 21-200) "
            f"{cell(_twice(f, results, alibi, task))} against "
            f"{cell(_twice(f, results, sinusoidal, task))}; encoder-decoder "
            f"(sinusoidal encoder) {seq(_transformer('alibi'))} against "
            f"{seq(_transformer('sinusoidal'))}")
    verdict = _position_verdict(kept, tests)
    twice = stats.contrasts([(_twice(f, results, alibi, t), _twice(f, results, sinusoidal, t))
                             for t in TASKS], stats.ACCURACY)
    fitted = "; ".join(f"{t} ALiBi {cell(f.column(rows, SPANS['1-20'], setting=_setting(alibi, t)))}"
                       f" against sinusoidal "
                       f"{cell(f.column(rows, SPANS['1-20'], setting=_setting(sinusoidal, t)))}"
                       for t in TASKS)
    audit = ("Beside the rule, ALiBi's teacher-forced token accuracy by source length: "
             + "; ".join(_audit_note(f, results, alibi, t) for t in TASKS)
             + "; against sinusoidal on sources of 21-40: "
             + "; ".join(f"{t} {test.words(corrected=True)}" for t, test in zip(TASKS, twice))
             + ". The registered statistic (positions 21-40) against this seen-length "
             "baseline instead of its pooled one would read: "
             + "; ".join(f"{t} {_keeps(_seen(f, results, alibi, t), near['alibi', t][1])}"
                         for t in TASKS)
             + f". Sequence accuracy on the seen lengths 1-20: {fitted} (ALiBi fits reverse "
             "less well in 1,500 steps). The paper's quantitative claim, parity with a "
             "sinusoidal model trained at twice the length, has no arm here")
    return f.Finding(key, title, paper, "decoder-only Transformer trained on 1-20: "
                     + "; ".join(parts) + ". " + audit, verdict,
                     PRESS_RULE + ". " + POOLING_CAVEAT,
                     _plot(results, "seq_acc_by_length_reverse.png", "positions-alibi"))


def _shaw(f, rows, results):
    """Relative positions at twice the trained length, decoder-only."""
    from attention_research.reports.tables import interval_cell as cell
    key, title = "relative-positions-generalise", "Relative positions generalise to unseen lengths"
    paper = ("Shaw, Uszkoreit & Vaswani 2018, §3.2 (no number): clipping relative "
             "distances to ±k lets the model generalise to sequence lengths not seen in "
             "training")
    relative, sinusoidal = _decoder_only("relative"), _decoder_only("sinusoidal")
    waiting = _missing(f, rows, [relative, sinusoidal], key, title, paper, results)
    if waiting:
        return waiting
    if _replicating(results):
        return _revised(f, results, key, title, paper, relative, sinusoidal, UNCLIPPED,
                        caveat=SHAW_CAVEAT)
    if any(len(_near(f, results, m, t)[0]) < len(SEEDS) for m in (relative, sinusoidal)
           for t in TASKS):
        return f.pending(key, title, paper, "the members' token accuracy by position "
                         "(summary.json) is not recorded for every seed")
    parts, kept = [], []
    for task in TASKS:
        seen, near = _near(f, results, relative, task)
        kept.append(_keeps(seen, near))
        other = _near(f, results, sinusoidal, task)[1]
        seq = lambda model: cell(f.column(rows, SPANS["21-80"],  # noqa: E731
                                          setting=_setting(model, task)))
        parts.append(f"{task}: token accuracy 1-20 {cell(seen)}, 21-40 {cell(near)} "
                     f"({kept[-1]}; sinusoidal {cell(other)}; positions 21-40 pool lengths "
                     f"21-200); token accuracy on sources of lengths 21-40 "
                     f"{cell(_twice(f, results, relative, task))} (sinusoidal "
                     f"{cell(_twice(f, results, sinusoidal, task))}); sequence accuracy 21-80 "
                     f"{seq(relative)}; encoder-decoder, relative in both stacks "
                     f"{seq(_transformer('relative'))} (token accuracy on sources of 21-40 "
                     f"{cell(_twice(f, results, _transformer('relative'), task))}, sinusoidal "
                     f"encoder-decoder {cell(_twice(f, results, _transformer('sinusoidal'), task))})")
    verdict = ("reproduced" if all(k == "kept" for k in kept)
               else "not reproduced" if "lost" in kept else "inconclusive")
    # Why the registered statistic decides nothing here: it sits near chance on reverse,
    # and it calls learned absolute positions, whose rows past 41 never train, 'kept'.
    learned = {t: _near(f, results, _decoder_only("learned"), t) for t in TASKS}
    audit = ("Beside the rule, its teacher-forced token accuracy by source length: "
             + "; ".join(_audit_note(f, results, relative, t) for t in TASKS)
             + ". The registered statistic applied to learned absolute positions (whose "
             "table rows past 41 never receive a gradient): "
             + "; ".join(f"{t} 1-20 {cell(learned[t][0])}, 21-40 {cell(learned[t][1])} "
                         f"({_keeps(*learned[t])})" for t in TASKS)
             + ". In this layout (source BOS target) target position t reads its source "
             "symbol at a distance of L on copy and 2t-1 on reverse: beyond k = 16 "
             "already on the seen lengths, which the model solves (1-20 above), so the "
             "tasks need alignment beyond the clip but are not unsolvable by construction")
    return f.Finding(key, title, paper, "decoder-only Transformer, relative representations "
                     "(k = 16) in every layer, trained on 1-20: " + "; ".join(parts) + ". "
                     + audit, verdict, SHAW_RULE + ". " + POOLING_CAVEAT,
                     _plot(results, "seq_acc_by_length_reverse.png", "positions-relative"))


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
    return f.Finding(
        key, title, paper,
        "RNN, trained on 1-20, sequence accuracy: " + "; ".join(parts) + ". Location-aware "
        "above additive on 81-200: " + ", ".join(f"{t} {test}" for t, (_, test) in
                                                  zip(TASKS, tests)),
        verdict,
        "reproduced: on both tasks additive's 95% interval on 81-200 at or below 0.1, "
        "location-aware's mean there at least 0.9 of its mean on 1-20, and above "
        "additive's by Welch's t (Holm over the 2 tasks); not reproduced: above it on "
        "neither task; else inconclusive",
        _plot(results, "seq_acc_by_length_reverse.png", "score-location_aware"))


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
        "verdict",
        _plot(results, "seq_acc_by_length_copy.png", "positions-rope"))
