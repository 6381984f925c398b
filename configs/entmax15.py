"""1.5-entmax attention (Peters, Niculae & Martins 2019, Eq. 10, Algorithm 2): the
additive score's weights are p_s = [e_s/2 − τ]₊², τ found exactly by sorting; sparse
like sparsemax, smoother. Any score takes it:
``--config.model.attention.normalizer=entmax15``.

    python launch.py --config=configs/entmax15.py
    python launch.py --config=configs/entmax15.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "entmax15"
    config.model.attention.score = "additive"
    config.model.attention.normalizer = "entmax15"
    return config
