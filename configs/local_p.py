"""Local attention, predictive (Luong et al. 2015, §3.2, Eq. 9-10, "local-p"):
p_t = S · sigmoid(v_pᵀ tanh(W_p h_t)); the in-window softmax of the additive score
times exp(−(s − p_t)² / 2σ²), σ = D/2.

    python launch.py --config=configs/local_p.py
    python launch.py --config=configs/local_p.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "local_p"
    config.model.attention.score = "additive"
    config.model.attention.alignment = "local_p"
    return config
