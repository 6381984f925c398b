"""Does an unscaled dot product saturate the softmax as d grows, and does that slow
training? Vaswani et al. 2017, §3.2.1 (the reason for 1/√d_k), and Britz et al.
2017 (BLEU of multiplicative vs additive attention at d = 128/256/512/1024: Mul
22.03/22.33/21.78/18.22, Add 22.23/22.33/22.47/22.10).

Two parts, in the regime those papers describe: queries and keys whose components
have unit variance, as a pre-LN Transformer's projections give them.

(i) Untrained: ``python -m attention_research.reports.score_statistics
--out=experiments/results/score_scaling`` measures, for dot, scaled_dot, general and
additive at d = 16, 64, 256, 1024, the score's spread, the attention entropy, the
largest weight and the norm of the softmax's Jacobian (untrained.md).

(ii) Training, this sweep: the pre-LN Transformer on reverse with one head whose
queries and keys are projected to d_k = 16 … 1024 (``model.attention.head_dim``) at
d_model = 64, so that only the dimension of the comparison grows; dot against
scaled_dot, 5 seeds each (cohorts of at most 2 seeds). Held-out accuracy every 250
steps gives accuracy at fixed step budgets; summary.json's ``seq_acc_by_length``
gives it by length, length 1 apart.

    python launch.py --config=experiments/score_scaling.py

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/score_scaling/: 40 members, 8,945 s
(cpu).

Result: results/score_scaling/summary.md; its claims
(experiments/lab/claims/score_scaling.py) are rows of experiments/FINDINGS.md.
"""

from attention_research.running import sweeps
from configs import base

SIZES = [16, 64, 256, 1024]
SEEDS = [0, 1, 2, 3, 4]


def get_config(arg=None):
    config = base.get_config("task=reverse", family="transformer")
    config.name = "score_scaling"
    config.model.attention.num_heads = 1
    config.train.eval_at_start = True
    # The held-out set (1,600 sequences) is evaluated in one batch per member: a cohort
    # of 5 members at d_k = 1024 needed 17.5 GB and was killed on this 23 GB machine.
    config.max_cohort_members = 2
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(sweeps.axis("config.model.attention.score", ["dot", "scaled_dot"]),
                          sweeps.axis("config.model.attention.head_dim", SIZES),
                          sweeps.axis("config.seed", SEEDS))


# The untrained measurement was drawn again by score_statistics on seeds 100-102
# (`python -m attention_research.reports.score_statistics
# --out=experiments/results/score_scaling_replication --first-seed=100 --seeds=3`); its
# rows are checks of Vaswani et al.'s footnote 4, true by construction, so a second draw
# replicates nothing (issue 73) and no row reads it as a replication.
REPLICATED = ()
