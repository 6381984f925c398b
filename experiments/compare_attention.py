"""Every formulation on copy, reverse and sort, 5 seeds each, default lengths (train
1-25, evaluate 1-50). The five seeds of a formulation and task are one cohort. The
lengths seen in training are evaluated every 50 steps (``train.curve_eval_every``), so
that steps to 0.99 and the area under the learning curve (the speed measure that still
separates formulations once all reach the ceiling) are read on a fine grid; the whole
held-out set, longer lengths included, every 250.

    python launch.py --config=experiments/compare_attention.py

Copy and reverse are position-addressed: the source position of output step t is t or
L - 1 - t. Sort is content-addressed: it depends on the symbols alone, so ``location``
(weights from the target state only) and ``local_m`` (a window around p_t = t) should
fail there by design; ``monotonic`` (Raffel et al. 2017: it can never read back)
should learn copy and fail on reverse and sort. The pointer-generator (See et al. 2017)
copies its output from the source; summary.md gives how much (copy rate). The
Transformer runs with each position scheme. summary.md answers which formulation
wins where: sequence accuracy on lengths seen at a short budget (step 500, where the
working formulations are not yet all at the ceiling) and at the end, on longer lengths,
alignment accuracy, steps to 0.99 and the area under the curve, each as a mean and 95%
interval over seeds, with a winner only where Welch's test separates it.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/compare_attention/: 360 members, 22,056 s
(cpu); results/compare_attention_replication/: 153 members, 16,421 s (cpu).

Result: results/compare_attention/summary.md; its claims
(experiments/lab/claims/compare_attention.py) are rows of experiments/FINDINGS.md.
"""

from attention_research.running import sweeps
from configs import base

SCORE = "config.model.attention.score"
FORMULATIONS = (
    [{SCORE: score} for score in
     ("additive", "dot", "scaled_dot", "general", "location", "cosine", "none")]
    + [{SCORE: "additive", "config.model.attention.alignment": alignment}
       for alignment in ("local_m", "local_p", "hard", "monotonic")]
    + [{SCORE: "additive", "config.model.attention.normalizer": normalizer}
       for normalizer in ("sparsemax", "entmax15")]
    # Scores that read the decoder's past attention (configs/location_aware.py, coverage.py).
    + [{SCORE: "location_aware"},
       {SCORE: "coverage", "config.model.attention.coverage_loss": 1.0}]
    # The output copies source tokens by their attention weights (configs/pointer_generator.py).
    + [{SCORE: "additive", "config.model.pointer_generator": True}]
    + [{SCORE: "scaled_dot", "config.model.attention.num_heads": 4}]
    # The Transformer with each position scheme (models/transformer.py); sinusoidal first,
    # under the name it has had since the first run.
    + [{"config.model.family": "transformer", SCORE: "scaled_dot",
        "config.model.attention.num_heads": 4, "config.model.num_layers": 2}]
    + [{"config.model.family": "transformer", SCORE: "scaled_dot",
        "config.model.attention.num_heads": 4, "config.model.num_layers": 2,
        "config.model.positions": positions}
       for positions in ("alibi", "nope", "relative", "rope")])
# Issue 35: the control of See et al.'s claim, the same coverage model with the loss on
# for the last fifth of the budget only (their final phase): trained here, appended last
# (explicit_vs_implicit reads FORMULATIONS alone).
CONTROLS = [{SCORE: "coverage", "config.model.attention.coverage_loss": 1.0,
             "config.model.attention.coverage_loss_from": 0.8},
            # The same model without the loss (λ = 0): the final-phase control leads the
            # RNNs on sort although its late loss lowers sort accuracy, so the coverage
            # *score* may be what sorts; this arm tells the two apart. Shown beside the
            # location-aware observation, not part of its rule.
            {SCORE: "coverage", "config.model.attention.coverage_loss": 0.0}]
NO_LOSS = "coverage, no loss"


def get_config(arg=None):
    config = base.get_config()
    config.name = "compare_attention"
    config.baseline = "score-additive"  # Bahdanau's, the project's default
    config.train.eval_every = 250
    config.train.curve_eval_every = 50
    return base.shrink_if_tiny(config, arg)


SEEDS = [0, 1, 2, 3, 4]


def get_sweep(arg=None):
    """Every formulation on every task, 5 seeds; ``:replicate``: the formulations the
    findings read (``NAMES``), on seeds never used before (issue 35)."""
    tasks = sweeps.axis("config.task.name", ["copy", "reverse", "sort"])
    if base.replicating(arg):
        from experiments.lab.findings import REPLICATION_SEEDS
        return sweeps.product(list(NAMES.values()), tasks,
                              sweeps.axis("config.seed", list(REPLICATION_SEEDS)))
    return sweeps.product(FORMULATIONS + CONTROLS, tasks, sweeps.axis("config.seed", SEEDS))


NAMES = {  # the formulations the findings read, by the names of docs/formulations.md
    "additive": {SCORE: "additive"}, "dot": {SCORE: "dot"}, "general": {SCORE: "general"},
    "cosine": {SCORE: "cosine"}, "location": {SCORE: "location"}, "none": {SCORE: "none"},
    "scaled_dot": {SCORE: "scaled_dot"},
    "scaled_dot, 4 heads": {SCORE: "scaled_dot", "config.model.attention.num_heads": 4},
    **{a: {SCORE: "additive", "config.model.attention.alignment": a}
       for a in ("local_m", "local_p", "monotonic")},
    **{n: {SCORE: "additive", "config.model.attention.normalizer": n}
       for n in ("sparsemax", "entmax15")},
    "location_aware": {SCORE: "location_aware"},
    "coverage": {SCORE: "coverage", "config.model.attention.coverage_loss": 1.0},
    "coverage, final phase": {SCORE: "coverage", "config.model.attention.coverage_loss": 1.0,
                              "config.model.attention.coverage_loss_from": 0.8},
    "pointer_generator": {SCORE: "additive", "config.model.pointer_generator": True},
}
# The rows its claims (experiments/lab/claims/compare_attention.py) decide: `:replicate`
# trains what they read.
REPLICATED = ("coverage-loss-from-the-start",
              "sparse-attention-matches-softmax",
              "local-m-needs-monotonic-alignment",
              "monotonic-attention-cannot-read-back",
              "dot-fits-fastest",
              "scaled-dot-blurs-in-the-rnn",
              "location-fails-unseen-lengths-and-sort",
              "local-p-fails-sort",
              "pointer-generator-limits",
              "location-aware-sorts-best",
              "cosine-keeps-most-beyond-training")
