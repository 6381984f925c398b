"""Multi-head attention in the RNN decoder (Vaswani et al. 2017, §3.2.2): q, k and v
projected into 4 heads, scaled dot-product per head, concatenated and projected.

    python launch.py --config=configs/multihead.py
    python launch.py --config=configs/multihead.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "multihead"
    config.model.attention.score = "scaled_dot"
    config.model.attention.num_heads = 4
    return config
