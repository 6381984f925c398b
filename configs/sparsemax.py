"""Sparsemax attention (Martins & Astudillo 2016, Eq. 2): the additive score's weights
are the Euclidean projection of the scores onto the simplex, so positions scored below
a threshold get exactly zero weight. Any score takes it:
``--config.model.attention.normalizer=sparsemax``.

    python launch.py --config=configs/sparsemax.py
    python launch.py --config=configs/sparsemax.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "sparsemax"
    config.model.attention.score = "additive"
    config.model.attention.normalizer = "sparsemax"
    return config
