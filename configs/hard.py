"""Stochastic hard attention (Xu et al. 2015, §4.1): the context is the encoder state at
one position sampled from the additive-score softmax, trained by REINFORCE with a
moving-average baseline and an entropy bonus; argmax at evaluation.

This is a variant of Xu's estimator, not theirs (configs/hard_xu.py is theirs): each
step's reward is its own token's log-likelihood, r_t = log p(y_t | …), not the
sequence's; every step samples (Xu: half of the sequences read the expected context);
λ_r = 1 and λ_e = 1e-3 (Xu's code: B/10 and 0.002·B against the batch-mean
likelihood). The per-token reward credits a step only with what it decides, so its
estimate varies less; it is biased, as attention/reinforce.py shows, because a
sampled position also changes the later tokens' likelihoods, which r_t leaves out.
experiments/hard_vs_soft.py trains both beside soft attention.

    python launch.py --config=configs/hard.py
    python launch.py --config=configs/hard.py:task=copy
"""

from configs import base


def get_config(arg=None):
    config = base.get_config(arg)
    config.name = "hard"
    config.model.attention.score = "additive"
    config.model.attention.alignment = "hard"
    return config
