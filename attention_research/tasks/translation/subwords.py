"""Subwords: one SentencePiece model (Kudo & Richardson 2018) shared by both languages,
trained on the training split and cached next to the data.

Its ids line up with the specials of every task (``data.py``): PAD 0, BOS 1, EOS 2 (and UNK 3),
so models, decoding and metrics treat every task alike. One joint vocabulary lets
source and target share ids (names, numbers, cognates) and keeps one file to cache.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterable

import sentencepiece as spm

from attention_research.data import BOS, EOS, PAD

UNK = 3


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
                    model_type=model_type, character_coverage=1.0, pad_id=PAD, bos_id=BOS,
                    eos_id=EOS, unk_id=UNK, input_sentence_size=2_000_000,
                    shuffle_input_sentence=True, minloglevel=2)
            except RuntimeError as error:  # e.g. a vocabulary larger than the corpus allows
                raise ValueError(f"SentencePiece could not train a {vocab_size}-piece "
                                 f"{model_type} model on this data: {error}. Set a smaller "
                                 f"task.vocab_size.") from error
            Path(f"{prefix}.model").replace(path)
    return spm.SentencePieceProcessor(model_file=str(path))
