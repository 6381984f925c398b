"""Xu et al. 2015's hard attention against soft, trained to convergence, in distribution,
on a task off the ceiling: sort, lengths 1-25, 4,500 steps, 10 fresh seeds an arm; and
the soft steps' effect on the estimator's variance at Xu's scale, in the same runs
(issue 73, item 2).

    python launch.py --config=experiments/hard_vs_soft_converged.py --part=1/2
    python launch.py --config=experiments/hard_vs_soft_converged.py --part=2/2
    python launch.py --config=experiments/hard_vs_soft_converged.py:replicate

Why again (hard_vs_soft's record): there, copy and reverse sit at the ceiling on the
trained lengths 1-25, so its accuracy rule read the unseen lengths 26-50, chosen after
runs that had put hard attention ahead there; and B = 64's scale was still climbing at
step 1,500 (seed means 0.37, 0.58, 0.66 at steps 900, 1,200, 1,500 on copy). Here the
statistic is in distribution, on sort (soft additive attention: 0.754 at step 1,500 in
compare_attention's record, off the ceiling), at three times the budget, with a guard
that withholds the verdict if an arm is still rising.

The arms: soft global attention, and Xu's estimator as their code computes it at Xu's
relative scale for both of their batch sizes (hard_vs_soft.XU_SCALE: reward R/|y|,
λ_r = B/10, λ_e = 0.002·B, the expected context on half the sequences, the expected
context at test), B = 16 (capgen.py's default, the row's) and B = 64 (beside). The same
additive score and RNN as hard_vs_soft. Each hard arm also measures, at every evaluation,
the gradient of the attention's parameters over 64 fresh minibatches for its own
estimator and, at the same parameters, baseline and minibatches, for every sequence
sampled (train.gradient_alt_soft_fraction = 0), each whole and as REINFORCE's surrogate
alone (train.gradient_score_term).

The rules (RULES), written before any member of this sweep trained, are issue 73's one
decision rule: reproduced when the 95% interval lies beyond the minimum effect in the
paper's direction; not reproduced when it rules the minimum effect out in that
direction; inconclusive otherwise.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/hard_vs_soft_converged/: 30 members,
7,527 s (cpu), which counts about 17 minutes its B = 64 cohort's process was paused
(SIGSTOP) while the machine ran CI; results/hard_vs_soft_converged_replication/: 30
members, 6,949 s (cpu).

Result: results/hard_vs_soft_converged/summary.md; its claims
(experiments/lab/claims/hard_vs_soft_converged.py) are rows of experiments/FINDINGS.md,
replacing hard_vs_soft's two Xu rows. The replication (seeds 410-419) is recorded whole
(results/hard_vs_soft_converged_replication/): its B = 16 arm from 251a55e, its B = 64 and
soft arms from 69152c3, one core each.
"""

import math

from attention_research.metric_names import column, length_range
from attention_research.running import sweeps
from configs import base
from experiments import hard_vs_soft as hvs

ALIGNMENT = hvs.ALIGNMENT
SOFT = {ALIGNMENT: "global"}
MEASURED = {"config.train.gradient_alt_soft_fraction": 0.0,
            "config.train.gradient_score_term": True}
XU_16, XU_64 = ({**setting, **MEASURED} for setting in hvs.XU_SCALE)
SETTINGS = [SOFT, XU_16, XU_64]
TASK = "sort"
SEEDS = list(range(400, 410))  # never used by any record before
REPLICATION_SEEDS = list(range(410, 420))
NUM_STEPS, GUARD_STEP = 4500, 3000
STATISTIC = column("seq_acc", length_range(1, 25))  # at step 4,500
MIN_EFFECT = 0.02  # stats.ACCURACY's
CEILING = 0.98  # soft at or above it: hard cannot exceed it by the minimum effect
VARIANCE_THRESHOLD = math.log(1.25)  # a quarter less variance at equal gradient norm
RULES = {
    "hard-attention-accuracy": (
        "Xu et al. 2015, Table 1 (hard attention's BLEU-4 above soft's on Flickr8k, "
        "Flickr30k and COCO): greedy sequence accuracy on held-out sort sequences of the "
        "trained lengths 1-25 (in distribution) at step 4,500, 10 seeds an arm (400-409). "
        "d = Xu's estimator at B = 16's scale (λ_r = 1.6, λ_e = 0.032) - soft, its 95% "
        "Welch interval over seeds: reproduced if it lies above +0.02; not reproduced if "
        "it lies below +0.02; else inconclusive. No verdict (inconclusive) where both "
        "arms are under the accuracy floor 0.05, where soft's mean is at or above 0.98 "
        "(hard could not exceed it by 0.02), or where an arm is still rising: its seed "
        "mean at step 4,500 above its mean at step 3,000 by more than 0.02 (the budget, "
        "not the estimator, would decide). B = 64's scale (λ_r = 6.4, λ_e = 0.128) is "
        "decided the same way beside, and the row says where the two scales disagree. "
        "Replicated if seeds 410-419 give the same verdict"),
    "reinforce-gradient-noise": (
        "Xu et al. 2015, §4.1 (the expected context on half the sequences reduces the "
        "variance of the REINFORCE estimator): in the B = 16 arm's runs (Xu's relative "
        "scale), at each evaluation from step 500 to 4,500 (9 measurements, 64 fresh "
        "minibatches each), both estimators at the same parameters, baseline and "
        "minibatches: the run's (soft half) and every sequence sampled. Per seed, the "
        "mean over the 9 of log(SNR_half / SNR_all), SNR = ‖ḡ‖² / tr Cov(g) as recorded "
        "(its bias, +1/64 on each side, pulls the two together): the two estimators' "
        "variance at equal gradient norm, paired by construction. Its 95% t interval over "
        "the 10 seeds: reproduced if it lies above log 1.25 (a quarter less variance at "
        "equal norm); not reproduced if it lies below log 1.25; else inconclusive. "
        "Beside, read by no rule: REINFORCE's surrogate alone in each estimator (its tr "
        "Cov, and at equal norm), which is fixed by construction at the same point (a "
        "sampled sequence's score-function term has one distribution in both estimators, "
        "and the soft half samples half the sequences: about half the tr Cov, about "
        "twice the variance at equal norm), and the B = 64 arm measured the same way. "
        "Replicated if seeds 410-419 give the same verdict"),
}


def get_config(arg=None):
    config = hvs.get_config()
    config.name = "hard_vs_soft_converged"
    config.baseline = sweeps.baseline_name(SOFT)
    config.task.name = TASK
    config.train.num_steps = NUM_STEPS
    config.train.eval_every = 500
    config.train.gradient_batches = 64
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    seeds = REPLICATION_SEEDS if base.replicating(arg) else SEEDS
    return sweeps.product(SETTINGS, sweeps.axis("config.seed", seeds))
