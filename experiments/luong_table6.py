"""Luong, Pham & Manning 2015, Table 6, where alignments are known: alignment accuracy on
reverse for global attention with the location, dot and general functions, and for local-m
and local-p with general (the arms Table 6 sets against global location), 12 fresh seeds;
the same on 12 more for the replication (issue 73).

    python launch.py --config=experiments/luong_table6.py --part=1/2
    python launch.py --config=experiments/luong_table6.py --part=2/2
    python launch.py --config=experiments/luong_table6.py:replicate

Luong et al. report AER on RWTH's 508 hand-aligned German-English sentences (lower is
better): global location 0.39, local-m (general) 0.34, local-p (general) 0.36, and (§5.4)
that the location function learns poorer alignments. On reverse the true source position
of output step t is L - 1 - t, so alignment accuracy (the attention's argmax on it) is the
complement of an AER with one sure link per target word. Reverse is the task where the
position to read depends on the source length: copy's is the step itself, which a
function of the decoder state alone (location) learns by design, and sort's depends on
symbols that location never sees (compare_attention's location-aligns-poorly row).

local-m centres its window at p_t = t: on reverse the position L - 1 - t leaves the
window [t - D, t + D] (D = 10) at step 0 of every source of D + 2 = 12 words or more
(this paragraph first said 21: corrected after the audit), so it fails there by
construction. It is trained and shown, read by no rule.

The rules, written before any member of this sweep trained (issue 73's one decision
rule: reproduced when the 95% interval lies beyond the minimum effect in the paper's
direction; not reproduced when it rules the minimum effect out in that direction;
inconclusive otherwise), are RULES below.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/luong_table6/: 60 members, 3,510 s (cpu);
results/luong_table6_replication/: 60 members, 5,039 s (cpu).

Result: results/luong_table6/summary.md; its claims
(experiments/lab/claims/luong_table6.py) are rows of experiments/FINDINGS.md.
"""

from attention_research.metric_names import column, length_range
from attention_research.running import sweeps
from configs import base

SCORE, ALIGNMENT = "config.model.attention.score", "config.model.attention.alignment"
SETTINGS = ([{SCORE: score} for score in ("location", "dot", "general")]
            + [{SCORE: "general", ALIGNMENT: alignment} for alignment in ("local_m", "local_p")])
TASK = "reverse"
SEEDS = list(range(300, 312))  # never used by any record before
REPLICATION_SEEDS = list(range(320, 332))
# At the last step (1,500), on every length seen in training.
STATISTIC = column("align_acc", length_range(1, 25))
MIN_EFFECT = 0.02  # stats.ACCURACY's minimum effect
RULES = {
    "location-aligns-poorly": (
        "alignment accuracy on reverse, lengths 1-25, at step 1500, 12 seeds a setting: "
        "location - dot and location - general, each a difference of seed means with its "
        "95% Welch interval over seeds. Reproduced if both intervals lie below -0.02 "
        "(every contrast must hold: an intersection-union test, no correction); not "
        "reproduced if either interval, at 97.5% (Bonferroni over the two), lies above "
        "-0.02 (it rules out a deficit of the minimum effect); else inconclusive. "
        "Replicated if seeds 320-331 give the same verdict by the same rule"),
    "local-p-aligns-better-than-location": (
        "the same statistic and seeds: local-p (general) - location with its 95% Welch "
        "interval. Reproduced if it lies above +0.02; not reproduced if it lies below "
        "+0.02; else inconclusive. local-m (general) is shown, read by no rule: on "
        "reverse it fails by construction beyond length 21. Replicated as above"),
}


def get_config(arg=None):
    config = base.get_config()
    config.name = "luong_table6"
    config.baseline = "score-location"  # Table 6 reads every arm against global location
    config.train.eval_every = 250
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    seeds = REPLICATION_SEEDS if base.replicating(arg) else SEEDS
    return sweeps.product(SETTINGS, sweeps.axis("config.task.name", [TASK]),
                          sweeps.axis("config.seed", seeds))
