"""Stochastic hard attention (Xu et al. 2015, §4.1): the context is the encoder state at
one position sampled from the additive-score softmax, trained by REINFORCE (reward:
target-token log-likelihood, moving-average baseline, entropy bonus); argmax at
evaluation.

    python launch.py --config=configs/hard.py
    python launch.py --config=configs/hard.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "hard"
    config.model.attention.score = "additive"
    config.model.attention.alignment = "hard"
    return config
