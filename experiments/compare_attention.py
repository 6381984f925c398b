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
"""

from attention_research import sweeps
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


def get_config(arg=None):
    config = base.get_config()
    config.name = "compare_attention"
    config.train.eval_every = 250
    config.train.curve_eval_every = 50
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(FORMULATIONS,
                          sweeps.axis("config.task.name", ["copy", "reverse", "sort"]),
                          sweeps.axis("config.seed", [0, 1, 2, 3, 4]))
