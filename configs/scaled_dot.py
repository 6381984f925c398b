"""Scaled dot-product attention (Vaswani et al. 2017, Eq. 1): score(q, k_s) = qᵀk_s / √d.

    python launch.py --config=configs/scaled_dot.py
    python launch.py --config=configs/scaled_dot.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "scaled_dot"
    config.model.attention.score = "scaled_dot"
    return config
