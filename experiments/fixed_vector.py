"""Bahdanau et al. 2015, Figure 2, on reverse: is the collapse of the encoder-decoder
without attention the fixed-length vector, or too small a model?

    python launch.py --config=experiments/fixed_vector.py

Train on reverse lengths 1-50 (as RNNencdec-50 / RNNsearch-50 trained on sentences of
up to 50 words), 3000 steps, evaluate every length 1-50: ``none`` (the final encoder
state is the decoder's only view of the source) at hidden sizes 64, 128 and 256 against
additive attention at 64, 3 seeds. If the collapse on long sources were capacity,
quadrupling the state would close the gap to attention at 64; if it is the fixed
vector, it would not. summary.json holds the accuracy of every length; the finding
compares lengths 26-50.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/fixed_vector/: 12 members, 6,693 s (cpu);
results/fixed_vector_replication/: 12 members, 2,976 s (cpu).

Result: results/fixed_vector/summary.md; its claims
(experiments/lab/claims/fixed_vector.py) are rows of experiments/FINDINGS.md.
"""

from attention_research.running import sweeps
from configs import base

SCORE, HIDDEN = "config.model.attention.score", "config.model.hidden_size"
MODELS = ([{SCORE: "none", HIDDEN: size} for size in (64, 128, 256)]
          + [{SCORE: "additive", HIDDEN: 64}])
SEEDS = [0, 1, 2]


def get_config(arg=None):
    config = base.get_config("task=reverse")
    config.name = "fixed_vector"
    config.task.train_max_length = 50
    config.task.eval_max_length = 50
    config.task.eval_examples_per_length = 16
    config.train.num_steps = 3000
    return base.shrink_if_tiny(config, arg)


REPLICATED = ("fixed-vector-not-capacity",)


def get_sweep(arg=None):
    if base.replicating(arg):  # every model on fresh seeds (issue 35)
        from experiments.lab.findings import REPLICATION_SEEDS
        return sweeps.product(MODELS, sweeps.axis("config.seed", list(REPLICATION_SEEDS)))
    return sweeps.product(MODELS, sweeps.axis("config.seed", SEEDS))
