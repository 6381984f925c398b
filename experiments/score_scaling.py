"""dot vs scaled_dot vs additive as the attention dimension d grows (Britz et al. 2017,
the concern behind Vaswani et al.'s 1/√d, §3.2.1), on reverse.

The RNN stays at its default size (hidden 64); queries and keys are projected to
d = 16 … 512 dimensions before they are compared (``model.attention.head_dim``, one
head), and the additive score's own hidden layer has d units too. So only the
dimension of the comparison changes, as with Vaswani's d_k, and a d = 512 member costs
little more than a d = 16 one. The summary reports final accuracy; each member's
evaluation at step 0 (``train.eval_at_start``) records the attention entropy of the
untrained model, ``eval/attn_entropy``: a dot product whose variance grows with d
saturates the softmax (low entropy) before anything is learned.

    python launch.py --config=experiments/score_scaling.py
"""

from attention_research import sweeps
from configs import base

SIZES = [16, 64, 256, 512]


def get_config(arg=None):
    config = base.get_config("task=reverse")
    config.name = "score_scaling"
    config.train.eval_at_start = True
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    return sweeps.product(
        sweeps.axis("config.model.attention.score", ["dot", "scaled_dot", "additive"]),
        sweeps.zip_axes(sweeps.axis("config.model.attention.head_dim", SIZES),
                        sweeps.axis("config.model.attention.dim", SIZES)))
