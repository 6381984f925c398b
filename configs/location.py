"""Location-based attention (Luong et al. 2015, Eq. 8, "location"): a_t = softmax(W_a h_t).

The weights depend on the decoder state only, never on the source contents.

    python launch.py --config=configs/location.py
    python launch.py --config=configs/location.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "location"
    config.model.attention.score = "location"
    return config
