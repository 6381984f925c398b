"""Transformer encoder-decoder (Vaswani et al. 2017), pre-LayerNorm, sinusoidal positions,
with a pluggable score in self- and cross-attention: scaled_dot (the paper) by
default; any other score registered as usable in the Transformer as an ablation
(dot, general, additive, cosine).

    python launch.py --config=configs/transformer.py
    python launch.py --config=configs/transformer.py:score=additive
    python launch.py --config=configs/transformer.py:task=copy,score=dot
    python launch.py --config=configs/transformer.py:task=translation
"""

from attention_research.attention import transformer_scores
from configs import base

ARGUMENTS = {"task": base.ARGUMENTS["task"], "score": tuple(transformer_scores())}


def get_config(arg=None):
    choices = base.parse_argument(arg, ARGUMENTS)
    config = base.get_config(choices={k: v for k, v in choices.items() if k != "score"},
                             family="transformer")
    score = choices.get("score", "scaled_dot")
    config.name = "transformer" if score == "scaled_dot" else f"transformer-{score}"
    config.model.attention.score = score
    return config
