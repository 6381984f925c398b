"""Do attention weights explain the model? Every formulation of compare_attention on
copy, reverse and sort, 3 seeds, trained as there, with the implicit analysis
(analysis/held_out.py) on the final parameters:

    python launch.py --config=experiments/explicit_vs_implicit.py

Copy, reverse and sort know the true alignment, so both kinds of attention can be
scored against it: the explicit weights' alignment accuracy beside the implicit map's
(integrated gradients of an output's log-probability with respect to the source
embeddings, at 2 drawn steps per held-out example), and, for ``none``, whether a
model without attention aligns implicitly.
Kendall τ_b between the two maps is Jain & Wallace's (2019) agreement measure; the
ablation drops (the output's log-probability lost when the source token the weights
rank highest, the one the implicit map ranks highest, or a random one is zeroed) are
the faithfulness test Wiegreffe & Pinter (2019) ask for. summary.md gives each with
its 95% interval over seeds.
"""

from attention_research import sweeps
from configs import base
from experiments.compare_attention import FORMULATIONS

SEEDS = [0, 1, 2]


def get_config(arg=None):
    config = base.get_config()
    config.name = "explicit_vs_implicit"
    # Integrated gradients (m = 16) read at 2 drawn symbol steps per held-out example:
    # about 40 backward passes of the held-out set, once, on the final parameters
    # (experiments/results/implicit_cost/ has what each setting costs).
    config.analysis.update(implicit="integrated_gradients", steps=16, target_steps=2)
    config = base.shrink_if_tiny(config, arg)
    if base.parse_argument(arg, {}).get(base.TINY):
        config.analysis.update(steps=2, batch_size=4)
    return config


def get_sweep():
    return sweeps.product(FORMULATIONS,
                          sweeps.axis("config.task.name", ["copy", "reverse", "sort"]),
                          sweeps.axis("config.seed", SEEDS))
