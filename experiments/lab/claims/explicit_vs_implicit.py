"""The claims experiments/explicit_vs_implicit.py's records decide (rows of
experiments/FINDINGS.md): explicit attention weights against the implicit attention read
off the gradients, on the symbol tasks and on translation, by their rules.
"""

from __future__ import annotations

from attention_research.metric_names import column, final_key, length_range
from attention_research.running import sweeps
from attention_research.reports.tables import DROP as DROP_RULE
from experiments.compare_attention import FORMULATIONS
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.explicit_vs_implicit import (  # noqa: F401
    REPLICATED, SEEDS, _multi30k_formulations)


TASKS = ("copy", "reverse", "sort")
SOLVED = 0.9  # a setting solves a task when its mean sequence accuracy on 1-25 reaches this
SEEN = column("seq_acc", length_range(1, 25))
DROP = column("ablation_drop_{}", length_range(1, 25))
IMPLICIT_ALIGN = column("implicit_align_acc", length_range(1, 25))
TEST_BLEU = final_key("test", "bleu")
# The pointer-generator's output copies a source token's id by its weights, a path that
# neither the embedding gradient nor zeroing an embedding sees: the ablation cannot test
# its weights, so the first observation leaves it out and says so.
_POINTER = sweeps.member_name({"config.model.attention.score": "additive",
                               "config.model.pointer_generator": True})
_NONE = sweeps.member_name({"config.model.attention.score": "none"})
_CLAIMS = {  # key: title (all our observations: no paper states them)
    "weights-faithful-where-solved":
        "Where attention solves a task, zeroing its weights' top token costs more than a "
        "random one",
    # Retitled after a referee (2026-12-07): the ablation zeroes a token's embedding,
    # integrated gradients' own baseline, so the map's top token is partly chosen for
    # what zeroing it does; the title says what was measured (verdict unchanged).
    "gradients-find-the-token-without-attention":
        "Without attention, the integrated-gradients map's top token (zero baseline) costs "
        "more to zero than a random one",
    # Issue 36: the ding_de_en record's two translation observations, tested where the
    # models translate (test BLEU about 39, not 2-4). The second was seen, not tested, on
    # ding_de_en (results README). When they were registered:
    # results/explicit_vs_implicit/README.md, "Decision log".
    "translation-weights-faithful-multi30k":
        "On translation, zeroing the weights' top source piece costs more than a random "
        "one (Multi30k)",
    "translation-implicit-more-faithful-multi30k":
        "On translation, the implicit map's top source piece matters more than the "
        "weights' (Multi30k)",
    # A control stronger than a random piece (held_out.diagonal); its members' analysis
    # is run again to measure it (their training adopted, the other metrics unchanged).
    "translation-weights-beat-diagonal-multi30k":
        "On translation, zeroing the weights' top source piece costs more than zeroing "
        "the diagonal one (Multi30k)",
}
TRANSLATION_DROP = column("ablation_drop_{}", "test")  # the translation report's columns


def _settings() -> list[str]:
    return [sweeps.member_name({**formulation, "config.task.name": task})
            for formulation in FORMULATIONS for task in TASKS]
# The Multi30k rows read their own record, whose fresh seeds are its NAME_replication.
REPLICATION_SOURCES = {
    key: {"explicit_vs_implicit_translation_multi30k":
          "explicit_vs_implicit.py:task=translation,corpus=multi30k,replicate"}
    for key in ("translation-weights-faithful-multi30k",
                "translation-weights-beat-diagonal-multi30k",
                "translation-implicit-more-faithful-multi30k")}
NOT_REPLICATED = {"weights-faithful-where-solved":
                  "its 39 solved settings × tasks are 117 members, about 8 CPU-hours on this "
                  "2-core machine"}

# Rules written after the record they decide (results/explicit_vs_implicit/README.md,
# Decision log); the page says so on each row (findings._written_after).
RULES_AFTER_FIRST_RUN = {
    key: "77c007e, 2026-11-25 01:59, four minutes after the record was complete, 86bd4ab"
    for key in ("weights-faithful-where-solved", "gradients-find-the-token-without-attention")}


def findings(results):
    """Two observations of the implicit-attention paragraphs (docs/formulations.md) (``paper=None``):
    that the weights are faithful wherever a model solves a task with them (pending
    until all 198 members are recorded), and that ``none`` aligns implicitly (until its
    three tasks are); and three on translation, read from the Multi30k sweep's record
    (``explicit_vs_implicit_translation_multi30k`` beside ``results``)."""
    import dataclasses
    multi30k = results.parent / ("explicit_vs_implicit_translation_multi30k" + (
        "_replication" if results.name.endswith("_replication") else ""))
    return _symbol_findings(results) + [
        dataclasses.replace(row, records=(multi30k.name,))
        for row in _translation_findings(multi30k)]


def _translation_findings(results):
    """The three translation observations, once all 9 members of the Multi30k sweep are
    in its report (the diagonal's, once they are all analysed with it): per setting
    (additive, dot, the Transformer), Welch's t over the 3 seeds, Holm-corrected over
    the 3 settings, with the ablation's minimum effect."""
    from experiments.lab import findings as f
    from attention_research.reports import stats
    rows = f.report_rows(results)
    settings = [sweeps.member_name(s) for s in _multi30k_formulations()]
    # (key, (first, second) drop compared, how the rule names them, what the row adds)
    rules = (("translation-weights-faithful-multi30k", ("explicit", "random"),
              "the weights' top piece against a random one",
              lambda *_: _WEAKEST_CONTROL + ". " + _NOT_SHOWN),
             ("translation-implicit-more-faithful-multi30k", ("implicit", "explicit"),
              "the implicit map's top piece against the weights' top piece",
              lambda rows, settings, pairs: _within_seeds(pairs)),
             ("translation-weights-beat-diagonal-multi30k", ("explicit", "diagonal"),
              "the weights' top piece against the diagonal one",
              lambda rows, settings, pairs: _diagonal(f, rows, settings, short)))
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):
        what = f"Multi30k, additive, dot and the Transformer: {f.progress(results, rows, settings, len(SEEDS))}"
        return [_pending(f, key, what, how) for key, _, how, _ in rules]
    cell = lambda values, digits=3: stats.t_interval(values).cell(digits)  # noqa: E731
    short = {settings[0]: "additive", settings[1]: "dot", settings[2]: "the Transformer"}
    out = []
    for key, (first, second), how, note in rules:
        measured = sum(v is not None for s in settings
                       for v in f.column(rows, TRANSLATION_DROP.format(second), setting=s))
        if measured < len(settings) * len(SEEDS):  # members analysed before the control
            out.append(_pending(f, key, f"Multi30k: {measured} of "
                                f"{len(settings) * len(SEEDS)} members analysed with the "
                                f"{second} control", how))
            continue
        pairs = [(f.column(rows, TRANSLATION_DROP.format(first), setting=s),
                  f.column(rows, TRANSLATION_DROP.format(second), setting=s)) for s in settings]
        comparisons = [(a, b, True) for a, b in pairs]
        answers = f.separated_holm(comparisons, DROP_RULE)
        reversed_answers = f.separated_holm([(a, b, False) for a, b in pairs], DROP_RULE)
        ours = (f"test_2016_flickr, {len(SEEDS)} seeds each; {MEASURED}: " + "; ".join(
            f"{short[s]} (cased test BLEU {cell(f.column(rows, TEST_BLEU, setting=s), 2)}, τ "
            f"{cell(f.column(rows, column('implicit_tau', 'test'), setting=s))}): {first} "
            f"{cell(a)} against {second} {cell(b)} nats ({answer})"
            for s, (a, b), (_, answer) in zip(settings, pairs, answers))
            + ". " + note(rows, settings, pairs))
        verdict = _verdict(answers, reversed_answers)
        # In the row's numbers, so that its fresh seeds' line shows it too (a fresh
        # referee: on them the registered rule and the one rule disagreed, unshown).
        one_rule, power = f.one_rule_reading(comparisons, DROP_RULE, verdict, results)
        out.append(f.Finding(key, _CLAIMS[key], None, ours + one_rule, verdict, _rule(how),
                             power=power))
    return out


def _rule(how: str) -> str:
    return (f"per setting, Welch's t over seeds of the drop when {how} is zeroed, "
            f"Holm-corrected over the 3 settings at 5%, at least {DROP_RULE.min_effect} "
            "nats; holds if all three are separated that way, does not hold if any is "
            "separated the other way")


def _pending(f, key: str, what: str, how: str):
    """A row not decided yet, with the rule that will decide it (registered)."""
    return f.Finding(key, _CLAIMS[key], None, f"no committed result yet ({what})",
                     "pending", f"to be decided by its registered rule: {_rule(how)}")


# What the translation rows measure, and what "holds" does not mean.
MEASURED = ("the reference piece's log-probability lost, teacher-forced at one drawn "
            "target step per sentence, when one source piece's embedding is zeroed (the "
            "Transformer's positions kept); the Transformer's weights are its last decoder "
            "layer's cross-attention, the mean of its 4 heads")
_WEAKEST_CONTROL = (
    "A random piece is the weakest control (Serrano & Smith 2019): the weights' argmax "
    "lands on a piece the output depends on, which says nothing of whether other weights "
    "would give the same output, and the weights rank the pieces unlike integrated "
    "gradients (τ above). The sentences, target steps and random pieces are the same "
    "draws for every member (held_out.probes), so seeds resample training alone")

# What neither ablation row shows, whatever its verdict.
_NOT_SHOWN = (
    "Jain & Wallace studied classification, question answering and inference, not "
    "translation: these rows test another regime and do not contradict them. The "
    "weights are over encoder states but the ablation zeroes an input embedding, which "
    "the encoder spreads into its "
    "neighbours' states, and a zero embedding is an input the model never trained on. "
    "Wiegreffe & Pinter's baselines (frozen uniform weights, seed variance as the "
    "yardstick, a diagnostic MLP) are not run")


def _diagonal(f, rows, settings, short) -> str:
    """What the diagonal control is, and how often it is the weights' own top piece
    (``overlap_diagonal``, held_out.py): both arms then zero the same piece and lose
    the same, so overlap shrinks the row's gap rather than inflating it. Per setting
    (the RNNs and the Transformer differ), the overlap and
    the diagonal's drop where it is not the top piece beside a random piece's. The
    members analysed before the overlap existed lack it, and the sentence says how many."""
    import math
    def span(values, form):
        low, high = form(min(values)), form(max(values))
        return low if low == high else f"{low}–{high}"
    parts, count = [], 0
    for s in settings:
        measured = [(o, other, random) for o, other, random in zip(
            f.column(rows, column("overlap_diagonal", "test"), setting=s),
            f.column(rows, TRANSLATION_DROP.format("diagonal_other"), setting=s),
            f.column(rows, TRANSLATION_DROP.format("random"), setting=s))
            if o is not None and math.isfinite(o)]
        if measured:
            count += len(measured)
            overlaps, others, randoms = (list(v) for v in zip(*measured))
            parts.append(f"{short[s]}, {span(overlaps, '{:.0%}'.format)} of sentences "
                         f"(elsewhere it costs {span(others, '{:.2f}'.format)} nats, a "
                         f"random piece {span(randoms, '{:.2f}'.format)})")
    members = sum(len(f.column(rows, "seed", setting=s)) for s in settings)
    if parts:
        overlap = ("It is the weights' own top piece (both arms then lose the same, which "
                   "shrinks the gap and cannot inflate it) in: " + "; ".join(parts)
                   + f" ({count} of {members} members measured; the others were analysed "
                   "before the overlap was)")
    else:
        overlap = ("How often it is the weights' own piece (both arms then drop the same) "
                   "is not measured in this record")
    return (
        "The diagonal piece, at round((t + ½)·L/T − ½) of a source of L pieces at step t "
        "of a target of T, reads no content: it is where a monotone alignment would look, "
        f"a control a random piece is not. {overlap}. The row compares one argmax with "
        "one position: it does not show that the weights explain the output (τ with "
        "integrated gradients above; no other or adversarial weights are tried), and it "
        "reads the reference's piece teacher-forced, not the model's own output. Drops "
        "compare within a setting, not across families. The draws are the same for every "
        f"member. {_NOT_SHOWN}")


def _within_seeds(pairs) -> str:
    """Each seed's own difference, which the registered (unpaired) Welch test does not
    use: where every seed agrees, the spread between seeds is what leaves a setting
    unseparated, not the absence of an effect."""
    import math
    differences = [x - y for a, b in pairs for x, y in zip(a, b)  # rows of the same member
                   if x is not None and y is not None and math.isfinite(x - y)]
    return (f"Within each seed the implicit piece costs more in "
            f"{sum(d > 0 for d in differences)} of {len(differences)} members (differences "
            f"{min(differences):+.3f} to {max(differences):+.3f} nats); the registered test "
            "is unpaired, over seeds. Integrated gradients' baseline is the zero embedding "
            "the ablation uses, which favours the implicit map by construction")


def _symbol_findings(results):
    from experiments.lab import findings as f
    rows = f.report_rows(results)
    settings = _settings()
    out = []
    for key, needed, decide in (
            ("weights-faithful-where-solved", settings,
             lambda: _weights_faithful(f, rows, settings, results)),
            ("gradients-find-the-token-without-attention",
             [f"{_NONE}_task-{task}" for task in TASKS],
             lambda: _gradients_without_attention(f, rows))):
        complete = f.finished_members(rows, needed, len(SEEDS))
        out.append(decide() if complete == len(needed) * len(SEEDS) else f.pending(
            key, _CLAIMS[key], None, f"{complete} of {len(needed) * len(SEEDS)} members"))
    return out


def _verdict(answers, reversed_answers) -> str:
    if all(separated for separated, _ in answers):
        return "holds"
    return ("does not hold" if any(separated for separated, _ in reversed_answers)
            else "inconclusive")


def _drops(f, rows, setting, first, second):
    return (f.column(rows, DROP.format(first), setting=setting),
            f.column(rows, DROP.format(second), setting=setting))


def _weights_faithful(f, rows, settings, results):
    from attention_research.reports import stats
    solved = [s for s in settings if s.rsplit("_task-", 1)[0] not in (_POINTER, _NONE)
              and stats.finite(f.column(rows, SEEN, setting=s)).mean() >= SOLVED]
    pairs = [_drops(f, rows, s, "explicit", "random") for s in solved]
    comparisons = [(a, b, True) for a, b in pairs]
    answers = f.separated_holm(comparisons, DROP_RULE)
    reversed_answers = f.separated_holm([(a, b, False) for a, b in pairs], DROP_RULE)
    held = sum(separated for separated, _ in answers)
    gaps = [stats.finite(a).mean() - stats.finite(b).mean() for a, b in pairs]
    smallest = min(range(len(solved)), key=gaps.__getitem__)
    pointer = [_drops(f, rows, f"{_POINTER}_task-{task}", "explicit", "random")
               for task in TASKS]
    cell = lambda values: stats.t_interval(values).cell()  # noqa: E731
    ours = (f"{len(solved)} settings × tasks solved (mean sequence accuracy 1–25 ≥ "
            f"{SOLVED}; 3 seeds each): the weights' top token zeroed costs more than a "
            f"random one in {held} of them (Holm-corrected Welch over seeds). The smallest "
            f"gap: {solved[smallest]}, {cell(pairs[smallest][0])} against "
            f"{cell(pairs[smallest][1])} nats ({answers[smallest][1]}). Left out: the "
            "pointer-generator, whose copy path the embedding ablation cannot see (copy "
            + ", reverse ".join(f"{cell(a)} against {cell(b)}"
                                for (a, b) in pointer[:2])
            + f" nats; sort {cell(pointer[2][0])} against {cell(pointer[2][1])})")
    verdict = _verdict(answers, reversed_answers)
    one_rule, power = f.one_rule_reading(comparisons, DROP_RULE, verdict, results)
    return f.Finding(
        "weights-faithful-where-solved", _CLAIMS["weights-faithful-where-solved"], None,
        ours, verdict,
        "per solved setting, Welch's t of the drop when the weights' argmax token is "
        "zeroed against a random token's, Holm-corrected over the settings at 5%; holds "
        "if every one is separated with the weights' token costing more, does not hold "
        "if any is separated the other way" + one_rule, power=power)


def _gradients_without_attention(f, rows):
    from attention_research.reports import stats
    pairs = [_drops(f, rows, f"{_NONE}_task-{task}", "implicit", "random") for task in TASKS]
    comparisons = [(a, b, True) for a, b in pairs]
    answers = f.separated_holm(comparisons, DROP_RULE)
    reversed_answers = f.separated_holm([(a, b, False) for a, b in pairs], DROP_RULE)
    cell = lambda values: stats.t_interval(values).cell()  # noqa: E731
    ours = "`none`, 3 seeds: " + "; ".join(
        f"{task} sequence accuracy {cell(f.column(rows, SEEN, setting=f'{_NONE}_task-{task}'))},"
        f" implicit alignment {cell(f.column(rows, IMPLICIT_ALIGN, setting=f'{_NONE}_task-{task}'))},"
        f" the implicit map's top token zeroed {cell(a)} nats against {cell(b)} for a "
        f"random one ({answer})"
        for task, (a, b), (_, answer) in zip(TASKS, pairs, answers))
    verdict = _verdict(answers, reversed_answers)
    # A check since issue 73's ninth referee: the lead over a random token holds in part
    # by construction (the same zero embedding is the map's baseline and the ablation's
    # replacement), as the rows moved to checks before it (results' README, Decision log).
    return f.Finding(
        "gradients-find-the-token-without-attention",
        _CLAIMS["gradients-find-the-token-without-attention"], None, ours,
        f.as_check(verdict),
        "per task, Welch's t of the drop when the implicit map's argmax token is zeroed "
        "against a random token's, Holm-corrected over the 3 tasks at 5%; holds (verified) "
        "if all three are separated, does not hold (not verified) if any is separated the "
        "other way" + f.one_rule_reading(comparisons, DROP_RULE, verdict)[0],
        construction=(
            "integrated gradients' baseline is the zero embedding the ablation puts in a "
            "token's place, so the map's top token is chosen in part for what zeroing it "
            "costs, and its lead over a random token follows in part from that. What the "
            "check adds is the implicit alignment above: the map's top token is the source "
            "position the output copies in about half of the steps, often, not always, the "
            "token the output depends on. No ablation with another replacement (a random "
            "vocabulary token, the mean embedding) is run, so how much of the lead exceeds "
            "what the shared zero baseline builds in is not measured; one that is would "
            "make it a finding"))
