"""Whether two translation settings differ in BLEU: significance tests over test
sentences and over seeds.

``paired_bootstrap`` is Koehn's (2004) paired bootstrap of single systems through
sacrebleu. The rest compare settings of several seeds each from the sentences' BLEU
sufficient statistics (``tasks/translation/metrics.py``: ``sentence_statistics``,
``bleu_of_totals``): ``compare_settings`` bootstraps the sentences (and optionally the
seeds), ``paired_seed_test`` is Welch's t on the seed means with the sentences'
variance added, ``contrast_seed_test`` a contrast of several settings, and
``length_gap_test`` a difference of such differences between length bins.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

from attention_research.reports import stats
from attention_research.tasks.translation.metrics import (bleu_from_statistics, bleu_of_totals,
                                                      sentence_statistics)


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
    'sentence_fixed_se' (the part of the sentences' error more seeds would not shrink:
    what different seeds share, ``_shared_sentence_se``), 'a_value', 'b_value'}.
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
    values, resampled, by_seed = {}, {}, {}
    for setting in contrast:
        per_seed = _per_seed(systems[setting], references)
        values[setting] = np.array([sum(weight * bleu_from_statistics(s[rows].sum(0))
                                        for rows, weight in bins) for s in per_seed])
        by_seed[setting] = np.array([sum(weight * bleu_of_totals(counts @ s[rows])
                                         for (rows, weight), counts in zip(bins, draws))
                                     for s in per_seed])  # [seeds, B]
        resampled[setting] = by_seed[setting].mean(axis=0)  # [B] the seed mean
    counts = {setting: len(values[setting]) for setting in contrast}
    difference = float(sum(c * values[k].mean() for k, c in contrast.items()))
    result = {"difference": difference,
              "values": {k: float(values[k].mean()) for k in contrast}}
    if min(counts.values()) < 2:
        return {**result, "low": -np.inf, "high": np.inf, "p": 1.0, "se": float("nan"),
                "df": None, "seed_se": float("nan"), "sentence_se": float("nan"),
                "sentence_fixed_se": float("nan")}
    parts = {k: c ** 2 * values[k].var(ddof=1) / counts[k] for k, c in contrast.items()}
    sentences = float(sum(c * resampled[k] for k, c in contrast.items()).var(ddof=1))
    se = float(np.sqrt(sum(parts.values()) + sentences))
    result.update(se=se, seed_se=float(np.sqrt(sum(parts.values()))),
                  sentence_se=float(np.sqrt(sentences)),
                  sentence_fixed_se=_shared_sentence_se(by_seed, contrast))
    if se == 0:
        return {**result, "low": -np.inf, "high": np.inf, "p": 1.0, "df": None}
    seeds_part = sum(part ** 2 / (counts[k] - 1) for k, part in parts.items())
    df = float(se ** 4 / seeds_part) if seeds_part > 0 else np.inf
    half = float(scipy_stats.t.ppf(0.975, df)) * se
    p = float(2 * scipy_stats.t.sf(abs(difference) / se, df))
    return {**result, "low": difference - half, "high": difference + half, "p": p,
            "df": df}


def _shared_sentence_se(by_seed: dict[str, np.ndarray], contrast: dict[str, float]) -> float:
    """The part of the sentences' error that more seeds would not shrink: the bootstrap
    covariance of L between different seeds (each [seeds, B] array of ``by_seed`` holds
    one setting's per-seed values over the resamples), Σ c_k c_l × the mean covariance
    of setting k's and l's values over pairs of different seeds. Most of the paired
    bootstrap's variance is each seed's own interaction with the sentences, which
    averages away over seeds; what different seeds share (all scored on one test set)
    stays. Clipped at 0 (a noisy estimate of a covariance near 0)."""
    centred = {k: v - v.mean(axis=1, keepdims=True) for k, v in by_seed.items()}
    total = 0.0
    for k, c_k in contrast.items():
        for l, c_l in contrast.items():
            x, y = centred[k], centred[l]
            covariance = x @ y.T / (x.shape[1] - 1)  # [seeds_k, seeds_l]
            if k == l:  # pairs of different seeds only
                n = covariance.shape[0]
                if n < 2:
                    return float("nan")
                mean = (covariance.sum() - np.trace(covariance)) / (n * (n - 1))
            else:
                mean = covariance.mean()
            total += c_k * c_l * mean
    return float(np.sqrt(max(total, 0.0)))


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
