"""Model families, registered by name (``registry.py``). Only the attention varies
inside a family."""

from __future__ import annotations

from attention_research.models.registry import (
    FAMILIES, EncoderDecoder, Family, attention_kwargs, max_source_length)
from attention_research.models.rnn import CELLS, DECODER_STYLES, Seq2Seq
from attention_research.models.transformer import (
    POSITIONS, Transformer, check_transformer_attention)
from attention_research.models.decoder_only import DecoderOnly


def make_model(config, source_vocab_size: int, target_vocab_size: int) -> EncoderDecoder:
    """Build the model a config describes."""
    family = config.model.family
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; valid choices: "
                         f"{', '.join(FAMILIES)}")
    return FAMILIES[family].build(config, source_vocab_size, target_vocab_size)


__all__ = ["CELLS", "DECODER_STYLES", "DecoderOnly", "EncoderDecoder", "FAMILIES", "Family", "POSITIONS",
           "Seq2Seq", "Transformer", "attention_kwargs", "check_transformer_attention",
           "make_model", "max_source_length"]
