"""Local attention, monotonic (Luong et al. 2015, §3.2, "local-m"): the softmax of the
additive score restricted to the window [p_t − D, p_t + D] with p_t = t.

Assumes the source and target are aligned step by step: right for copy, wrong
for reverse, whose alignment runs the other way.

    python launch.py --config=configs/local_m.py
    python launch.py --config=configs/local_m.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "local_m"
    config.model.attention.score = "additive"
    config.model.attention.alignment = "local_m"
    return config
