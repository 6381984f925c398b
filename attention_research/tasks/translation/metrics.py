"""Translation metrics by sacrebleu on detokenised text: BLEU (Papineni et al. 2002),
chrF (Popović 2015), and BLEU per source-length bucket — Bahdanau et al.'s Figure 2
for translation: how quality falls as sentences grow."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import sacrebleu

# Source length in words: Bahdanau et al. plot BLEU against sentence length.
LENGTH_BUCKETS = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 30), (31, 10**6))


def bucket_name(first: int, last: int) -> str:
    return f"{first}+" if last >= 10**6 else f"{first}-{last}"


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str]) -> dict:
    return {"bleu": sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score,
            "chrf": sacrebleu.corpus_chrf(list(hypotheses), [list(references)]).score}


def bleu_by_length(hypotheses: Sequence[str], references: Sequence[str],
                   sources: Sequence[str]) -> dict:
    """{bucket: {'bleu': …, 'count': n}} by the source sentence's word count."""
    words = np.array([len(s.split()) for s in sources])
    result = {}
    for first, last in LENGTH_BUCKETS:
        rows = np.flatnonzero((words >= first) & (words <= last))
        if len(rows):
            score = sacrebleu.corpus_bleu([hypotheses[i] for i in rows],
                                          [[references[i] for i in rows]]).score
            result[bucket_name(first, last)] = {"bleu": score, "count": int(len(rows))}
    return result
