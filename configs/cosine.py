"""Content-based attention (Graves et al. 2014, NTM Eq. 5-6):
score(q, k_s) = β · cos(W q, k_s), with key strength β = softplus(w_βᵀ q) at every step.

    python launch.py --config=configs/cosine.py
    python launch.py --config=configs/cosine.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "cosine"
    config.model.attention.score = "cosine"
    return config
