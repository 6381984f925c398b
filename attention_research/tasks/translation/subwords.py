"""Subwords: one SentencePiece model (Kudo & Richardson 2018) shared by both languages,
trained on the training split and cached next to the data.

Its ids line up with the specials of every task (``data.py``): PAD 0, BOS 1, EOS 2 (and UNK 3),
so models, decoding and metrics treat every task alike. One joint vocabulary lets
source and target share ids (names, numbers, cognates) and keeps one file to cache.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Iterable

import numpy as np
import sentencepiece as spm

from attention_research.data import BOS, EOS, PAD
from attention_research.errors import ConfigError, RunError

UNK = 3

# SentencePiece's normalisation rule (its default, pinned here): NFKC plus whitespace
# clean-up. Every piece, and so every hypothesis, is of normalised text: "…" (U+2026)
# becomes "...", "½" becomes "1⁄2". A reference holding "…" could then never be matched
# (issue 35: 54 of ding_de_en's 1,033 test references hold one). Normalising the
# references instead would inflate BLEU: sacrebleu's 13a tokeniser splits "..." into
# three tokens, each a free match. So hypotheses are *restored*: each normalised form
# of a character the training targets use, and whose normalised form they never use,
# is written back as that character (``restoration``, ``restore``); BLEU and chrF then
# compare them with the raw references.
NORMALIZATION = "nmt_nfkc"


def _normalizer():
    return spm.SentencePieceNormalizer(
        rule_name=NORMALIZATION, add_dummy_prefix=False, escape_whitespaces=False,
        remove_extra_whitespaces=True)


def normalize(texts: Iterable[str]) -> list[str]:
    """``texts`` as the model can write them: SentencePiece's ``NORMALIZATION`` with the
    spaces of plain text (no "▁" escape, no dummy prefix, runs of spaces collapsed)."""
    normalizer = _normalizer()
    return [normalizer.normalize(text) for text in texts]


def restoration(targets: Iterable[str]) -> dict[str, str]:
    """{normalised form: character} for every character of the training ``targets``
    that normalisation changes and whose normalised form the targets never contain, so
    that writing it back is unambiguous ("..." -> "…" on ding_de_en)."""
    normalizer, texts = _normalizer(), list(targets)
    characters = {c for text in texts for c in set(text)}
    changed = {c: normalizer.normalize(c) for c in characters}
    changed = {c: n for c, n in changed.items() if n != c and n.strip()}
    return {n: c for c, n in sorted(changed.items())
            if not any(n in text for text in texts)}


def restore(texts: Iterable[str], mapping: dict[str, str]) -> list[str]:
    """Hypotheses with each normalised form written back (longest forms first)."""
    order = sorted(mapping, key=len, reverse=True)
    out = []
    for text in texts:
        for form in order:
            text = text.replace(form, mapping[form])
        out.append(text)
    return out


def model_path(cache_dir: Path, vocab_size: int, model_type: str) -> Path:
    return Path(cache_dir) / f"sentencepiece_{model_type}_{vocab_size}.model"


def train_or_load(sentences: Iterable[str], cache_dir: Path, vocab_size: int,
                  model_type: str = "unigram") -> spm.SentencePieceProcessor:
    """The cached model if there is one, else train it on ``sentences`` and cache it.

    The file is written to a temporary name and renamed, so an interrupted training
    never leaves a half-written model behind to be reused.
    """
    path = model_path(cache_dir, vocab_size, model_type)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent) as scratch:
            corpus = Path(scratch) / "corpus.txt"
            with open(corpus, "w", encoding="utf-8") as out:
                for sentence in sentences:
                    out.write(sentence.replace("\n", " ") + "\n")
            prefix = Path(scratch) / "model"
            try:
                spm.SentencePieceTrainer.train(
                    input=str(corpus), model_prefix=str(prefix), vocab_size=vocab_size,
                    model_type=model_type, normalization_rule_name=NORMALIZATION,
                    character_coverage=1.0, pad_id=PAD, bos_id=BOS,
                    eos_id=EOS, unk_id=UNK, input_sentence_size=2_000_000,
                    shuffle_input_sentence=True, minloglevel=2)
            except RuntimeError as error:  # e.g. a vocabulary larger than the corpus allows
                most = re.search(r"value <= (\d+)", str(error))
                raise ConfigError(
                    f"task.vocab_size={vocab_size}: SentencePiece could not train a "
                    f"{vocab_size}-piece {model_type} model on this training split"
                    + (f", which allows at most {most[1]} pieces: pass "
                       f"--config.task.vocab_size={most[1]} or less" if most else
                       f" ({str(error).strip().splitlines()[-1][:160]}): set a smaller "
                       "task.vocab_size")) from error
            Path(f"{prefix}.model").replace(path)
    try:
        return spm.SentencePieceProcessor(model_file=str(path))
    except (RuntimeError, OSError) as error:  # a truncated or overwritten cache
        raise RunError(f"the cached subword model {path} is damaged "
                       f"({str(error).strip().splitlines()[-1][:120]}): delete it and rerun "
                       "the same command, which trains it again from the training split "
                       "(nothing else is lost)") from None


class SubwordSampler:
    """Subword regularisation (Kudo 2018, "Subword Regularization", §3.2): in training,
    each sentence is segmented anew, drawn from its ``nbest`` most likely segmentations
    x_1 … x_l with probability P(x_i)^α / Σ_j P(x_j)^α, where log P(x) is the sum of
    the unigram model's piece scores. Evaluation keeps the single best segmentation.

    Draws come from the generator the caller passes, never from SentencePiece's own
    process-wide one, so that a batch is a pure function of (member seed, call) and a
    resumed run sees the segmentations the uninterrupted one would have. For that
    reason the l-best form is used (l >= 2), not SentencePiece's sampling from the
    whole lattice (nbest -1). A sentence's l best are computed once and cached.
    """

    def __init__(self, processor: spm.SentencePieceProcessor, alpha: float, nbest: int):
        if not alpha > 0 or nbest < 2:
            raise ValueError(f"subword sampling needs alpha > 0 and nbest >= 2, got alpha "
                             f"{alpha} and nbest {nbest}")
        self.processor, self.alpha, self.nbest = processor, alpha, nbest
        self._cache: dict[str, tuple[list, np.ndarray]] = {}

    def candidates(self, text: str) -> tuple[list, np.ndarray]:
        """The l best segmentations of ``text`` (int32 arrays) and their probabilities."""
        if text not in self._cache:
            segmentations = [np.asarray(ids, np.int32) for ids in
                             self.processor.nbest_encode_as_ids(text, self.nbest)]
            if not segmentations:  # e.g. an empty sentence
                segmentations = [np.asarray(self.processor.encode(text), np.int32)]
            log_p = np.array([sum(self.processor.get_score(int(i)) for i in ids)
                              for ids in segmentations])
            weights = np.exp(self.alpha * (log_p - log_p.max()))
            self._cache[text] = (segmentations, weights / weights.sum())
        return self._cache[text]

    def sample(self, text: str, rng: np.random.Generator) -> np.ndarray:
        segmentations, probabilities = self.candidates(text)
        return segmentations[rng.choice(len(segmentations), p=probabilities)]
