"""Model families. Only the attention varies inside a family."""

from __future__ import annotations

from attention_research.models.rnn import CELLS, DECODER_STYLES, Seq2Seq
from attention_research.models.transformer import (
    POSITIONS, TRANSFORMER_SCORES, Transformer, check_transformer_attention)

MODELS = ("rnn", "transformer")


def max_source_length(config) -> int:
    """The longest source the model must handle: the field, or the task's longest."""
    return config.model.max_source_length or config.task.eval_max_length


def attention_kwargs(config) -> dict:
    """The make_attention arguments a config's ``model.attention`` section sets."""
    attention = config.model.attention
    return dict(score=attention.score, alignment=attention.alignment,
                attention_dim=attention.dim, max_length=max_source_length(config),
                window=attention.window, soft_fraction=attention.hard.soft_fraction,
                num_heads=attention.num_heads, head_dim=attention.head_dim)


def make_model(config, source_vocab_size: int, target_vocab_size: int):
    """Build the model a config describes."""
    model_config = config.model
    if model_config.family not in MODELS:
        raise ValueError(f"unknown model family {model_config.family!r}; "
                         f"valid choices: {', '.join(MODELS)}")
    if model_config.family == "transformer":
        attention = attention_kwargs(config)
        attention["fused"] = model_config.fused_attention
        return Transformer(
            source_vocab_size=source_vocab_size, target_vocab_size=target_vocab_size,
            d_model=model_config.hidden_size, num_heads=model_config.attention.num_heads,
            num_layers=model_config.num_layers, ff_dim=model_config.ff_dim,
            max_length=max_source_length(config), positions=model_config.positions,
            attention=attention, dropout=model_config.dropout)
    return Seq2Seq(
        source_vocab_size=source_vocab_size,
        target_vocab_size=target_vocab_size,
        embed_dim=model_config.embed_dim,
        hidden_size=model_config.hidden_size,
        cell=model_config.cell,
        num_layers=model_config.num_layers,
        bidirectional=model_config.bidirectional,
        decoder_style=model_config.decoder_style,
        attention=attention_kwargs(config),
        dropout=model_config.dropout,
    )


__all__ = ["CELLS", "DECODER_STYLES", "MODELS", "POSITIONS", "Seq2Seq", "TRANSFORMER_SCORES",
           "Transformer", "attention_kwargs", "check_transformer_attention", "make_model",
           "max_source_length"]
