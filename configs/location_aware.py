"""Location-aware attention (Chorowski et al. 2015, Eq. 8-9): the additive score also
sees F ∗ α_{t−1}, 10 learned filters of width 201 slid over the previous step's
weights, so it can learn to move on from where it last attended — the anti-diagonal
on reverse. RNN decoder only (the previous weights live in its carry); the filters
are ``model.attention.location_filters`` and ``location_width``.

    python launch.py --config=configs/location_aware.py
    python launch.py --config=configs/location_aware.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "location_aware"
    config.model.attention.score = "location_aware"
    return config
