"""A decoder-only Transformer (a prefix language model over ``source BOS target``,
trained on the target): the family in which a position scheme is the only position
signal of every layer, as in Press et al.'s ALiBi and Kazemnejad et al.'s NoPE
experiments (models/decoder_only.py). 4 causal layers, 4 heads, d = 64, scaled_dot.

    python launch.py --config=configs/decoder_only.py
    python launch.py --config=configs/decoder_only.py:task=copy,positions=alibi
"""

from attention_research.models import POSITIONS
from configs import base

ARGUMENTS = {"task": base.ARGUMENTS["task"], "positions": POSITIONS}


def get_config(arg=None):
    choices = base.parse_argument(arg, ARGUMENTS)
    config = base.get_config(choices={k: v for k, v in choices.items() if k != "positions"},
                             family="decoder_only")
    positions = choices.get("positions", "sinusoidal")
    config.name = "decoder_only" + ("" if positions == "sinusoidal" else f"-{positions}")
    config.model.attention.score = "scaled_dot"
    config.model.positions = positions
    return config
