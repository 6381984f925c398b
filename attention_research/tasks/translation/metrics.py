"""Translation metrics by sacrebleu on detokenised text: BLEU (Papineni et al. 2002),
chrF (Popović 2015), and BLEU per source-length bin — Bahdanau et al.'s Figure 2
for translation: how quality falls as sentences grow.

Two BLEUs. ``bleu`` is sacreBLEU's default, the comparable one (Post 2018): cased, on
detokenised text, tokenised by sacreBLEU's 13a. ``bleu_lc`` is the same with
``lowercase=True``: how the Multi30k tutorials and toolkits score (lowercased,
tokenised BLEU), so their published numbers can stand beside ours. It is not identical
to theirs: they lowercase and tokenise with spaCy (or Moses) before training and score
the token lists with torchtext's or multi-bleu's BLEU; 13a and spaCy split a few things
differently (hyphens, apostrophes: spaCy makes "man's" two tokens, 13a one). Lowercased
BLEU reads higher than cased BLEU, usually by 1–3 points on Multi30k.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

from attention_research import stats


def length_bins(last_lengths: Sequence[int]) -> list[tuple[int, int | None]]:
    """(first, last) source word counts of each bin, from each bin's last count;
    one more bin, (last + 1, None), takes every longer sentence.
    (4, 8) -> [(1, 4), (5, 8), (9, None)]."""
    firsts = [1] + [last + 1 for last in last_lengths]
    return list(zip(firsts, list(last_lengths) + [None]))


def bin_name(first: int, last: int | None) -> str:
    return f"{first}+" if last is None else f"{first}-{last}"


LOWERCASED = BLEU(lowercase=True, tokenize="13a")


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str]) -> dict:
    """Cased BLEU, lowercased BLEU (``bleu_lc``) and chrF of a whole split."""
    hypotheses, references = list(hypotheses), [list(references)]
    return {"bleu": sacrebleu.corpus_bleu(hypotheses, references).score,
            "bleu_lc": LOWERCASED.corpus_score(hypotheses, references).score,
            "chrf": sacrebleu.corpus_chrf(hypotheses, references).score}


def bin_rows(sources: Sequence[str], last_lengths: Sequence[int]) -> dict:
    """{bin name: indices of the sources in it} by word count; empty bins left out."""
    words = np.array([len(s.split()) for s in sources])
    result = {}
    for first, last in length_bins(last_lengths):
        upper = np.inf if last is None else last
        rows = np.flatnonzero((words >= first) & (words <= upper))
        if len(rows):
            result[bin_name(first, last)] = rows
    return result


def bleu_by_length(hypotheses: Sequence[str], references: Sequence[str],
                   sources: Sequence[str], last_lengths: Sequence[int]) -> dict:
    """{bin: {'bleu': …, 'bleu_lc': …, 'count': n}} by the source sentence's word count,
    in the bins of ``length_bins(last_lengths)``; empty bins are left out."""
    result = {}
    for name, rows in bin_rows(sources, last_lengths).items():
        scores = corpus_scores([hypotheses[i] for i in rows], [references[i] for i in rows])
        result[name] = {"bleu": scores["bleu"], "bleu_lc": scores["bleu_lc"],
                        "count": int(len(rows))}
    return result


def paired_bootstrap(systems: dict[str, Sequence[str]], references: Sequence[str],
                     n_samples: int = 1000) -> dict:
    """Paired bootstrap resampling (Koehn 2004) through sacrebleu: the first system is
    the baseline; every system is scored on the same resampled test sets.

    Returns {name: {'bleu', 'mean', 'ci', 'p_value'}}: corpus BLEU, the bootstrap mean,
    the half-width of its 95% interval, and (not for the baseline) the p-value of the
    null hypothesis that the system is no better than the baseline. sacrebleu seeds
    the resampling (SACREBLEU_SEED, default 12345), so the figures are reproducible.
    """
    test = PairedTest([(name, list(h)) for name, h in systems.items()], {"BLEU": BLEU()},
                      [list(references)], test_type="bs", n_samples=n_samples)
    _, results = test()
    return {name: {"bleu": r.score, "mean": r.mean, "ci": r.ci, "p_value": r.p_value}
            for name, r in zip(results["System"], results["BLEU"])}


def sentence_statistics(hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """[N, 10] BLEU sufficient statistics per sentence: matched and total n-grams for
    n = 1…4, hypothesis and reference length. Sums over any subset give that subset's
    corpus BLEU (``bleu_from_statistics``) without re-tokenising."""
    rows = []
    for hypothesis, reference in zip(hypotheses, references):
        score = sacrebleu.sentence_bleu(hypothesis, [reference])
        rows.append([*score.counts, *score.totals, score.sys_len, score.ref_len])
    return np.asarray(rows, np.int64).reshape(-1, 10)


def bleu_from_statistics(total: np.ndarray) -> float:
    """Corpus BLEU of summed statistics, as ``sacrebleu.corpus_bleu`` computes it."""
    total = [int(x) for x in total]
    return BLEU.compute_bleu(total[:4], total[4:8], total[8], total[9],
                             smooth_method="exp").score


def compare_settings(systems: dict[str, list[Sequence[str]]], references: Sequence[str],
                     pairs: Sequence[tuple[str, str]], n_samples: int = 1000,
                     seed: int = 12345, resample_seeds: bool = False) -> dict:
    """Bootstrap tests between settings of several seeds each.

    ``systems``: {setting: [hypotheses of each seed]}. A setting's score is the mean
    over its seeds of corpus BLEU. Each replicate resamples the test sentences (the same
    draw for every system: the comparison stays paired on sentences) and scores every
    setting on them; for each pair (a, b) it gives the difference a − b. Returns
    {(a, b): {'difference': observed, 'low', 'high': its 95% percentile interval, 'p':
    two-sided p-value}}, p = (1 + #{|d* − mean d*| ≥ |d|}) / (1 + B), the centred test
    sacrebleu's paired bootstrap uses.

    ``resample_seeds=False``: the paired bootstrap of Koehn (2004) on the seed means. It
    holds each trained model fixed, so it asks whether *these* models differ.
    ``resample_seeds=True``: the hierarchical (two-stage) bootstrap, which first draws
    each setting's seeds with replacement, then the sentences: it asks whether the
    *settings* differ, with the spread between training runs in the interval (issue 35:
    the test for a claim about an attention function). Resampling n seeds shrinks their
    spread by (n − 1)/n, so each replicate's seed scores are first spread about their mean
    by √(n/(n − 1)) (the small-sample correction of the bootstrap of a mean). With n seeds
    a setting has only C(2n − 1, n) distinct seed draws (10 at n = 3), and a percentile
    interval or centred test over so few draws uses, in effect, normal quantiles where
    the seeds' t quantiles are due: at 3 seeds against 3 it rejected 10 of 120 true nulls
    at a nominal 5% in tests/test_translation.py's check (an audit's simulation, issue
    35, found about 15%); this test rejects 3 of those 120. So with
    ``resample_seeds`` the bootstrap gives the standard error of the difference (seeds
    and sentences) and the test and interval are Welch's: t = d / se on the
    Welch–Satterthwaite degrees of freedom of the two settings' bootstrap variances and
    seed counts, p two-sided, the interval d ± t_{df, 0.975} se (a bootstrap-t with
    Welch's reference). It also returns 'se' and 'df'.
    """
    count = len(references)
    rng = np.random.default_rng(seed)
    # How often each sentence is drawn in each resample: sums become one matmul.
    draws = np.stack([np.bincount(rng.integers(0, count, count), minlength=count)
                      for _ in range(n_samples)])
    observed, resampled, seeds = {}, {}, {}
    for setting in sorted({name for pair in pairs for name in pair}):
        per_seed = [sentence_statistics(h, references) for h in systems[setting]]
        observed[setting] = np.mean([bleu_from_statistics(s.sum(0)) for s in per_seed])
        by_seed = np.array([[bleu_from_statistics(row) for row in draws @ s]
                            for s in per_seed])  # [seeds, B]
        if resample_seeds:
            n = seeds[setting] = len(per_seed)
            if n > 1:  # undo the bootstrap's (n − 1)/n shrinkage of the seeds' spread
                centre = by_seed.mean(0)
                by_seed = centre + (by_seed - centre) * np.sqrt(n / (n - 1))
            chosen = rng.integers(0, n, (n_samples, n))
            resampled[setting] = by_seed[chosen, np.arange(n_samples)[:, None]].mean(1)
        else:
            resampled[setting] = by_seed.mean(0)
    results = {}
    for a, b in pairs:
        difference = observed[a] - observed[b]
        samples = resampled[a] - resampled[b]
        if resample_seeds:
            results[(a, b)] = _welch_reference(difference, resampled[a].var(ddof=1),
                                               resampled[b].var(ddof=1), seeds[a], seeds[b])
            continue
        extreme = np.abs(samples - samples.mean()) >= abs(difference)
        results[(a, b)] = {"difference": float(difference),
                           "low": float(np.percentile(samples, 2.5)),
                           "high": float(np.percentile(samples, 97.5)),
                           "p": float((1 + extreme.sum()) / (1 + n_samples))}
    return results


def length_gap_test(systems: dict[str, list[Sequence[str]]], references: Sequence[str],
                    short: np.ndarray, long: np.ndarray, a: str, b: str,
                    n_samples: int = 1000, seed: int = 12345) -> dict:
    """Does ``a``'s lead over ``b`` grow from short to long sources? Bahdanau et al.'s
    Figure 2 as one number: G = (BLEU_a − BLEU_b on the ``long`` rows) − (the same on
    the ``short`` rows), each BLEU the mean over a setting's seeds of corpus BLEU on
    those rows (``systems`` as in ``compare_settings``; ``short``, ``long``: indices of
    test sentences, e.g. from ``bin_rows``).

    The hierarchical bootstrap of ``compare_settings(resample_seeds=True)``: each
    replicate draws every setting's seeds with replacement (one draw for both bins: a
    seed is one trained model) and the sentences within each bin (the same draw for
    every setting, so the test stays paired on sentences), the seeds' spread corrected
    by √(n/(n − 1)). The test and interval are Welch's with the bootstrap's variances of
    each setting's gap (long − short) and the seeds' degrees of freedom. Returns
    {'difference': G, 'low', 'high', 'p', 'se', 'df', 'a_gap', 'b_gap'} (each setting's
    own long − short BLEU, observed).
    """
    rng = np.random.default_rng(seed)
    count = len(references)

    def stratified(rows):  # [B, N] how often each sentence is drawn, within ``rows`` only
        draws = np.zeros((n_samples, count), np.int64)
        for replicate in range(n_samples):
            np.add.at(draws[replicate], rng.choice(rows, len(rows)), 1)
        return draws

    draws = {"short": stratified(np.asarray(short)), "long": stratified(np.asarray(long))}
    observed, gaps, seeds = {}, {}, {}
    for setting in (a, b):
        per_seed = [sentence_statistics(h, references) for h in systems[setting]]
        n = seeds[setting] = len(per_seed)
        scores = {}
        for name, rows in (("short", short), ("long", long)):
            observed[setting, name] = np.mean([bleu_from_statistics(s[rows].sum(0))
                                               for s in per_seed])
            by_seed = np.array([[bleu_from_statistics(row) for row in draws[name] @ s]
                                for s in per_seed])  # [seeds, B]
            if n > 1:  # undo the bootstrap's (n − 1)/n shrinkage of the seeds' spread
                centre = by_seed.mean(0)
                by_seed = centre + (by_seed - centre) * np.sqrt(n / (n - 1))
            scores[name] = by_seed
        chosen = rng.integers(0, n, (n_samples, n))  # one seed draw for both bins
        columns = np.arange(n_samples)[:, None]
        gaps[setting] = (scores["long"][chosen, columns].mean(1)
                         - scores["short"][chosen, columns].mean(1))
    own = {setting: float(observed[setting, "long"] - observed[setting, "short"])
           for setting in (a, b)}
    result = _welch_reference(own[a] - own[b], gaps[a].var(ddof=1), gaps[b].var(ddof=1),
                              seeds[a], seeds[b])
    return {**result, "a_gap": own[a], "b_gap": own[b]}


def _welch_reference(difference: float, var_a: float, var_b: float, n_a: int,
                     n_b: int) -> dict:
    """Welch's test of ``difference`` with the bootstrap's variances of the two settings'
    means (seeds and sentences): its degrees of freedom are the seeds' (Satterthwaite),
    so a test over 3 seeds is calibrated as a t test over 3 seeds is."""
    from scipy import stats as scipy_stats
    se = float(np.sqrt(var_a + var_b))
    if se == 0 or min(n_a, n_b) < 2:  # no spread, or one seed on a side: no test
        return {"difference": float(difference), "low": float(difference),
                "high": float(difference), "p": 1.0, "se": se, "df": None}
    test = stats.welch_from_variances(difference, var_a, var_b, n_a, n_b)
    half = float(scipy_stats.t.ppf(0.975, test.dof)) * se
    return {"difference": float(difference), "low": float(difference - half),
            "high": float(difference + half), "p": test.p, "se": se, "df": test.dof}
