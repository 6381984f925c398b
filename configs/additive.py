"""Additive attention (Bahdanau et al. 2015, Eq. 6; Luong's "concat"):
score(q, k_s) = v_aᵀ tanh(W_a q + U_a k_s).

    python launch.py --config=configs/additive.py
    python launch.py --config=configs/additive.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "additive"
    config.model.attention.score = "additive"
    return config
