"""Analyses of trained models: implicit attention (``implicit.py``), read off the
derivatives of a model's outputs with respect to its source embeddings, for comparison
with the explicit attention weights."""
