"""The claims experiments/translation_length.py's records decide (rows of
experiments/FINDINGS.md): Bahdanau et al.'s long sentences, attention's lead over the
encoder-decoder and RNNsearch against the Transformer, by their rules.
"""

from pathlib import Path

from attention_research.running import sweeps
from experiments.lab import rule
from experiments.lab.claims.luong_table4 import shared_sentence_se
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.translation_length import (  # noqa: F401
    HOLDS_KEY, HOLDS_TITLE, KEY, LENGTH_PENALTIES, LONG, NONE_BIDIRECTIONAL,
    REPLICATED, REPLICATION_ADDS, RNNENCDEC, RNNSEARCH, SEEDS, SELECTION_LONG_RATIO,
    SETTINGS, SHORT, TEST_SPLITS, TITLE, TRANSFORMER)


SPLIT_LABELS = {"test": "test2016", "test2017": "test2017", "test2018": "test2018"}
RESAMPLES = 10_000
PAPER = ("Bahdanau et al. 2015, Figure 2 and Table 1 (BLEU, WMT'14 En→Fr test, all "
         "sentences): RNNencdec-50 17.82, RNNsearch-50 26.75; RNNencdec's BLEU falls as "
         "sentences grow past about 20 words, RNNsearch-50's does not")
HOLDS_PAPER = ("Bahdanau et al. 2015, Figure 2 (WMT'14 En→Fr): RNNsearch-50's BLEU "
               "shows no deterioration as sentences grow to 50 words and more")
LONGEST = 20  # source words: the bin beside the rules, where the paper's curves part
BESIDE = 2_000  # resamples of the tests read by no rule
HOLDS_MARGIN = 2.0  # BLEU: the non-inferiority margin of HOLDS_RULE (void)
# HOLDS_REVISED_RULE: RNNsearch must keep at least RETENTION of the Transformer's lead
# over a model without attention in how little it falls (the share a non-inferiority
# trial conventionally preserves, FDA 2016), with the long outputs of every arm it
# reads at least MIN_LONG_RATIO of the references' length on the test sets. The alpha
# is chosen on validation with a stricter SELECTION_LONG_RATIO (chosen at the gate's own
# value, the shorter test sets would land under it).
# An upper bound too: past it, outputs run away (repeat to the length cap), which
# would make a model fall for its decoding, not its translation.
RETENTION = 0.5
MIN_LONG_RATIO, MAX_LONG_RATIO = 0.95, 1.05  # each seed's, short and long sources alike
MAX_RUN_AWAY = 0.01  # each seed's share of outputs past twice their reference
CALIBRATION_DATE = "2026-11-28"
HOLDS_TEST_SPLITS = ("test",)

# The first seeds' verdicts by the docstring's rule and by HOLDS_RULE are shown and decide
# nothing (DECIDED_BY_FRESH_SEEDS); seeds 100-102 are decided by REVISED_RULE and
# HOLDS_REVISED_RULE. Why each rule replaced the one before, and when:
# results/translation_length/README.md, "Decision log".
HOLDS_REVISION = (
    "a revised rule (HOLDS_REVISED_RULE, written 2026-11-28 before seeds 100-102 "
    "trained) decides the replication: BLEU at each model's length penalty tuned on the "
    "validation set with long outputs long enough, the Transformer must fall less than "
    "the model without attention, and RNNsearch must keep half of its lead")
DECIDED_BY_FRESH_SEEDS = {
    KEY: "read as Bahdanau: it compares RNNsearch with RNNencdec only, which differ in "
         "the encoder and in attention at once, and its title claimed RNNsearch holds, "
         "which it does not test",
    HOLDS_KEY: "read as Bahdanau: it was written after multi30k_goals had recorded the "
               "same Transformer's test_2016 BLEU by length on seeds 0-2, so those seeds "
               "were not unseen; the Transformer's fall is mostly its output's brevity on "
               "long sentences (0.87 of the references' length on sources of ≥ 16 words "
               "against RNNsearch's 0.95, seeds 0-1), from a beam length penalty tuned for "
               "neither model; and the 2-BLEU margin is as large as attention's own effect "
               "(RNNencdec falls 2.55 BLEU more than RNNsearch), so the rule cannot fail a "
               "model without attention; " + HOLDS_REVISION}
REVISED_RULE = (
    f"the revised rule, on seeds 100-102 of RNNencdec, RNNsearch and the bidirectional "
    f"encoder without attention (the control: the same encoder as RNNsearch, its final "
    f"states of both directions, 64 + 64 units, as the decoder's one view of the source, "
    f"so that only attention differs). Statistic as registered: cased sacreBLEU on the "
    f"pooled test sets, each bin's sentence statistics summed, Welch's t on the seeds' "
    f"variance plus the paired bootstrap's over sentences ({RESAMPLES:,} resamples). "
    f"G_paper: RNNsearch's lead over RNNencdec on sources of ≥ {LONG} words minus on "
    f"≤ {SHORT} (as registered); G_attention: the same against the control; W: the whole "
    f"split, RNNsearch − RNNencdec. Reproduced if each of the three has a point estimate "
    f"of at least 0.5 BLEU (the BLEU rule's minimum effect) and p < 0.05, all three "
    f"required (intersection-union, no correction); not reproduced if G_paper's or "
    f"G_attention's 95% interval lies wholly below +0.5; otherwise inconclusive, and "
    f"inconclusive too where both settings of a G score under the BLEU floor (1.0) on "
    f"the long bin. The row says which part failed. The bins stay as registered: ≥ "
    f"{LONGEST} words holds 88 pooled sentences and was looked at before this rule was "
    f"written. Fresh seeds are not fresh sentences: seeds 100-102 are scored on the same "
    f"3,071 sentences, whose noise (se 0.86 BLEU for G on seeds 0-2) outweighs the "
    f"seeds' (0.36), so the replication is independent in training noise only. Whether "
    f"RNNsearch itself holds is another row's (HOLDS_RULE), and cannot veto this one")
HOLDS_RULE = (
    f"D = (RNNsearch's BLEU on sources of ≥ {LONG} words minus on ≤ {SHORT}) − (the "
    f"Transformer's), by the length-gap test above (cased sacreBLEU, pooled test sets, "
    f"Welch's t on seeds plus the paired bootstrap over sentences). Reproduced (RNNsearch "
    f"falls no more than the Transformer, within {HOLDS_MARGIN:g} BLEU) if D's 95% "
    f"interval lies wholly above −{HOLDS_MARGIN:g}; not reproduced if it lies wholly "
    f"below −{HOLDS_MARGIN:g}; otherwise inconclusive (and where both score under the "
    f"BLEU floor on the long bin). Written before any result of this sweep's Transformer "
    f"was seen, but after multi30k_goals had recorded the same Transformer's test_2016 "
    f"BLEU by length on seeds 0-2 (an audit's correction); RNNsearch's seeds 0-2 had "
    f"been: it falls 5.5 BLEU from ≤ {SHORT} to ≥ {LONG} source words, which no arm on this corpus separates from the long sentences' own "
    f"difficulty, so the Transformer, which has no fixed-size view of the source either, "
    f"stands for that difficulty. Its power is stated, not hidden: D's se is about 1 "
    f"BLEU, so if both truly fall alike (D = 0) the rule says reproduced about half the "
    f"time, and 80% of the time only if RNNsearch truly falls about 0.8 BLEU less than "
    f"the Transformer. On the absolute scale a stronger Transformer falls more BLEU for "
    f"the same ratio, which favours reproduced; the ratio scale is shown beside. "
    f"Decided on seeds 0-2, replicated on 100-102")

# The rule's words name the test where it lived when they were written (now
# reports/bleu_tests.py).
HOLDS_REVISED_RULE = (
    f"the revised holds rule, written on 2026-11-28 after a second audit voided HOLDS_RULE, "
    f"and rewritten the same day on a third audit as Bahdanau, before seeds 100-102 "
    f"trained; on those seeds of RNNsearch (S), the Transformer (T), the bidirectional "
    f"control without attention (P, the placebo: only attention differs from S) and "
    f"RNNencdec. Decoding: each member translates the validation set at every alpha of "
    f"{', '.join(f'{a:g}' for a in LENGTH_PENALTIES)} (beam 4), takes the smallest alpha "
    f"whose outputs on validation sources of ≥ {LONG} words are at least "
    f"{SELECTION_LONG_RATIO:g} of the references' length (none is: the alpha of the "
    f"longest such outputs; GNMT tuned alpha on development data; the smallest, not the "
    f"best BLEU, which is flat there and would be noise), and translates the three test "
    f"sets at it (the rule reads {', '.join(HOLDS_TEST_SPLITS)}: the calibration below); "
    f"the target ratio was set by that length-only calibration. "
    f"Statistic: cased sacreBLEU of those translations, each "
    f"bin's sentence statistics summed; a setting's fall is its BLEU on sources of ≥ "
    f"{LONG} words minus on ≤ {SHORT} (negative when it falls). Each test: Welch's t on "
    f"the seeds' variance plus the paired bootstrap's over sentences ({RESAMPLES:,} "
    f"resamples), a 95% interval (metrics.contrast_seed_test). Length gate: if any seed "
    f"of S, T or P (every arm L reads) has its outputs on test sources of ≤ {SHORT} or of "
    f"≥ {LONG} words under {MIN_LONG_RATIO:g} or over {MAX_LONG_RATIO:g} of the "
    f"references' length, or over {MAX_RUN_AWAY:.0%} of its outputs past twice their "
    f"reference, inconclusive: brevity not removed, or outputs run away (runaways on "
    f"short sources would lower a short-bin BLEU and shrink a fall). Assay "
    f"sensitivity: A = fall(T) − fall(P) must lie wholly above 0 (the Transformer falls "
    f"less than the model without attention); otherwise inconclusive, the yardstick does "
    f"not tell attention from none. Retention (a three-arm non-inferiority test, Pigeot "
    f"et al. 2003): L = (fall(S) − fall(P)) − θ (fall(T) − fall(P)), θ = {RETENTION:g}, "
    f"the share of the active control's effect a non-inferiority trial conventionally "
    f"preserves; reproduced if A holds and L's interval lies wholly above 0, computed "
    f"with BLEU and again with BLEU without its brevity penalty (both required: the "
    f"selection lengthens long outputs only, and a brevity penalty on RNNsearch's short "
    f"outputs would shrink its fall and raise L one for one; added on the fifth audit, "
    f"after seeds 100-102 began training and before any output of theirs was read) "
    f"(RNNsearch keeps at least half of the Transformer's lead over no attention), not "
    f"reproduced if "
    f"A holds and L's lies wholly below 0, otherwise inconclusive; inconclusive too where "
    f"S and T both score under the BLEU floor (1.0) on the long bin. Beside, read by no "
    f"rule: A and L with RNNencdec as the placebo (its encoder differs too); D = fall(S) "
    f"− fall(T); the same at alpha 0.6 and without BLEU's brevity penalty (precision only: "
    f"blind to omissions); each setting's output length over the references' per bin; "
    f"each member's alpha. Known when written: all four settings' test statistics on "
    f"seeds 0-2 at alpha 0.6, and from them (deciding nothing): at alpha 0.6 A = +1.86 "
    f"[−0.33, +4.06] (the Transformer's long outputs were 0.87 of the references'), L = "
    f"+2.94 [+1.55, +4.34]; without the brevity penalty A = +5.61 [+3.32, +7.89], L = "
    f"+1.46 [−0.22, +3.13]. θ was fixed after L had been computed at θ = 0.5, 0.8 and 1 on "
    f"those seeds (without the penalty +1.46, −0.23, −1.35), at the conventional value, "
    f"the only one of the three whose L was positive; and since seeds 100-102 are scored "
    f"on the same sentences, whose noise outweighs the seeds' (L's sentence se 0.54, "
    f"seeds' 0.42), that is close to choosing θ on the deciding data: a reproduced verdict "
    f"is weaker than its interval says. It allows RNNsearch to fall more than the "
    f"Transformer (by up to half the Transformer's lead over the control), which is not "
    f"the paper's 'no deterioration': that reading, θ = 1 (D), is shown beside. Also "
    f"known: a probe before this text was final refinished the first run's Transformer "
    f"(seed 0) at alpha 0.6, 1, 1.5, 2 and 3: its validation outputs on long sources were "
    f"0.89, 0.91, 1.02, 1.93 and 3.02 of the references' length (BLEU 39.9, 40.3, 40.0, "
    f"30.5, 18.4), and at the alpha it chose, 1.5, its whole test sets scored 39.93, "
    f"31.67 and 29.66 (2016, 2017, 2018) against 39.78, 35.65 and 31.69 at 0.6; nothing "
    f"by length was computed from it (its translations were deleted). That set the "
    f"grid's steps and the upper gate. The fourth audit measured their lengths: at 1.5 "
    f"the Transformer's pooled test outputs on long sources were 1.15 of the references' "
    f"(test2016 1.02, test2017 1.21, test2018 1.23; 0.86 at 0.6), with 6, 32 and 23 "
    f"outputs past twice their reference: the newer test sets react to alpha about twice "
    f"as steeply as validation. Calibration (written before its run, {CALIBRATION_DATE}): "
    f"the first run's Transformer seeds 0 and 1, decoded on validation at 0.6, 0.8, 1, "
    f"1.1, ..., 1.5 and on the three test sets at the alpha each target chooses, lengths "
    f"only (BLEU on validation only; the record's length_calibration/). For each target r of 1, 0.98, 0.95 in turn, each "
    f"seed takes the smallest alpha whose validation long outputs reach r; r is "
    f"admissible if for both seeds the pooled test outputs on short and on long sources "
    f"are within [{MIN_LONG_RATIO:g}, {MAX_LONG_RATIO:g}] of the references' length and "
    f"at most {MAX_RUN_AWAY:.0%} of each test set's outputs run past twice their "
    f"reference; the first admissible r is the rule's. If none is, the rule is decided on "
    f"test2016 alone (validation's own distribution, 108 long sentences: less power), by "
    f"the same check on test2016 at r = 1; if that fails too, the row is undecidable on "
    f"this corpus with this decoding, and says so. RNNsearch and the control are not "
    f"calibrated (no first-run checkpoint of theirs is on this machine): the gate checks "
    f"them. Its outcome: no target was admissible. The alphas chosen (seed 0: 1.5, 1.5, "
    f"1.3 for targets 1, 0.98, 0.95; seed 1: 1.4, 1.4, 1.3) left 15 to 33 of test2017's "
    f"1,000 outputs past twice their reference and its outputs on short sources 1.10 to "
    f"1.16 of the references' length. On test2016 at target 1 (seed 0 alpha 1.5, seed 1 "
    f"1.4) the outputs were 1.005 and 1.008 of the references' length on short sources, "
    f"1.019 and 0.988 on long ones, with 6 and 7 of 1,000 past twice theirs: admissible. "
    f"So the rule reads test2016 alone, at target 1 ({len(HOLDS_TEST_SPLITS)} test set; "
    f"108 sentences of ≥ {LONG} source words instead of 312, 1,000 sentences in all). On "
    f"test2016 alone L's se on seeds 0-2 at alpha 0.6 was 1.18 BLEU (seeds' 0.72, "
    f"sentences' 0.94; a fifth audit's reading, L itself not printed), a half-width of "
    f"about 2.4: the power statements above, made on the pooled sets, overstate its "
    f"power, and inconclusive is the likeliest verdict; so is a gate firing (the "
    f"Transformer's 6 and 7 outputs of 1,000 past twice their reference are near the "
    f"limit of 10, and RNNsearch and the control were not calibrated). The calibration "
    f"script was restarted after four validation alphas, before any test output, to "
    f"decode the test sets only at the alphas the targets chose. "
    f"So the verdict rests on how much brevity the tuned alpha removes; pooled, with L's "
    f"se about 0.8 BLEU (half-width about 1.7), reproduced would need L near +1.7 or more "
    f"(on test2016 alone, below, about 2.4). Fresh seeds are not fresh sentences: the "
    f"same ones as seeds 0-2's, whose noise outweighs the seeds', so the replication is "
    f"independent in training noise only. Not Bahdanau's regime (≥ "
    f"{LONG} words here, 50 and more in his Figure 2): a verdict is weak evidence about "
    f"the paper, and not reproduced says RNNsearch falls more than a Transformer on this "
    f"corpus, not that Figure 2 fails. The row's plot is the first seeds' test_2016 BLEU "
    f"by length at alpha 0.6, not this statistic. Not replicated again: these seeds are "
    f"the confirmatory run")


def _pooled(results, setting, seeds, suffix=""):
    """Each finished seed's BLEU statistics per sentence of the pooled test splits [N,
    10], the sources' word counts [N] and each sentence's split (an index into
    TEST_SPLITS) [N]. A record of Multi30k holds no texts but the hypotheses (its
    licence): its statistics come from translations/*.sentences.tsv (record.py); a
    record with references is scored here. Members whose sentences differ (other
    references or sources) are refused: not one test set. ``suffix``: the splits'
    translations at the tuned length penalty (TUNED) instead of at alpha 0.6."""
    import numpy as np

    from experiments.lab import findings as f
    from attention_research.tasks.translation import metrics
    statistics, words, splits = [], None, np.zeros(0, int)
    for folder in f.finished_members_of(results, setting, seeds):
        member = folder / "translations"
        parts = []
        for split in (name + suffix for name in TEST_SPLITS):
            table = member / f"{split}.sentences.tsv"
            if table.is_file():
                parts.append(metrics.read_sentence_table(table))
            elif (member / f"{split}.reference.txt").is_file():
                read = lambda kind: (member / f"{split}.{kind}.txt").read_text().splitlines()  # noqa: E731
                parts.append((np.array([len(s.split()) for s in read("source")]),
                              metrics.sentence_statistics(read("hypothesis"), read("reference"))))
        if len(parts) < len(TEST_SPLITS):
            continue
        counts = np.concatenate([w for w, _ in parts])
        # The reference length of each sentence (column 9) and its source's word count
        # identify the test set without its texts.
        stats = np.concatenate([s for _, s in parts])
        if words is not None and not (np.array_equal(counts, words[0])
                                      and np.array_equal(stats[:, 9], words[1])):
            raise ValueError(f"{member.parent}: its test sentences differ from another "
                             f"member's: not one test set")
        words = (counts, stats[:, 9])
        splits = np.concatenate([np.full(len(w), i) for i, (w, _) in enumerate(parts)])
        statistics.append(stats)
    return statistics, (words[0] if words is not None else np.zeros(0, int)), splits


def _read(results, names, suffix=""):
    """{name: its seeds' statistics} of every setting in ``names`` with all of SEEDS
    finished, how many each has, and the pooled test set's word counts and splits; a
    setting whose sentences differ from another's is refused. ``suffix`` as _pooled's."""
    import numpy as np
    read = {name: _pooled(results, name, SEEDS, suffix) for name in names}
    done = {name: len(statistics) for name, (statistics, _, _) in read.items()}
    complete = [name for name in names if done[name] >= len(SEEDS)]
    words, splits = (read[complete[0]][1:] if complete else (np.zeros(0, int),) * 2)
    for name in complete[1:]:
        if not np.array_equal(read[name][1], words):
            raise ValueError(f"{name}'s test sentences differ from {complete[0]}'s")
    # The references too (the sources alone could match across other references):
    # every seed's reference lengths, statistics column 9, are the same.
    lengths = [(name, s[:, 9]) for name in complete for s in read[name][0]]
    for name, length in lengths[1:]:
        if not np.array_equal(length, lengths[0][1]):
            raise ValueError(f"{name}'s test references differ from {lengths[0][0]}'s: "
                             f"not one test set")
    return {name: read[name][0] for name in complete}, done, words, splits


def _interval(test) -> str:
    return (f"{test['difference']:+.2f} BLEU [{test['low']:+.2f}, {test['high']:+.2f}], "
            f"p = {test['p']:.2g} (seeds' se {test['seed_se']:.2f}, sentences' "
            f"{test['sentence_se']:.2f})")


def _pending(key, title, paper, done):
    """The row while a setting it reads lacks seeds: how many each has."""
    from experiments.lab import findings as f
    return f.pending(key, title, paper, "Multi30k test sets, " + ", ".join(
        f"{name}: {count} of {len(SEEDS)}" for name, count in done.items()))


def _shown(test) -> bool:
    """A difference of at least the BLEU rule's minimum effect, at p < 5%."""
    from attention_research.reports import stats
    return test["difference"] >= stats.BLEU.min_effect and test["p"] < stats.LEVEL


def _decided(tests, long_bleu) -> str:
    """The verdict of an intersection-union rule: reproduced if every test in ``tests``
    is at least the BLEU rule's minimum effect at p < 5%; not reproduced if any of the
    ``long_bleu`` keys' (the G tests') interval lies below it; otherwise, or where a
    G's two settings are both under the BLEU floor on the long bin, inconclusive."""
    from attention_research.reports import stats
    rule = stats.BLEU
    if any(max(pair) < rule.floor for pair in long_bleu.values()):
        return "inconclusive"
    if all(_shown(t) for t in tests.values()):
        return "reproduced"
    if any(tests[key]["high"] < rule.min_effect for key in long_bleu):
        return "not reproduced"
    return "inconclusive"


def findings(results):
    """The docstring's rule and HOLDS_RULE on the first seeds; REVISED_RULE and
    HOLDS_REVISED_RULE on the replication's."""
    from pathlib import Path
    replicating = Path(results).name.endswith("_replication")
    if replicating:
        return [_revised(results), _holds_revised(results)]
    return [_registered(results), _holds(results)]


def _registered(results):
    """The rule of the docstring, on the recorded test translations."""
    import numpy as np

    from experiments.lab import findings as f
    from attention_research.reports import bleu_tests, stats
    encdec, search, bidirectional, transformer_name = (sweeps.member_name(s)
                                                       for s in SETTINGS)
    systems, done, words, _ = _read(results, [encdec, search, bidirectional,
                                              transformer_name])
    # Pending until every setting has its seeds: the bidirectional control tells
    # attention's part from the encoder's, and the row cannot be worded without it.
    if min(done.values()) < len(SEEDS):
        return _pending(KEY, TITLE, PAPER, done)
    short, long = np.flatnonzero(words <= SHORT), np.flatnonzero(words >= LONG)
    everything = np.arange(len(words))
    gap = bleu_tests.length_gap_test(systems, None, short, long, search, encdec,
                                  n_samples=RESAMPLES)
    whole = bleu_tests.paired_seed_test(systems, None, search, encdec,
                                     [(everything, 1.0)], n_samples=RESAMPLES)
    rule = stats.BLEU
    bleu = lambda name, rows: _bleu(systems, name, rows)  # noqa: E731
    verdict = _decided({"gap": gap, "whole": whole},
                       {"gap": (bleu(encdec, long), bleu(search, long))})
    ours = (f"Multi30k Flickr test sets 2016-2018 pooled ({len(words):,} sentences), "
            f"de→en, cased sacreBLEU, {len(SEEDS)} seeds: all sentences RNNencdec "
            f"{bleu(encdec, everything):.2f}, RNNsearch {bleu(search, everything):.2f} "
            f"(difference {_interval(whole)}); sources of ≤ {SHORT} words ({len(short)}) "
            f"RNNencdec {bleu(encdec, short):.2f}, RNNsearch {bleu(search, short):.2f}; of "
            f"≥ {LONG} words ({len(long)}) RNNencdec {bleu(encdec, long):.2f}, RNNsearch "
            f"{bleu(search, long):.2f}; RNNsearch's lead grows by G = {_interval(gap)}")
    beside = []
    for a, b, what in ((bidirectional, encdec, "the bidirectional encoder without "
                        "attention against RNNencdec"),
                       (search, bidirectional, "attention over the same bidirectional "
                        "encoder against none"),
                       (transformer_name, encdec, "the Transformer against RNNencdec")):
        test = bleu_tests.length_gap_test(systems, None, short, long, a, b,
                                       n_samples=RESAMPLES)
        beside.append(f"{what}: G = {test['difference']:+.2f} "
                      f"[{test['low']:+.2f}, {test['high']:+.2f}]")
    ours += ". Beside, read by no rule: " + "; ".join(beside)
    why = (f"the docstring's rule, written before the run: G (the lead on sources of ≥ "
           f"{LONG} words minus on ≤ {SHORT}) and the whole split's difference, each by "
           f"Welch's t on the seeds' variance plus the paired bootstrap's over sentences "
           f"({RESAMPLES:,} resamples); reproduced if both are positive at 5% and at "
           f"least {rule.min_effect:g} BLEU (both must hold: no correction). Not Bahdanau's "
           f"regime: Multi30k's test sources average 10-11.5 words, theirs reach 60, and "
           f"the recipe was tuned for the models with attention, so a lead that does not "
           f"grow here is weak evidence against the paper at its lengths")
    return f.Finding(KEY, TITLE, PAPER, ours, verdict, why,
                     "results/translation_length/plots/bleu_by_length.png")


def _bleu(systems, name, rows) -> float:
    """The seed-mean corpus BLEU of ``name`` on ``rows``."""
    import numpy as np

    from attention_research.tasks.translation import metrics
    return float(np.mean([metrics.bleu_from_statistics(s[rows].sum(0))
                          for s in systems[name]]))


def _revised(results):
    """REVISED_RULE on a replication record (seeds REPLICATION_SEEDS, read as SEEDS)."""
    import numpy as np

    from experiments.lab import findings as f
    from attention_research.reports import bleu_tests, stats
    encdec, search, bidirectional = (sweeps.member_name(s) for s in SETTINGS[:3])
    systems, done, words, splits = _read(results, [encdec, search, bidirectional])
    if min(done.values()) < len(SEEDS):
        return _pending(KEY, TITLE, PAPER, done)
    short, long = np.flatnonzero(words <= SHORT), np.flatnonzero(words >= LONG)
    everything = np.arange(len(words))
    bleu = lambda name, rows: _bleu(systems, name, rows)  # noqa: E731

    def gap(a, b, shorter=short, longer=long, n_samples=RESAMPLES):
        return bleu_tests.length_gap_test(systems, None, shorter, longer, a, b,
                                       n_samples=n_samples)

    tests = {"G_paper": gap(search, encdec), "G_attention": gap(search, bidirectional),
             "W": bleu_tests.paired_seed_test(systems, None, search, encdec,
                                           [(everything, 1.0)], n_samples=RESAMPLES)}
    long_bleu = {"G_paper": (bleu(search, long), bleu(encdec, long)),
                 "G_attention": (bleu(search, long), bleu(bidirectional, long))}
    verdict = _decided(tests, long_bleu)
    names = {encdec: "RNNencdec", search: "RNNsearch",
             bidirectional: "the control (no attention, bidirectional encoder)"}
    table = "; ".join(f"{names[n]} {bleu(n, everything):.2f} (≤ {SHORT} words "
                      f"{bleu(n, short):.2f}, ≥ {LONG} {bleu(n, long):.2f})" for n in names)
    ours = (f"Multi30k Flickr test sets 2016-2018 pooled ({len(words):,} sentences; "
            f"{len(short)} of ≤ {SHORT} source words, {len(long)} of ≥ {LONG}), de→en, "
            f"cased sacreBLEU, {len(SEEDS)} seeds: {table}. G_paper (RNNsearch against "
            f"RNNencdec) {_interval(tests['G_paper'])}; G_attention (RNNsearch against the "
            f"control) {_interval(tests['G_attention'])}; W (whole split, RNNsearch − "
            f"RNNencdec) {_interval(tests['W'])}")
    rule = stats.BLEU
    failed = [key for key, t in tests.items() if not _shown(t)]
    floored = [key for key, pair in long_bleu.items() if max(pair) < rule.floor]
    if floored:
        ours += (f". Under the BLEU floor ({rule.floor:g}) on the long bin, both settings "
                 f"of: {', '.join(floored)}")
    if verdict != "reproduced" and failed:
        ours += f". Not shown at the minimum effect: {', '.join(failed)}"
    # Beside, read by no rule (fewer resamples: they decide nothing).
    bins = {f"≤ {SHORT}": words <= SHORT, f"{SHORT + 1}-{LONG - 1}": (words > SHORT)
            & (words < LONG), f"{LONG}-{LONGEST - 1}": (words >= LONG) & (words < LONGEST),
            f"≥ {LONGEST}": words >= LONGEST}
    lead = ", ".join(f"{bleu(search, np.flatnonzero(m)) - bleu(encdec, np.flatnonzero(m)):.1f}"
                     f" at {b}" for b, m in bins.items())
    longest = np.flatnonzero(words >= LONGEST)
    past = gap(search, encdec, longer=longest, n_samples=BESIDE)
    beside = [f"RNNsearch's lead over RNNencdec by source words {lead}",
              f"G_paper with ≥ {LONGEST} words ({len(longest)} sentences) "
              f"{_short_interval(past)}",
              _ratio_scale(systems, {search: "RNNsearch", encdec: "RNNencdec"}, short, long)
              + " (BLEU falls multiplicatively, so the absolute G is conservative against "
              "the stronger model)",
              f"the control against RNNencdec (the encoder's part) "
              f"{_short_interval(gap(bidirectional, encdec, n_samples=BESIDE))}"]
    by_split, kept_more, attention_by_split = {}, [], []
    for i, split in enumerate(TEST_SPLITS):
        rows = splits == i
        shorter, longer = (np.flatnonzero(rows & (words <= SHORT)),
                           np.flatnonzero(rows & (words >= LONG)))
        by_split[SPLIT_LABELS[split]] = test = gap(search, encdec, shorter, longer, BESIDE)
        attention_by_split.append(gap(search, bidirectional, shorter, longer, BESIDE))
        beside.append(f"G_paper on {SPLIT_LABELS[split]} alone {_short_interval(test)}, "
                      f"G_attention {_short_interval(attention_by_split[-1])}")
        kept = [_kept(systems, n, shorter, longer) for n in (search, encdec)]
        kept_more.append(None not in kept and kept[0] > kept[1])
    ours += (". Beside, read by no rule (the pooled bootstrap treats the three test sets "
             "as one sample of sentences): " + "; ".join(beside))
    # What the verdict alone does not say: written after the results, so it reads them
    # and changes no verdict.
    first = splits != 0  # all but test_2016_flickr, the set most numbers quote
    fresh = f"{min(f.REPLICATION_SEEDS)}-{max(f.REPLICATION_SEEDS)}"
    without_first = [gap(search, other, np.flatnonzero(first & (words <= SHORT)),
                         np.flatnonzero(first & (words >= LONG)), BESIDE)
                     for other in (encdec, bidirectional)]
    q, q_p = _heterogeneity(by_split.values())
    q_attention, q_attention_p = _heterogeneity(attention_by_split)
    # A tenth referee: G_attention, the blind test, is read by test set as G_paper is; the
    # title's 'shown on' names the sets where either G is separated alone.
    attention_shown = [label for label, attention in zip(by_split, attention_by_split)
                       if _shown(attention)]
    shown = [label for label, test in by_split.items()
             if _shown(test) or label in attention_shown]
    differs = "differs" if q_p < stats.LEVEL else "is not shown to differ"
    ours += (f". Read with care: the long bin starts at {LONG} source words ({len(longest)} "
             f"sentences of ≥ {LONGEST}; Bahdanau's Figure 2 runs to 60), and RNNsearch's "
             f"own BLEU goes {bleu(search, short):.2f} → {bleu(search, long):.2f}: this tests "
             f"Figure 2's direction at Multi30k's short lengths, not its shape at the "
             f"paper's. The growth {differs} across the test sets (Cochran's Q = {q:.1f}, "
             f"p = {q_p:.2g}, on the three G_paper above taken as independent, which their "
             f"shared seeds make conservative; on the three G_attention Q = "
             f"{q_attention:.1f}, p = {q_attention_p:.2g}): it is shown alone on "
             f"{', '.join(shown) or 'none'} of the three, by either G; without "
             f"{SPLIT_LABELS[TEST_SPLITS[0]]}, G_paper is "
             f"{_short_interval(without_first[0])} and G_attention "
             f"{_short_interval(without_first[1])}; on the ratio scale RNNsearch keeps more of "
             f"its short-source BLEU than RNNencdec on {sum(kept_more)} of "
             f"{len(kept_more)}. Seeds {fresh} are scored on the first run's sentences: "
             f"independent in training noise only. The recipe was tuned on the attention "
             f"RNN, which may favour it on long sentences as well as on all")
    # A third referee: the verdict pools the three test sets as one sample of sentences,
    # which Cochran's Q can reject; the random-effects reading is shown beside.
    ours += (". Read as three studies (DerSimonian and Laird's random effects over the "
             "test sets, a z interval), G_paper is "
             f"{_random_effects(list(by_split.values()))} and G_attention "
             f"{_random_effects(attention_by_split)}: the verdict rests on pooling the "
             "sentences of the three sets")
    if shown == [SPLIT_LABELS[TEST_SPLITS[0]]]:
        # A referee: the one set that carries the growth is the validation set's kin.
        ours += (f". The one test set that shows the growth alone, {shown[0]}, is drawn "
                 "from the distribution of the validation set that tuned the recipe and "
                 "chose each member's checkpoint (Flickr30k's own split); test2017 and "
                 "test2018 were collected later, apart from Flickr30k, and on neither "
                 "alone is the growth separated")
    # Qualified after a referee's audit (issue 73): the corpus, the long bin, and the one
    # test set that shows the growth alone, when only one does.
    # A second referee: 'grows' said more than the bins show (the lead reaches its size
    # by 11-15 words): the title names the two bins the statistic compares.
    leads = {b: bleu(search, np.flatnonzero(m)) - bleu(encdec, np.flatnonzero(m))
             for b, m in bins.items()}
    top, near = leads[f"≥ {LONGEST}"], leads[f"{LONG}-{LONGEST - 1}"]
    title = (f"Attention's lead over the encoder-decoder is larger on sources of ≥ {LONG} "
             f"words than of ≤ {SHORT}, with the encoder held fixed too (Multi30k test "
             "sets pooled"
             # A fourth referee: "no larger" read a non-separation as no difference.
             + (f"; not separated past {LONGEST - 1} words ({len(longest)} sentences)"
                if top <= near and past["low"] <= 0 else "")
             + (f"; shown on {shown[0]} alone" if len(shown) == 1 else "") + ")")
    if top <= near and past["low"] <= 0:
        ours += (f". The lead by source words ({lead}) reaches its size between {SHORT + 1} "
                 f"and {LONGEST - 1} words, which carry the verdict; past {LONGEST - 1} "
                 f"words ({len(longest)} sentences, the only bin in Bahdanau's own range) "
                 f"G_paper {_short_interval(past)} neither grows nor shrinks by a test")
    # The lab's one decision rule on the two gaps (beyond +0.5 BLEU), beside the
    # registered rule (point ≥ 0.5 and p < 0.05), and the row's power.
    from experiments.lab import rule as one_rule
    decisions = [one_rule.decide_interval(
        stats.Interval(len(SEEDS), t["difference"], t["low"], t["high"]), t["se"], t["df"],
        len(SEEDS), one_rule.Claim(stats.BLEU.min_effect, one_rule.ABOVE),
        fixed_se=shared_sentence_se(t)) for t in (tests["G_paper"], tests["G_attention"])]
    why = (REVISED_RULE + ". The lab's one decision rule, written after it, on G_paper's "
           f"and G_attention's intervals (each beyond +{stats.BLEU.min_effect:g} BLEU) gives "
           f"{one_rule.all_of(decisions)}. "
           # A fresh referee (issue 73): which of the three is a blind test.
           "G_paper on these sentences was known when the revised rule was written "
           "(RNNencdec fell 2.55 BLEU more than RNNsearch on seeds 0-2), and the fresh "
           "seeds are scored on the same sentences; only G_attention, whose control "
           "trained after the rule, is a blind test"
           # A tenth referee: and the blind test too rests on one test set.
           + (f", and it too is separated on {attention_shown[0]} alone (without it "
              f"{_short_interval(without_first[1])})"
              if attention_shown == [SPLIT_LABELS[TEST_SPLITS[0]]]
              and not _shown(without_first[1]) else ""))
    return f.Finding(KEY, title, PAPER, ours, verdict, why,
                     "results/translation_length/plots/bleu_by_length.png",
                     power=one_rule.power_words(decisions, one_rule.member_seconds(Path(results)),
                                            arms=3))


def _holds(results):
    """HOLDS_RULE: RNNsearch's fall from short to long sources against the
    Transformer's, a non-inferiority test with margin HOLDS_MARGIN."""
    import numpy as np

    from experiments.lab import findings as f
    from attention_research.reports import bleu_tests
    search, transformer_name = sweeps.member_name(SETTINGS[1]), sweeps.member_name(SETTINGS[3])
    systems, done, words, _ = _read(results, [search, transformer_name])
    paper = HOLDS_PAPER
    if min(done.values()) < len(SEEDS):
        return _pending(HOLDS_KEY, HOLDS_TITLE, paper, done)
    short, long = np.flatnonzero(words <= SHORT), np.flatnonzero(words >= LONG)
    bleu = lambda name, rows: _bleu(systems, name, rows)  # noqa: E731
    test = bleu_tests.length_gap_test(systems, None, short, long, search, transformer_name,
                                   n_samples=RESAMPLES)
    verdict = _holds_verdict(test, (bleu(search, long), bleu(transformer_name, long)))
    ours = (f"Multi30k Flickr test sets 2016-2018 pooled, de→en, cased sacreBLEU, "
            f"{len(SEEDS)} seeds: RNNsearch {bleu(search, short):.2f} on sources of ≤ "
            f"{SHORT} words ({len(short)}), {bleu(search, long):.2f} on ≥ {LONG} "
            f"({len(long)}): {test['a_gap']:+.2f}; the Transformer "
            f"{bleu(transformer_name, short):.2f} and {bleu(transformer_name, long):.2f}: "
            f"{test['b_gap']:+.2f}. D = "
            f"{_interval(test)}. Beside, read by no rule: "
            + _ratio_scale(systems, {search: "RNNsearch", transformer_name: "the Transformer"},
                           short, long))
    return f.Finding(HOLDS_KEY, HOLDS_TITLE, paper, ours, verdict, HOLDS_RULE,
                     "results/translation_length/plots/bleu_by_length.png")


def _holds_verdict(test, long_bleu) -> str:
    """HOLDS_RULE's verdict from D's test and the two settings' BLEU on the long bin."""
    from attention_research.reports import stats
    if max(long_bleu) < stats.BLEU.floor:
        return "inconclusive"
    return ("reproduced" if test["low"] > -HOLDS_MARGIN else "not reproduced"
            if test["high"] < -HOLDS_MARGIN else "inconclusive")


def _ratio_scale(systems, names, short, long) -> str:
    """How much of its BLEU on short sources each of ``names`` ({setting: label}, two)
    keeps on long ones, and the log of the first's ratio over the second's; none where
    a BLEU is 0 (no ratio)."""
    import math
    kept = {label: _kept(systems, name, short, long) for name, label in names.items()}
    if None in kept.values() or 0 in kept.values():
        return "on the ratio scale: none (a BLEU of 0)"
    (a, ratio_a), (b, ratio_b) = kept.items()
    return (f"on the ratio scale {a} keeps {ratio_a:.2f} of its BLEU on short sources on "
            f"long ones, {b} {ratio_b:.2f} (log ratio {math.log(ratio_a / ratio_b):+.2f})")


def _kept(systems, name, short, long) -> float | None:
    """How much of its BLEU on the ``short`` rows ``name`` keeps on the ``long`` ones
    (None where its short BLEU is 0: no ratio)."""
    low = _bleu(systems, name, short)
    return _bleu(systems, name, long) / low if low > 0 else None


def _heterogeneity(tests) -> tuple[float, float]:
    """Cochran's Q of the differences of ``tests`` (each with 'difference' and 'se') about
    their inverse-variance mean, and its p on k - 1 degrees of freedom."""
    import numpy as np
    from scipy import stats as scipy_stats
    d = np.array([t["difference"] for t in tests])
    w = 1 / np.maximum(np.array([t["se"] for t in tests]), 1e-12) ** 2
    q = float((w * (d - (w * d).sum() / w.sum()) ** 2).sum())
    return q, float(scipy_stats.chi2.sf(q, len(d) - 1))


def _random_effects(tests) -> str:
    """DerSimonian and Laird's random-effects mean of ``tests``' differences (each with
    'difference' and 'se'), its between-set variance τ², and a 95% z interval."""
    import numpy as np
    d = np.array([t["difference"] for t in tests])
    v = np.maximum(np.array([t["se"] for t in tests]), 1e-12) ** 2
    w = 1 / v
    q, _ = _heterogeneity(tests)
    tau2 = max(0.0, (q - (len(d) - 1)) / (w.sum() - (w ** 2).sum() / w.sum()))
    w_star = 1 / (v + tau2)
    mean = float((w_star * d).sum() / w_star.sum())
    se = float(np.sqrt(1 / w_star.sum()))
    return f"{mean:+.2f} [{mean - 1.96 * se:+.2f}, {mean + 1.96 * se:+.2f}] (τ² = {tau2:.1f})"


def _short_interval(test) -> str:
    return f"{test['difference']:+.2f} [{test['low']:+.2f}, {test['high']:+.2f}]"


def _holds_revised(results):
    """HOLDS_REVISED_RULE on a replication record: each member's translations at its
    tuned length penalty (task.length_penalty_search, the TUNED splits)."""
    import numpy as np

    from experiments.lab import findings as f
    from attention_research.reports import bleu_tests
    from attention_research.tasks.translation.task import TUNED
    encdec, search, control, transformer_name = (sweeps.member_name(s) for s in SETTINGS)
    names = {search: "RNNsearch", transformer_name: "the Transformer",
             control: "the control (no attention, bidirectional)", encdec: "RNNencdec"}
    systems, done, words, splits = _read(results, list(names), TUNED)
    searches = {n: _searches(results, n) for n in names}
    other = [names[n] for n, found in searches.items()
             if any(grid is not None and grid != _required_search() for grid, _ in found)]
    if other:
        return f.pending(HOLDS_KEY, HOLDS_TITLE, HOLDS_PAPER, (
            f"members searched another length penalty grid or criterion than the rule's: "
            f"{', '.join(other)}"))
    if min(done.values()) < len(SEEDS):
        return f.pending(HOLDS_KEY, HOLDS_TITLE, HOLDS_PAPER, (
            "Multi30k test sets translated at each member's tuned length penalty, "
            + ", ".join(f"{names[n]}: {count} of {len(SEEDS)}" for n, count in done.items())))
    read = np.isin(splits, [TEST_SPLITS.index(name) for name in HOLDS_TEST_SPLITS])
    short = np.flatnonzero(read & (words <= SHORT))
    long = np.flatnonzero(read & (words >= LONG))
    bleu = lambda n, rows: _bleu(systems, n, rows)  # noqa: E731
    no_brevity = {n: [_without_brevity_penalty(s) for s in statistics]
                  for n, statistics in systems.items()}
    tests = _retention_tests(systems, short, long, search, transformer_name, control)
    tests["L_no_brevity"] = _retention_tests(no_brevity, short, long, search,
                                             transformer_name, control)["L"]
    ratios = {n: (_length_ratio(systems[n], short), _length_ratio(systems[n], long))
              for n in names}
    gated = [search, transformer_name, control]  # every arm L reads, each seed apart
    verdict, reason = _holds_revised_verdict(
        tests, (bleu(search, long), bleu(transformer_name, long)),
        [r for n in gated for rows in (short, long) for r in _seed_ratios(systems[n], rows)],
        [_run_away(s[np.flatnonzero(read)]) for n in gated for s in systems[n]])
    table = "; ".join(
        f"{label} {bleu(n, short):.2f} on ≤ {SHORT} words, {bleu(n, long):.2f} on ≥ {LONG} "
        f"(falls {bleu(n, long) - bleu(n, short):+.2f}; output {ratios[n][0]:.3f} and "
        f"{ratios[n][1]:.3f} of the references' length; alpha "
        f"{', '.join('?' if a is None else f'{a:g}' for _, a in searches[n])})"
        for n, label in names.items())
    read_names = " + ".join(SPLIT_LABELS[split] for split in HOLDS_TEST_SPLITS)
    ours = (f"Multi30k Flickr {read_names} ({len(short)} "
            f"sentences of ≤ {SHORT} source words, {len(long)} of ≥ {LONG}), de→en, cased "
            f"sacreBLEU at each member's tuned length penalty, {len(SEEDS)} seeds: {table}. A (the "
            f"Transformer's fall − the control's) {_interval(tests['A'])}; L (RNNsearch's "
            f"retention of {RETENTION:g} of the Transformer's lead over the control) "
            f"{_interval(tests['L'])}; L without the brevity penalty "
            f"{_interval(tests['L_no_brevity'])}")
    power = ""
    if reason:  # which seed of which arm a gate stopped
        stopped = _gated_seeds(systems, searches, names, gated, short, long, read)
        ours += f". Inconclusive because {reason}" + (
            f" ({'; '.join(stopped)}; the gate reads each seed, the lengths above are seed "
            f"means)" if stopped else "")
        # What would decide it, where no number of seeds can (issue 73, item 4).
        ours += (". What would decide it: a decoding whose every seed's outputs stay "
                 f"within the gate ({MIN_LONG_RATIO:g}-{MAX_LONG_RATIO:g} of the references' "
                 f"length, at most {MAX_RUN_AWAY:.0%} past twice their reference) on both "
                 "bins, e.g. a length penalty tuned per arm on long sources with a cap on "
                 "the output length, or a corpus with long held-out sentences (Bahdanau's "
                 "WMT'14 En→Fr, to 60 words), where the bins hold hundreds of sentences")
        power = "stopped by its length gate: no seeds pass it (the row says what would)"
    elif verdict == "inconclusive":
        decision = _l_decision(tests["L"], len(SEEDS))
        power = rule.power_words([decision], rule.member_seconds(Path(results)),
                                 arms=len(gated))
    # Beside, read by no rule (fewer resamples: they decide nothing).
    beside = [", ".join(f"{key} {_short_interval(t)}" for key, t in _retention_tests(
        systems, short, long, search, transformer_name, encdec, BESIDE).items())
        + " with RNNencdec as the placebo"]
    d = bleu_tests.length_gap_test(systems, None, short, long, search, transformer_name,
                                n_samples=BESIDE)
    beside.append(f"D (RNNsearch's fall − the Transformer's: L at θ = 1, the 'no "
                  f"deterioration' reading) {_short_interval(d)}")
    falls = {n: bleu(n, long) - bleu(n, short) for n in names}
    lead = falls[transformer_name] - falls[control]
    if lead > 0:
        beside.append(f"the share of the Transformer's lead over the control that RNNsearch "
                      f"keeps, (S − P)/(T − P) = {(falls[search] - falls[control]) / lead:.2f} "
                      f"(a point estimate)")
    untuned = _read(results, list(names))[0]
    if all(n in untuned for n in names):
        beside.append(", ".join(f"{key} {_short_interval(t)}" for key, t in _retention_tests(
            untuned, short, long, search, transformer_name, control, BESIDE).items())
            + " at alpha 0.6 (the registered decoding)")
    plain = _retention_tests(no_brevity, short, long, search, transformer_name, control,
                             BESIDE)["A"]
    beside.append(f"A without the brevity penalty (precision only, blind to omissions) "
                  f"{_short_interval(plain)}")
    beside.append("each arm's brevity penalty on short and long sources (seed means) " + "; ".join(
        f"{label} {_brevity_penalty(systems[n], short):.3f} and "
        f"{_brevity_penalty(systems[n], long):.3f}" for n, label in names.items()))
    beside.append(_ratio_scale(systems, {search: "RNNsearch",
                                         transformer_name: "the Transformer"}, short, long))
    if transformer_name in untuned:  # how the Transformer's decoding leans L
        beside.append(
            f"read with care: a Transformer whose long outputs run away or fall short (at "
            f"alpha 0.6 they were {_length_ratio(untuned[transformer_name], long):.3f} of the "
            f"references' length) falls further on long sources for its decoding, which "
            f"raises L (and lowers A); the long bin starts at {LONG} source words "
            f"({int(np.sum(read & (words >= LONGEST)))} of ≥ {LONGEST}; Figure 2 runs to "
            f"60), and seeds {min(f.REPLICATION_SEEDS)}-{max(f.REPLICATION_SEEDS)} are "
            f"scored on the first run's sentences")
    ours += (". Beside, read by no rule: " + "; ".join(beside) + ". The plot is the first "
             "seeds' test_2016 BLEU by length at alpha 0.6 (the decoding the second audit "
             "voided for this row), not this statistic")
    return f.Finding(HOLDS_KEY, HOLDS_TITLE, HOLDS_PAPER, ours, verdict, HOLDS_REVISED_RULE,
                     "results/translation_length/plots/bleu_by_length.png", power=power)


def _l_decision(test: dict, seeds: int):
    """L's interval under the one rule's words (above 0 in the claim's direction), its
    sentences' part of the error held fixed, for the power cell."""
    from attention_research.reports import stats
    return rule.decide_interval(
        stats.Interval(seeds, test["difference"], test["low"], test["high"]), test["se"],
        test["df"], seeds, rule.Claim(0.0, rule.ABOVE),
        fixed_se=shared_sentence_se(test))


def _retention_tests(systems, short, long, search, transformer_name, placebo,
                     n_samples=None):
    """HOLDS_REVISED_RULE's two tests of the falls (long − short BLEU): A, the
    Transformer's against the placebo's (assay sensitivity), and L, RNNsearch's
    retention of RETENTION of the Transformer's lead over the placebo."""
    from attention_research.reports import bleu_tests
    bins = [(short, -1.0), (long, 1.0)]
    n_samples = n_samples or RESAMPLES
    return {key: bleu_tests.contrast_seed_test(systems, None, contrast, bins, n_samples)
            for key, contrast in (
                ("A", {transformer_name: 1.0, placebo: -1.0}),
                ("L", {search: 1.0, transformer_name: -RETENTION, placebo: RETENTION - 1.0}))}


def _holds_revised_verdict(tests, long_bleu, ratios, run_away) -> tuple[str, str]:
    """HOLDS_REVISED_RULE's verdict, and why it is inconclusive where a gate stops it,
    from the A and L tests, RNNsearch's and the Transformer's BLEU on the long bin, each
    seed's output length over the references' on short and long sources (``ratios``)
    and share of outputs past twice their reference (``run_away``), of every arm L
    reads (RNNsearch, the Transformer, the control)."""
    from attention_research.reports import stats
    if max(long_bleu) < stats.BLEU.floor:
        return "inconclusive", f"both score under the BLEU floor ({stats.BLEU.floor:g}) on long sources"
    if min(ratios) < MIN_LONG_RATIO:
        return "inconclusive", (f"brevity was not removed: a seed's outputs on short or "
                                f"long sources under {MIN_LONG_RATIO:g} of the references' "
                                f"length")
    if max(ratios) > MAX_LONG_RATIO or max(run_away) > MAX_RUN_AWAY:
        return "inconclusive", (f"outputs ran away: a seed's outputs on short or long "
                                f"sources over {MAX_LONG_RATIO:g} of the references' "
                                f"length, or over {MAX_RUN_AWAY:.0%} of them past twice "
                                f"their reference")
    if not tests["A"]["low"] > 0:
        return "inconclusive", ("the Transformer does not fall less than the model without "
                                "attention: the yardstick does not tell attention from none")
    if tests["L"]["low"] > 0 and tests["L_no_brevity"]["low"] > 0:
        return "reproduced", ""
    return ("not reproduced", "") if tests["L"]["high"] < 0 else ("inconclusive", "")


def _required_search():
    return (list(LENGTH_PENALTIES), SELECTION_LONG_RATIO, LONG, "smallest")


def _searches(results, setting) -> list:
    """Each finished seed's length penalty search, (its grid, minimum ratio and long
    words; None without a search) and its chosen alpha (None), from summary.json."""
    import json

    from experiments.lab import findings as f
    found = []
    for folder in f.finished_members_of(results, setting, SEEDS):
        search = json.loads((folder / "summary.json").read_text()).get(
            "decoding", {}).get("length_penalty_search")
        if not search:
            found.append((None, None))
            continue
        grid = ([float(a) for a in search.get("validation", {})], search.get("min_ratio"),
                search.get("long_words"), search.get("select"))
        found.append((grid, search.get("chosen")))
    return found


def _without_brevity_penalty(statistics):
    """Sentence statistics whose reference length is the hypothesis's: BLEU of them has
    no brevity penalty (its n-gram precisions only)."""
    statistics = statistics.copy()
    statistics[:, 9] = statistics[:, 8]
    return statistics


def _brevity_penalty(seeds, rows) -> float:
    """The seed mean of BLEU's brevity penalty on ``rows``: 1 when the output is at
    least as long as the references, exp(1 − r/c) when shorter."""
    import math
    penalties = []
    for s in seeds:
        output, reference = s[rows, 8].sum(), s[rows, 9].sum()
        penalties.append(1.0 if output >= reference else
                         math.exp(1 - reference / output) if output else 0.0)
    return sum(penalties) / len(penalties)


def _gated_seeds(systems, searches, names, gated, short, long, read) -> list[str]:
    """Each seed of the ``gated`` arms that a length gate of HOLDS_REVISED_RULE stops:
    its alpha, its output length over the references' on short and long sources and
    how many of the ``read`` rows' outputs ran past twice their reference. Members come
    in SEEDS' order (findings.finished_members_of, as _searches reads them)."""
    import numpy as np
    rows = np.flatnonzero(read)
    stopped = []
    for name in gated:
        for seed, statistics, (_, alpha), on_short, on_long in zip(
                SEEDS, systems[name], searches[name], _seed_ratios(systems[name], short),
                _seed_ratios(systems[name], long)):
            run_away = _run_away(statistics[rows])  # the share the verdict's gate reads
            if (min(on_short, on_long) < MIN_LONG_RATIO or max(on_short, on_long)
                    > MAX_LONG_RATIO or run_away > MAX_RUN_AWAY):
                at = "?" if alpha is None else f"{alpha:g}"
                stopped.append(f"{names[name]} seed {seed} (alpha {at}): {on_short:.3f} and "
                               f"{on_long:.3f} of the references' length on short and long "
                               f"sources, {round(run_away * len(rows))} of {len(rows)} "
                               f"outputs past twice their reference")
    return stopped


def _seed_ratios(seeds, rows) -> list:
    """Each seed's output length over the references' on ``rows``."""
    return [float(s[rows, 8].sum() / s[rows, 9].sum()) for s in seeds]


def _run_away(statistics) -> float:
    """The share of a seed's outputs longer than twice their reference."""
    import numpy as np
    return float(np.mean(statistics[:, 8] > 2 * statistics[:, 9]))


def _length_ratio(seeds, rows) -> float:
    """The seed mean of the output's length over the references' on ``rows``."""
    import numpy as np
    return float(np.mean(_seed_ratios(seeds, rows)))
