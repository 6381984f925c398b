"""General (bilinear) attention (Luong et al. 2015, Eq. 8, "general"): score(q, k_s) = qᵀ W_a k_s.

    python launch.py --config=configs/general.py
    python launch.py --config=configs/general.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "general"
    config.model.attention.score = "general"
    return config
