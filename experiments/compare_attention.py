"""Every formulation of the registry on copy and reverse, 3 seeds each, default lengths
(train 1-25, evaluate 1-50). The three seeds of a formulation and task are one cohort.

    python launch.py --config=experiments/compare_attention.py

summary.md answers which formulation wins where: sequence accuracy on lengths seen
and longer, alignment accuracy, steps to 0.99, mean and spread over seeds.
"""

from attention_research import sweeps
from configs import base

SCORE = "config.model.attention.score"
FORMULATIONS = (
    [{SCORE: score} for score in
     ("additive", "dot", "scaled_dot", "general", "location", "cosine", "none")]
    + [{SCORE: "additive", "config.model.attention.alignment": alignment}
       for alignment in ("local_m", "local_p", "hard")]
    + [{SCORE: "scaled_dot", "config.model.attention.num_heads": 4},
       {"config.model.family": "transformer", SCORE: "scaled_dot",
        "config.model.attention.num_heads": 4, "config.model.num_layers": 2}])


def get_config():
    config = base.get_config()
    config.name = "compare_attention"
    return config


def get_sweep():
    return sweeps.product(FORMULATIONS, sweeps.axis("config.task.name", ["copy", "reverse"]),
                          sweeps.axis("config.seed", [0, 1, 2]))
