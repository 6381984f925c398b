"""Issue 36's goals on Multi30k de→en test_2016_flickr: the RNN with additive attention
and the Transformer, each at its Multi30k default, against the tutorials' numbers.

    taskset -c 0 python launch.py --config=experiments/multi30k_goals.py --part=1/2 \\
        --config.task.data_path=../shared/data/multi30k &
    taskset -c 1 python launch.py --config=experiments/multi30k_goals.py --part=2/2 \\
        --config.task.data_path=../shared/data/multi30k

Members, 3 seeds each, at the defaults of ``task=translation`` (set from
experiments/multi30k_recipe.py, which tuned on the validation split only; run this
after it):
- ``rnn``: configs/additive.py's RNN with additive attention;
- ``transformer``: configs/transformer.py's Transformer (``transformer.translation_overrides``).

One member a cohort (``max_cohort_members = 1``), so each member's ``wall_time_s`` is
the wall time of one model trained alone on one core (the other core busy with the
other part): the time goal is per run, and a cohort of three would time three
models together.

The goals, written before the run (issue 36, item 4; benchmarks, not FINDINGS rows):
- lowercased BLEU on test_2016_flickr (``test/bleu_lc``: sacreBLEU, 13a, lowercase),
  mean over the 3 seeds ≥ **28.3** for ``rnn`` (bentrevett/pytorch-seq2seq notebook 3:
  Bahdanau attention, bi-GRU 512, 20.5M parameters) and ≥ **36.5** for
  ``transformer`` (legacy notebook 6: 3+3 layers, d 256, 9.0M parameters). The report
  gives the 95% t interval; a goal is *met* when the mean clears it, and *met with
  confidence* when the interval's lower end does too;
- every member's wall time ≤ 3,600 s;
- reported beside: cased sacreBLEU, chrF, and target tokens per second.
The tutorials' BLEU is torchtext's on spaCy tokens (docs/translation.md, "How bleu_lc
differs"): the anchors are the same kind of score, not the same number.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/multi30k_goals/: 6 members, 32,989 s
(cpu).

Result: results/multi30k_goals/README.md (each goal, met or not) and summary.md.
"""

from attention_research.running import sweeps
from configs import base, transformer

# The RNN (the base config: additive attention), then the Transformer.
SETTINGS = [{}, transformer.translation_overrides()]
SEEDS = [0, 1, 2]
GOALS = {"rnn": 28.3, "transformer": 36.5}  # lowercased test BLEU, the tutorials'
TIME_GOAL_S = 3600


def get_config(arg=None):
    config = base.get_config("task=translation")  # multi30k, the default corpus
    config.name = "multi30k_goals"
    config.max_cohort_members = 1  # each member's wall time is one model's, alone
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    return sweeps.product(SETTINGS, sweeps.axis("config.seed", SEEDS))
