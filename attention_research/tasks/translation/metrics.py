"""Translation metrics by sacrebleu on detokenised text: BLEU (Papineni et al. 2002),
chrF (Popović 2015), and BLEU per source-length bucket — Bahdanau et al.'s Figure 2
for translation: how quality falls as sentences grow."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import sacrebleu


def length_buckets(last_lengths: Sequence[int]) -> list[tuple[int, int | None]]:
    """(first, last) source word counts of each bucket, from each bucket's last count;
    one more bucket, (last + 1, None), takes every longer sentence.
    (4, 8) -> [(1, 4), (5, 8), (9, None)]."""
    firsts = [1] + [last + 1 for last in last_lengths]
    return list(zip(firsts, list(last_lengths) + [None]))


def bucket_name(first: int, last: int | None) -> str:
    return f"{first}+" if last is None else f"{first}-{last}"


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str]) -> dict:
    return {"bleu": sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score,
            "chrf": sacrebleu.corpus_chrf(list(hypotheses), [list(references)]).score}


def bleu_by_length(hypotheses: Sequence[str], references: Sequence[str],
                   sources: Sequence[str], last_lengths: Sequence[int]) -> dict:
    """{bucket: {'bleu': …, 'count': n}} by the source sentence's word count, in the
    buckets of ``length_buckets(last_lengths)``; empty buckets are left out."""
    words = np.array([len(s.split()) for s in sources])
    result = {}
    for first, last in length_buckets(last_lengths):
        upper = np.inf if last is None else last
        rows = np.flatnonzero((words >= first) & (words <= upper))
        if len(rows):
            score = sacrebleu.corpus_bleu([hypotheses[i] for i in rows],
                                          [[references[i] for i in rows]]).score
            result[bucket_name(first, last)] = {"bleu": score, "count": int(len(rows))}
    return result
