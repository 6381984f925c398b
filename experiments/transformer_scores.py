"""The Transformer with scaled_dot (Vaswani et al. 2017) vs additive vs dot scores in
every self- and cross-attention, on reverse, 5 seeds: lengths 1-25 seen in training,
26-50 longer.

    python launch.py --config=experiments/transformer_scores.py

The members are what ``configs/transformer.py:score=SCORE`` runs.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/transformer_scores/: 15 members, 2,279 s
(cpu); results/transformer_scores_replication/: 9 members, 1,511 s (cpu).

Result: results/transformer_scores/summary.md; its claims
(experiments/lab/claims/transformer_scores.py) are rows of experiments/FINDINGS.md.
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
