"""Dot-product attention (Luong et al. 2015, Eq. 8, "dot"): score(q, k_s) = qᵀk_s.

    python launch.py --config=configs/dot.py
    python launch.py --config=configs/dot.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "dot"
    config.model.attention.score = "dot"
    return config
