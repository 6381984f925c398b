"""Model families. Only the attention varies inside a family."""

from __future__ import annotations

from attention_research.models.rnn import CELLS, DECODER_STYLES, Seq2Seq

MODELS = ("rnn",)


def max_source_length(config) -> int:
    """The longest source the model must handle: the field, or the task's longest."""
    return config.model.max_source_length or config.task.eval_max_length


def make_model(config, source_vocab_size: int, target_vocab_size: int):
    """Build the model a config describes."""
    model_config = config.model
    if model_config.family != "rnn":
        raise ValueError(f"unknown model family {model_config.family!r}; "
                         f"valid choices: {', '.join(MODELS)}")
    attention = model_config.attention
    return Seq2Seq(
        source_vocab_size=source_vocab_size,
        target_vocab_size=target_vocab_size,
        embed_dim=model_config.embed_dim,
        hidden_size=model_config.hidden_size,
        cell=model_config.cell,
        num_layers=model_config.num_layers,
        bidirectional=model_config.bidirectional,
        decoder_style=model_config.decoder_style,
        attention=dict(score=attention.score, alignment=attention.alignment,
                       attention_dim=attention.dim, max_length=max_source_length(config)),
        dropout=model_config.dropout,
    )


__all__ = ["CELLS", "DECODER_STYLES", "MODELS", "Seq2Seq", "make_model", "max_source_length"]
