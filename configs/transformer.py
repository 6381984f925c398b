"""Transformer encoder-decoder (Vaswani et al. 2017), pre-LayerNorm, sinusoidal positions,
with a pluggable score in self- and cross-attention: scaled_dot (the paper) by
default; dot, general, additive or cosine as ablations.

    python launch.py --config=configs/transformer.py
    python launch.py --config=configs/transformer.py:score=additive
    python launch.py --config=configs/transformer.py:task=copy,score=dot
    python launch.py --config=configs/transformer.py:task=translation
"""

from configs import base

ARGUMENTS = {"task": base.ARGUMENTS["task"],
             "score": ("scaled_dot", "dot", "general", "additive", "cosine")}


def get_config(arg=None):
    choices = base.parse_argument(arg, ARGUMENTS)
    config = base.get_config(choices={k: v for k, v in choices.items() if k != "score"})
    score = choices.get("score", "scaled_dot")
    config.name = "transformer" if score == "scaled_dot" else f"transformer-{score}"
    config.model.family = "transformer"
    config.model.attention.score = score
    config.model.attention.num_heads = 4
    config.model.hidden_size = 64  # d_model
    config.model.num_layers = 2
    config.model.ff_dim = 256
    if config.task.name == "translation":  # the size of the RNNs' translation default
        config.model.hidden_size = 128
        config.model.ff_dim = 512
        config.model.dropout = 0.1
    return config
