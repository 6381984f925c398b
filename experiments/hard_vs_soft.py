"""Stochastic hard attention (Xu et al. 2015, REINFORCE) against soft global attention,
same additive score and model, on copy and reverse, defaults, one seed: learning
curves side by side.

    python launch.py --config=experiments/hard_vs_soft.py

The members are what ``configs/additive.py:task=TASK`` (soft) and
``configs/hard.py:task=TASK`` run.
"""

from attention_research import sweeps
from configs import base


def get_config(arg=None):
    config = base.get_config()
    config.name = "hard_vs_soft"
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(sweeps.axis("config.task.name", ["copy", "reverse"]),
                          sweeps.axis("config.model.attention.alignment", ["global", "hard"]))
