"""Every RNN formulation config on reverse and copy, defaults, 5 seeds (a member costs
about half a minute on this project's 2-core CPU): the configs as a user runs them
(the fuller comparison, with sort and the local and hard alignments, is
compare_attention).

    python launch.py --config=experiments/formulations_check.py

Each member is what ``python launch.py --config=configs/SCORE.py:task=TASK`` runs.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/formulations_check/: 90 members, 3,342 s
(cpu).

Result: results/formulations_check/README.md and summary.md.
"""

from attention_research import attention
from attention_research.running import sweeps
from configs import base


def get_config(arg=None):
    config = base.get_config()
    config.name = "formulations_check"
    config.baseline = sweeps.baseline_name(_as_configured("additive"))  # the default
    return base.shrink_if_tiny(config, arg)


def _as_configured(score: str) -> dict:
    """The attention fields configs/SCORE.py sets (the score, and e.g. coverage's loss)."""
    import importlib
    config = importlib.import_module(f"configs.{score}").get_config()
    default = base.get_config().model.attention
    fields = {f"config.model.attention.{key}": value
              for key, value in config.model.attention.items()
              if key != "score" and not isinstance(value, dict) and default[key] != value}
    return {"config.model.attention.score": score, **fields}


def get_sweep():
    return sweeps.product(
        sweeps.axis("config.task.name", ["reverse", "copy"]),
        [_as_configured(score) for score in [*attention.SCORES, attention.NO_ATTENTION]],
        sweeps.axis("config.seed", [0, 1, 2, 3, 4]))
