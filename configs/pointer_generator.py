"""The pointer-generator (See et al. 2017, Eq. 8-9): at every step a gate p_gen mixes
generating from the vocabulary with copying a source token by its additive attention
weight, so an output symbol can come from the source rather than from the softmax.
Evaluation reports how much it copies, the mean 1 − p_gen (``eval/copy_rate``). RNN
decoder only; any score.

    python launch.py --config=configs/pointer_generator.py
    python launch.py --config=configs/pointer_generator.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "pointer_generator"
    config.model.pointer_generator = True
    return config
