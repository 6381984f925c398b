"""Local attention on reverse with sources longer than 2D (Luong et al. 2015, §3.2).

local_m centres its window at p_t = t, which follows copy's diagonal but not
reverse's anti-diagonal: once a source is longer than about 2D + 1 the right
position leaves the window at some steps. local_p predicts p_t from the decoder
state and can follow it. Global attention is the reference. Additive score, trained
on lengths 1-50 and evaluated on 1-60 with D = 10, 3000 steps, 3 seeds (a member costs
2-3 minutes on this project's 2-core CPU).

    python launch.py --config=experiments/local_attention.py

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/local_attention/: 9 members, 1,265 s
(cpu).

Result: results/local_attention/README.md and summary.md.
"""

from attention_research.running import sweeps
from configs import base


def get_config(arg=None):
    config = base.get_config("task=reverse")
    config.name = "local_attention"
    config.baseline = "alignment-global"  # Luong et al.'s global attention
    config.task.train_max_length = 50
    config.task.eval_max_length = 60
    config.train.num_steps = 3000
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(
        sweeps.axis("config.model.attention.alignment", ["global", "local_m", "local_p"]),
        sweeps.axis("config.seed", [0, 1, 2]))
