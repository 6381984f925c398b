"""German→English on ding_de_en: no attention against the attention formulations and
the Transformer, same budget (steps, batch, sizes), one seed each — the comparison of
Luong et al. 2015, Table 4, on a small corpus and a CPU.

    python launch.py --config=experiments/translation_de_en.py

Each model trains 8000 steps of batch 64 (about 27 epochs), 2.7 times the default
translation run. On a 2-core CPU, two single-core jobs finish sooner than one
(about 80–90 minutes in all):

    taskset -c 0 python launch.py --config=experiments/translation_de_en.py --part=1/2 &
    taskset -c 1 python launch.py --config=experiments/translation_de_en.py --part=2/2

summary.md: BLEU and chrF on the test split (beam search) and BLEU by source length;
plots/bleu_by_length.png: Bahdanau et al.'s Figure 2 for translation.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/translation_de_en/: 8 members, 8,673 s
(its members' files are not kept).

Result: results/translation_de_en/summary.md and significance.md.
"""

from attention_research.running import sweeps
from attention_research.tasks.translation.task import Translation
from configs import base, transformer
from experiments.lab import recipes

SCORE = "config.model.attention.score"
# The Transformer of the first recipe's day (pinned, as the recipe is).
TRANSFORMER = transformer.translation_overrides(recipes.pinned("translation_recipe"))


def get_config(arg=None):
    # Recorded before experiments/translation_recipe.py tuned the defaults: its recipe
    # (no smoothing or tying, the last parameters) is pinned, so a rerun matches.
    # ding_de_en was the default corpus then (multi30k is now): pinned too.
    config = recipes.use_first_recipe(
        Translation.use_corpus(base.get_config("task=translation"), "ding_de_en"))
    config.name = "translation_de_en"
    config.baseline = "score-additive"  # the default formulation, as compare_attention's
    config.train.num_steps = 8000  # the validation loss still falls at that recipe's 3000
    return base.shrink_if_tiny(config, arg)


def get_sweep():
    rnn = [{SCORE: score} for score in ("none", "additive", "dot", "general", "location",
                                        "cosine")]
    rnn.append({SCORE: "additive", "config.model.attention.alignment": "local_p"})
    return rnn + [TRANSFORMER]
