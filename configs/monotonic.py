"""Monotonic attention (Raffel et al. 2017): each output step reads on from where the
last one stopped and stops at the first position whose σ(score + r) says so. Trained
on the expected alignment (Eq. 9, computed by a stable scan), decoded hard and
left-to-right, so it can only learn tasks whose alignments are monotone: copy, not
reverse. RNN decoder only; r's start and the training noise are
``model.attention.monotonic.bias`` and ``.noise``.

    python launch.py --config=configs/monotonic.py:task=copy
    python launch.py --config=configs/monotonic.py        # reverse: expected to fail
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "monotonic"
    config.model.attention.alignment = "monotonic"
    return config
