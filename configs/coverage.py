"""Coverage attention with the coverage loss (See et al. 2017, Eq. 11-13; Tu et al.
2016): the score sees c_t = Σ_{t'<t} α_{t'}, how much each source position has been
attended so far, and the loss adds λ Σ_s min(α_{t,s}, c_{t,s}) (λ = 1, as See et al.)
for attending again. RNN decoder only. The coverage loss alone, with any score:
``--config.model.attention.coverage_loss=1``; at decoding, GNMT's coverage penalty:
``--config.task.coverage_penalty`` (translation's beam search).

    python launch.py --config=configs/coverage.py
    python launch.py --config=configs/coverage.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "coverage"
    config.model.attention.score = "coverage"
    config.model.attention.coverage_loss = 1.0
    return config
