"""Bahdanau et al. 2015, Figure 2, decided off the floor: how long a source each model
keeps, against its hidden size, on reverse lengths 1-50, 5 fresh seeds a model
(issue 73, item 2).

    python launch.py --config=experiments/fixed_vector_capacity.py --part=1/2
    python launch.py --config=experiments/fixed_vector_capacity.py --part=2/2
    python launch.py --config=experiments/fixed_vector_capacity.py:replicate

fixed_vector's regime unchanged (train and evaluate reverse lengths 1-50, 16 sequences a
length, 3,000 steps; ``none`` at hidden 64, 128 and 256 against additive attention at 64),
on fresh seeds. Why again: fixed_vector's rule read sequence accuracy on lengths 26-50,
where every model without attention scores 0.000: a verdict at the floor, which cannot
say whether a larger state helps. Its record shows that it does (0.112, 0.207, 0.260 over
lengths 1-50 as the state grows). Here the statistic is the length a model keeps: per
seed, how many of the lengths 1-50 it decodes at least half as well as its own short
sources (lengths 1-10); for a falling curve, the length at which its accuracy halves.
It is off the floor for every model that fits short sources.

The rules (RULES), written before any member of this sweep trained, are issue 73's one
decision rule: reproduced when the 95% interval lies beyond the minimum effect in the
paper's direction; not reproduced when it rules the minimum effect out in that
direction; inconclusive otherwise.

Cost: results/fixed_vector_capacity/: 20 members, 7,188 s (cpu);
results/fixed_vector_capacity_replication/: 20 members, 7,703 s (cpu); one core of this
project's 2-core CPU a cohort.

Result: results/fixed_vector_capacity/summary.md. Its claims
(experiments/lab/claims/fixed_vector_capacity.py) take over fixed_vector's row
"fixed-vector-not-capacity" on experiments/FINDINGS.md: reproduced (kept lengths 6.4,
10.4, 14.2 without attention at hidden 64, 128, 256; 50 of 50 with additive attention at
64), and replicated on seeds 510-514 (results/fixed_vector_capacity_replication/).
"""

from attention_research.running import sweeps
from configs import base
from experiments import fixed_vector as fv

SCORE, HIDDEN = fv.SCORE, fv.HIDDEN
MODELS = fv.MODELS
SEEDS = list(range(500, 505))  # never used by any record before
REPLICATION_SEEDS = list(range(510, 515))
SHORT = (1, 10)  # the short sources a model's own accuracy is measured on
MIN_LENGTHS = 5  # the minimum effect: 5 of the 50 lengths (a tenth of the range)
FITS = 0.5  # a model whose mean accuracy on SHORT is under it has no length to keep
STATISTIC = (
    "per seed, the number of lengths L in 1-50 whose greedy sequence accuracy is at least "
    "half the member's mean sequence accuracy on lengths 1-10 (summary.json's "
    "seq_acc_by_length, 16 sequences a length): the length it keeps")
RULES = {
    "fixed-vector-not-capacity": (
        f"{STATISTIC}; 5 seeds a model (500-504), Welch intervals over seeds. Bahdanau "
        "et al.'s claim, that the fixed-length vector and not the model's size makes the "
        "encoder-decoder fail on long sources: d = kept length of additive attention at "
        "hidden 64 - that of none at hidden 256 (four times the state). Reproduced if its "
        "95% interval lies above +5 lengths; not reproduced if it lies below +5; else "
        "inconclusive. No verdict (inconclusive) where none at 256 does not fit its short "
        "sources (mean accuracy on 1-10 under 0.5), since it then has no length to keep. "
        "Beside, ruled the same way and named in the row, 'capacity helps': none at 256 - "
        "none at 64, helps if its interval lies above +1 length, does not if below, else "
        "undecided; none at 128 and each model's accuracy on 1-10 and 1-50 are shown. "
        "Replicated if seeds 510-514 give the same verdict"),
}


def get_config(arg=None):
    config = fv.get_config(arg)
    # fixed_vector's own name, with the _replication suffix ``replicate`` gives it, is
    # replaced by this file's, suffix kept: the replication records apart.
    config.name = "fixed_vector_capacity" + ("_replication" if base.replicating(arg) else "")
    return config


def get_sweep(arg=None):
    seeds = REPLICATION_SEEDS if base.replicating(arg) else SEEDS
    return sweeps.product(MODELS, sweeps.axis("config.seed", seeds))
