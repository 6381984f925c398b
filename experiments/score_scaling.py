"""dot vs scaled_dot vs additive as the attention dimension grows (Britz et al. 2017,
the concern behind Vaswani et al.'s 1/√d): the RNN's hidden size (= the dimension
q and k are compared in) from 16 to 512, on reverse. The summary reports final
accuracy; each member's evaluation at step 0 (``train.eval_at_start``) records the
attention entropy of the untrained model, ``eval/attn_entropy``: a dot product that
grows with d saturates the softmax (low entropy) before anything is learned.

    python launch.py --config=experiments/score_scaling.py
"""

from attention_research import sweeps
from configs import base


def get_config():
    config = base.get_config("task=reverse")
    config.name = "score_scaling"
    config.train.eval_at_start = True
    return config


def get_sweep():
    sizes = [16, 64, 256, 512]
    return sweeps.product(
        sweeps.axis("config.model.attention.score", ["dot", "scaled_dot", "additive"]),
        sweeps.zip_axes(sweeps.axis("config.model.hidden_size", sizes),
                        sweeps.axis("config.model.attention.dim", sizes)))
