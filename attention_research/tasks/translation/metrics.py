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
