"""Translation metrics by sacrebleu on detokenised text: BLEU (Papineni et al. 2002),
chrF (Popović 2015), and BLEU per source-length bin — Bahdanau et al.'s Figure 2
for translation: how quality falls as sentences grow."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest


def length_bins(last_lengths: Sequence[int]) -> list[tuple[int, int | None]]:
    """(first, last) source word counts of each bin, from each bin's last count;
    one more bin, (last + 1, None), takes every longer sentence.
    (4, 8) -> [(1, 4), (5, 8), (9, None)]."""
    firsts = [1] + [last + 1 for last in last_lengths]
    return list(zip(firsts, list(last_lengths) + [None]))


def bin_name(first: int, last: int | None) -> str:
    return f"{first}+" if last is None else f"{first}-{last}"


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str]) -> dict:
    return {"bleu": sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score,
            "chrf": sacrebleu.corpus_chrf(list(hypotheses), [list(references)]).score}


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
    """{bin: {'bleu': …, 'count': n}} by the source sentence's word count, in the
    bins of ``length_bins(last_lengths)``; empty bins are left out."""
    result = {}
    for name, rows in bin_rows(sources, last_lengths).items():
        score = sacrebleu.corpus_bleu([hypotheses[i] for i in rows],
                                      [[references[i] for i in rows]]).score
        result[name] = {"bleu": score, "count": int(len(rows))}
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
