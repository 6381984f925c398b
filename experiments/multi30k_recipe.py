"""Tuning the translation recipe on Multi30k, on its validation split only (issue 36).

    taskset -c 0 python launch.py --config=experiments/multi30k_recipe.py --part=1/2 \\
        --config.task.data_path=../shared/data/multi30k &
    taskset -c 1 python launch.py --config=experiments/multi30k_recipe.py --part=2/2 \\
        --config.task.data_path=../shared/data/multi30k

The defaults of ``task=translation`` were tuned on ``ding_de_en``
(``translation_recipe``): label smoothing 0.1, one embedding matrix for source, target
and output, 8000 steps of batch 64, the parameters of the best greedy validation BLEU.
Multi30k's sentences are longer and its training set half again as large, and the
published anchors (docs/translation.md) use models far larger than ours, so this
sweep asks, within the budget of one CPU core for an hour a run, which of vocabulary,
width and steps pays:

* ``rnn``: the RNN with additive attention at today's defaults (embeddings and hidden
  size 128, a 2,000-piece vocabulary);
* ``rnn_vocab8k``: with an 8,000-piece vocabulary (shorter sequences, more words whole);
* ``rnn256``: widths 256, dropout 0.3, 6000 steps (about three times the cost of a step
  at 128, measured: 0.42 s a step against 0.15 on one core);
* ``transformer``, ``transformer_vocab8k``, ``transformer256``: the same three for the
  Transformer (d_model 128, 4 heads, 2 layers, feed-forward 512; 256: feed-forward
  1024, 3 layers).

2 seeds a setting. Every member translates the *validation* split at the end
(``task.eval_split``): the test split is not looked at while tuning. Parameters are
selected by lowercased validation BLEU, the score the goals are stated in. The best
mean per model family (``choice``, once all of the family's seeds are in) becomes that
family's Multi30k default; 2 seeds is a weak test, so the report's intervals say how
sure that choice is.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/multi30k_recipe/: 12 members, 49,003 s
(cpu).

Result: results/multi30k_recipe/README.md (the choice) and summary.md.
"""

from attention_research.metric_names import eval_key, final_key
from attention_research.running import sweeps
from attention_research.tasks.translation.task import Translation
from configs import base, transformer
from experiments.lab import recipes

TRAIN, MODEL, TASK = "config.train", "config.model", "config.task"
# The sweep started from the defaults of its day, translation_recipe's (pinned, so that
# a rerun trains what it reports when it has moved the defaults on).
RECIPE = "translation_recipe"
TRANSFORMER = transformer.translation_overrides(recipes.pinned(RECIPE))
VOCAB8K = {f"{TASK}.vocab_size": 8000}
WIDE = {f"{MODEL}.embed_dim": 256, f"{MODEL}.hidden_size": 256,
        f"{MODEL}.attention.dim": 256, f"{TRAIN}.num_steps": 6000}
SETTINGS = {
    "rnn": {},
    "rnn_vocab8k": VOCAB8K,
    "rnn256": {**WIDE, f"{MODEL}.dropout": 0.3},
    "transformer": TRANSFORMER,
    "transformer_vocab8k": {**TRANSFORMER, **VOCAB8K},
    "transformer256": {**TRANSFORMER, **WIDE, f"{MODEL}.ff_dim": 1024,
                       f"{MODEL}.num_layers": 3},
}
SEEDS = [0, 1]


def get_config(arg=None):
    config = recipes.use_recipe(
        Translation.use_corpus(base.get_config("task=translation"), "multi30k"), RECIPE)
    config.name = "multi30k_recipe"
    config.task.eval_split = "validation"  # tuning never reads the test split
    config.train.best_metric = eval_key("bleu_lc", "validation")
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    return sweeps.product(list(SETTINGS.values()), sweeps.axis("config.seed", SEEDS))


def choice(results) -> dict[str, tuple[str, float]]:
    """Each model family's setting with the best mean lowercased validation BLEU (beam
    search, with the parameters of the best greedy one) over its seeds: {"rnn" or
    "transformer": (the setting's name in SETTINGS, its mean)}. A family is left out
    until every seed of every one of its settings has finished: the choice is made
    once, from the whole sweep."""
    from experiments.lab import findings as f
    best = {}
    for family in ("rnn", "transformer"):
        means = {}
        for name, overrides in SETTINGS.items():
            if overrides.get(f"{MODEL}.family", "rnn") != family:
                continue
            setting = sweeps.member_name(overrides)
            finals = f.member_finals(results, setting)
            if len(finals) < len(SEEDS):
                break
            means[name] = (sum(m["final"][final_key("validation", "bleu_lc")] for m in finals)
                           / len(finals))
        else:
            best[family] = max(means.items(), key=lambda item: item[1])
    return best
