"""Using a trained model: predict, draw its attention and evaluate it on inputs of
one's own, from a work directory, reading only (``python -m attention_research.use``,
or ``attention_research.load`` in a notebook; docs/using.md)."""
