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

import functools
from typing import Sequence

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

from attention_research.reports import stats


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


def sentence_statistics(hypotheses: Sequence[str], references: Sequence[str],
                        lowercase: bool = False) -> np.ndarray:
    """[N, 10] BLEU sufficient statistics per sentence: matched and total n-grams for
    n = 1…4, hypothesis and reference length. Sums over any subset give that subset's
    corpus BLEU (``bleu_of_totals``) without re-tokenising. Memoised on the texts: a
    findings page tests the same translations in several comparisons, and sacrebleu
    takes about 0.4 ms a sentence (a returned array is shared: do not write into it)."""
    return _sentence_statistics(tuple(hypotheses), tuple(references), lowercase)


@functools.lru_cache(maxsize=64)
def _sentence_statistics(hypotheses: tuple, references: tuple, lowercase: bool) -> np.ndarray:
    rows = []
    for hypothesis, reference in zip(hypotheses, references):
        if lowercase:
            hypothesis, reference = hypothesis.lower(), reference.lower()
        score = sacrebleu.sentence_bleu(hypothesis, [reference])
        rows.append([*score.counts, *score.totals, score.sys_len, score.ref_len])
    statistics = np.asarray(rows, np.int64).reshape(-1, 10)
    statistics.flags.writeable = False
    return statistics


# A record of a corpus whose texts may not be committed (datasets.NOT_REDISTRIBUTED)
# keeps, per split, translations/<split>.sentences.tsv: these columns for each sentence.
SENTENCE_COLUMNS = ("source_words", *(f"bleu_{i}" for i in range(10)),
                    *(f"bleu_lc_{i}" for i in range(10)))


def sentence_table(hypotheses, references, sources) -> str:
    """The TSV of ``SENTENCE_COLUMNS``: what every test here needs of a split, without
    its texts (cased and lowercased BLEU statistics, the source's word count)."""
    cased = sentence_statistics(hypotheses, references)
    lowered = sentence_statistics(hypotheses, references, lowercase=True)
    lines = ["\t".join(SENTENCE_COLUMNS)]
    for source, a, b in zip(sources, cased, lowered):
        lines.append("\t".join(map(str, [len(source.split()), *a, *b])))
    return "\n".join(lines) + "\n"


def read_sentence_table(path) -> tuple[np.ndarray, np.ndarray]:
    """(source word counts [N], cased BLEU statistics [N, 10]) from ``sentence_table``."""
    rows = np.loadtxt(path, dtype=np.int64, delimiter="\t", skiprows=1, ndmin=2)
    return rows[:, 0], rows[:, 1:11]


def sentence_count(systems, references) -> int:
    """How many test sentences: the references', or a given statistics array's rows."""
    if references is not None:
        return len(references)
    return len(next(iter(systems.values()))[0])


def _per_seed(hypotheses_or_statistics, references) -> list[np.ndarray]:
    """Each seed's [N, 10] statistics: given (a record of a corpus whose texts are not
    committed), or computed from its hypotheses and the references."""
    return [h if isinstance(h, np.ndarray) else sentence_statistics(h, references)
            for h in hypotheses_or_statistics]


# sacrebleu.utils.my_log's floor for log 0.
_LOG_ZERO = -9999999999.0


def bleu_of_totals(totals: np.ndarray) -> np.ndarray:
    """Corpus BLEU of each row of summed statistics ([..., 10] -> [...]), computed as
    ``sacrebleu``'s ``BLEU.compute_bleu`` does (4-grams, 'exp' smoothing: the k-th
    order with no match counts 1 / (2^k · total)), operation for operation, for whole
    arrays at once: a bootstrap scores thousands of resamples of every seed."""
    totals = np.asarray(totals, float)  # counts: exact in float64 below 2^53
    correct, total, sys_len, ref_len = (totals[..., :4], totals[..., 4:8], totals[..., 8],
                                        totals[..., 9])
    with np.errstate(divide="ignore", invalid="ignore"):
        brevity = np.where(sys_len < ref_len,
                           np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        # sacrebleu stops at the first order with no n-grams: it and every higher
        # order keep precision 0.
        counted = np.cumsum(total == 0, axis=-1) == 0
        smooth = 2.0 ** np.cumsum((correct == 0) & counted, axis=-1)
        precision = np.where(correct == 0, 100.0 / (smooth * total), 100.0 * correct / total)
        precision = np.where(counted, precision, 0.0)
        logs = np.where(precision == 0.0, _LOG_ZERO, np.log(precision))
    log_sum = ((logs[..., 0] + logs[..., 1]) + logs[..., 2]) + logs[..., 3]
    score = brevity * np.exp(log_sum / 4)
    return np.where((correct == 0).all(axis=-1), 0.0, score)


def bleu_from_statistics(total: np.ndarray) -> float:
    """Corpus BLEU of one row of summed statistics, as ``sacrebleu.corpus_bleu``
    computes it."""
    return float(bleu_of_totals(total))


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
    count = sentence_count(systems, references)
    rng = np.random.default_rng(seed)
    # How often each sentence is drawn in each resample: sums become one matmul, in
    # float64 (BLAS; integer matmul is not) and exact, every sum being below 2^53.
    draws = np.stack([np.bincount(rng.integers(0, count, count), minlength=count)
                      for _ in range(n_samples)]).astype(float)
    observed, resampled, seeds = {}, {}, {}
    for setting in sorted({name for pair in pairs for name in pair}):
        per_seed = _per_seed(systems[setting], references)
        observed[setting] = np.mean([bleu_from_statistics(s.sum(0)) for s in per_seed])
        by_seed = np.array([bleu_of_totals(draws @ s) for s in per_seed])  # [seeds, B]
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


def paired_seed_test(systems: dict[str, list[Sequence[str]]], references: Sequence[str],
                     a: str, b: str, bins: Sequence[tuple[np.ndarray, float]],
                     n_samples: int = 1000, seed: int = 12345) -> dict:
    """A test between two settings of several seeds each that keeps both sources of
    chance apart and keeps the pairing on sentences (an audit of issue 36's
    translation_length rule found ``compare_settings`` pools the sentence variance of
    the two settings as if they were scored on different sentences).

    The statistic: each seed's Σ weight × corpus BLEU on a bin's rows (``bins``: (row
    indices, weight) pairs; one bin of every row with weight 1 is the whole split's
    BLEU; (short, −1), (long, +1) is how much BLEU falls less on long sentences), the
    difference D of the two settings' seed means. Its variance has two parts:
    - the seeds': s_a²/n_a + s_b²/n_b over the per-seed values on this test set;
    - the sentences': the variance of D over bootstrap draws of the sentences within
      each bin, one draw for every seed of both settings (the paired bootstrap of
      Koehn 2004, which holds the trained models fixed).
    Welch's t on their sum, with Satterthwaite's degrees of freedom from the seeds'
    part (the sentences' part has, in effect, infinitely many). Slightly conservative:
    the seeds' spread on one fixed test set already holds their interaction with its
    sentences, which the bootstrap part counts again. With under 2 seeds on a
    side, or no variance at all, there is no test: the interval is unbounded, p = 1.
    Returns {'difference', 'low', 'high', 'p', 'se', 'df', 'seed_se', 'sentence_se',
    'a_value', 'b_value'}.
    """
    result = contrast_seed_test(systems, references, {a: 1.0, b: -1.0}, bins, n_samples,
                                seed)
    values = result.pop("values")
    return {**result, "a_value": values[a], "b_value": values[b]}


def contrast_seed_test(systems: dict[str, list[Sequence[str]]], references: Sequence[str],
                       contrast: dict[str, float], bins: Sequence[tuple[np.ndarray, float]],
                       n_samples: int = 1000, seed: int = 12345) -> dict:
    """``paired_seed_test`` for any linear contrast of settings: L = Σ_k c_k × (setting
    k's seed mean of Σ weight × corpus BLEU on a bin's rows), ``contrast`` {setting:
    c_k}. E.g. a three-arm retention test (Pigeot et al. 2003, Stat. Med. 22:883),
    {test: 1, reference: −θ, placebo: θ − 1}: L > 0 if the test setting keeps at least
    θ of the reference's lead over the placebo. The seeds' variance is Σ c_k² s_k²/n_k;
    the sentences' is that of L over paired bootstrap draws, one draw for every seed
    of every setting; Welch's t on their sum, with Satterthwaite's degrees of freedom
    from the seeds' part. Returns {'difference' (L), 'low', 'high', 'p', 'se', 'df',
    'seed_se', 'sentence_se', 'values' ({setting: its seed mean})}."""
    from scipy import stats as scipy_stats
    rng = np.random.default_rng(seed)
    bins = [(np.asarray(rows), weight) for rows, weight in bins]

    def drawn(n: int) -> np.ndarray:
        """[B, n] how often each of a bin's n rows is drawn in each of B resamples of n
        draws with replacement: one bincount over all B (a loop of B bincounts over the
        whole test set took 8 s for translation_length's 3,071 sentences)."""
        picks = rng.integers(0, n, size=(n_samples, n)) + n * np.arange(n_samples)[:, None]
        return np.bincount(picks.ravel(), minlength=n_samples * n).reshape(
            n_samples, n).astype(float)
    draws = [drawn(len(rows)) for rows, _ in bins]
    values, resampled = {}, {}
    for setting in contrast:
        per_seed = _per_seed(systems[setting], references)
        values[setting] = np.array([sum(weight * bleu_from_statistics(s[rows].sum(0))
                                        for rows, weight in bins) for s in per_seed])
        resampled[setting] = np.mean([sum(weight * bleu_of_totals(counts @ s[rows])
                                          for (rows, weight), counts in zip(bins, draws))
                                      for s in per_seed], axis=0)  # [B] the seed mean
    counts = {setting: len(values[setting]) for setting in contrast}
    difference = float(sum(c * values[k].mean() for k, c in contrast.items()))
    result = {"difference": difference,
              "values": {k: float(values[k].mean()) for k in contrast}}
    if min(counts.values()) < 2:
        return {**result, "low": -np.inf, "high": np.inf, "p": 1.0, "se": float("nan"),
                "df": None, "seed_se": float("nan"), "sentence_se": float("nan")}
    parts = {k: c ** 2 * values[k].var(ddof=1) / counts[k] for k, c in contrast.items()}
    sentences = float(sum(c * resampled[k] for k, c in contrast.items()).var(ddof=1))
    se = float(np.sqrt(sum(parts.values()) + sentences))
    result.update(se=se, seed_se=float(np.sqrt(sum(parts.values()))),
                  sentence_se=float(np.sqrt(sentences)))
    if se == 0:
        return {**result, "low": -np.inf, "high": np.inf, "p": 1.0, "df": None}
    seeds_part = sum(part ** 2 / (counts[k] - 1) for k, part in parts.items())
    df = float(se ** 4 / seeds_part) if seeds_part > 0 else np.inf
    half = float(scipy_stats.t.ppf(0.975, df)) * se
    p = float(2 * scipy_stats.t.sf(abs(difference) / se, df))
    return {**result, "low": difference - half, "high": difference + half, "p": p,
            "df": df}


def length_gap_test(systems: dict[str, list[Sequence[str]]], references: Sequence[str],
                    short: np.ndarray, long: np.ndarray, a: str, b: str,
                    n_samples: int = 1000, seed: int = 12345) -> dict:
    """Does ``a``'s lead over ``b`` grow from short to long sources? Bahdanau et al.'s
    Figure 2 as one number: G = (BLEU_a − BLEU_b on the ``long`` rows) − (the same on
    the ``short`` rows), each BLEU a seed mean of corpus BLEU on those rows, by
    ``paired_seed_test``. Adds 'a_gap' and 'b_gap': each setting's own long − short."""
    result = paired_seed_test(systems, references, a, b, [(short, -1.0), (long, 1.0)],
                              n_samples, seed)
    return {**result, "a_gap": result["a_value"], "b_gap": result["b_value"]}


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
