"""The experiment behind Bahdanau et al. 2015, Figure 2, on reverse: train on lengths
up to 50, evaluate up to 100; no attention (the fixed-context baseline) against
attention. Expected: the baseline collapses as sources grow, attention holds longer.

    python launch.py --config=experiments/length_generalization.py
"""

from attention_research import sweeps
from configs import base


def get_config(arg=None):
    config = base.get_config("task=reverse")
    config.name = "length_generalization"
    config.task.train_max_length = 50
    config.task.eval_max_length = 100
    config.task.eval_examples_per_length = 16
    config.train.num_steps = 3000
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(
        sweeps.axis("config.model.attention.score", ["none", "additive", "dot", "general"]),
        sweeps.axis("config.seed", [0, 1]))
