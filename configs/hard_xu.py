"""Xu et al.'s stochastic hard attention as their code trains it (Xu et al. 2015, §4.1,
Eq. 11-12; arctic-captions ``capgen.py``), not this project's variant (configs/hard.py):

* the reward is the whole sequence's log-likelihood over its length, R / |y|, credited
  to every step, less a moving-average baseline (Eq. 12; capgen.py takes the mean);
* for half of the sequences the decoder reads the expected context instead ("with
  probability 0.5 for a given image", §4.1): they train the attention by backpropagation
  and give REINFORCE no term;
* λ_r and λ_e at Xu's relative scale: capgen.py adds the REINFORCE gradient (its cost
  / 10) and the entropy gradient (0.002) per example while it averages the likelihood
  over the batch, so against the mean likelihood they weigh B/10 and 0.002·B at batch
  B (here B = 32: 3.2 and 0.064; set for the default batch, scale both with it);
* at evaluation the expected context, as their decoder reads it (generate_caps.py).

    python launch.py --config=configs/hard_xu.py
    python launch.py --config=configs/hard_xu.py:task=copy
"""

from configs import hard as project_variant


def get_config(arg=None):
    config = project_variant.get_config(arg)  # the additive score, hard alignment
    config.name = "hard_xu"
    hard, batch = config.model.attention.hard, config.train.batch_size
    hard.reward = "sequence_mean"
    hard.soft_fraction = 0.5
    hard.soft_unit = "sequence"
    hard.reinforce_weight = batch / 10
    hard.entropy_weight = 0.002 * batch
    hard.test_context = "expected"
    return config
