"""The Transformer with scaled_dot (Vaswani et al. 2017) vs additive vs dot scores in
every self- and cross-attention, on reverse, 5 seeds: lengths 1-25 seen in training,
26-50 longer.

    python launch.py --config=experiments/transformer_scores.py

The members are what ``configs/transformer.py:score=SCORE`` runs.
"""

from attention_research.running import sweeps
from configs import base, transformer


def get_config(arg=None):
    config = transformer.get_config("task=reverse")
    config.name = "transformer_scores"
    config.baseline = "score-scaled_dot"  # Vaswani et al.'s
    return base.shrink_if_tiny(config, arg)


SEEDS = [0, 1, 2, 3, 4]
REPLICATED = ("transformer-additive-fits-faster-at-a-cost", "transformer-unscaled-dot-trails")


def get_sweep(arg=None):
    if base.replicating(arg):  # the same settings on fresh seeds (issue 35)
        from experiments.lab.findings import REPLICATION_SEEDS
        seeds = list(REPLICATION_SEEDS)
    else:
        seeds = SEEDS
    return sweeps.product(sweeps.axis("config.model.attention.score",
                                      ["scaled_dot", "additive", "dot"]),
                          sweeps.axis("config.seed", seeds))
