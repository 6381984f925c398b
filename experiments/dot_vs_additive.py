"""The README's example sweep: Luong's dot score against Bahdanau's additive one in the
RNN on reverse, 3 seeds each, one cohort a score.

    python launch.py --config=experiments/dot_vs_additive.py --dry_run   # 6 members, 2 cohorts
    python launch.py --config=experiments/dot_vs_additive.py             # -> runs/dot_vs_additive/summary.md

A sweep file names the settings (``get_sweep``) over a base config (``get_config``);
members that differ only in seed train together under ``vmap``, and the report compares
the settings by seed, with 95% intervals and Holm-corrected Welch tests against
``config.baseline``. Copy it to start a comparison of your own (docs/sweeps.md).

Cost: not recorded here; compare_attention's record trains these two settings on reverse
at these defaults (1,500 steps), about 5 minutes a cohort on one CPU core.

Result: runs/dot_vs_additive/summary.md where you run it; an example, not a record under
experiments/results/ (compare_attention's record holds dot and additive on reverse).
"""

from attention_research.running import sweeps
from configs import base


def get_config(arg=None):
    config = base.get_config("task=reverse")
    config.name = "dot_vs_additive"
    config.baseline = "score-additive"  # what the report reads the other setting against
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    return sweeps.product(sweeps.axis("config.model.attention.score", ["dot", "additive"]),
                          sweeps.axis("config.seed", [0, 1, 2]))
