"""No attention: the fixed-context encoder-decoder baseline (Cho et al. 2014;
Sutskever et al. 2014). Every decoder step sees the final encoder state.

    python launch.py --config=configs/none.py
    python launch.py --config=configs/none.py:task=copy,style=bahdanau
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "none"
    config.model.attention.score = "none"
    return config
