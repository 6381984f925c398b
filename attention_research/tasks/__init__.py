"""Tasks: the synthetic copy and reverse (translation comes later)."""

from attention_research.tasks.synthetic import (
    BOS, EOS, NUM_SPECIAL, PAD, TASKS, Batch, alignment_targets, make_batch, make_eval_set, sample_batch,
    vocab_size)

__all__ = ["BOS", "EOS", "NUM_SPECIAL", "PAD", "TASKS", "Batch", "alignment_targets", "make_batch",
           "make_eval_set", "sample_batch", "vocab_size"]
