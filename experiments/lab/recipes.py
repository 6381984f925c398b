"""The translation recipes this project's experiments were recorded with, each named by
the experiment that chose it. An experiment recorded at one pins it (``use_recipe``), so
that a rerun trains what its record reports when the defaults
(``tasks/translation/task.py``'s ``DEFAULTS``) move on. Each: config fields (dotted,
under config), and under "transformer" and "rnn" those of the model family (every
family other than the Transformer takes "rnn"'s).
"""

from __future__ import annotations

from attention_research.metric_names import eval_key
from attention_research.errors import require
from attention_research.tasks.translation.task import set_fields

RECIPES = {
    # experiments/translation_recipe.py's choice on ding_de_en's validation split (its
    # best mean BLEU; not separated from the first recipe by its 2 seeds): label
    # smoothing 0.1 and one embedding matrix for source, target and output, 8000 steps
    # (about 27 epochs), and the test split translated with the parameters of the best
    # greedy validation BLEU, checked every 500 steps. Multi30k's defaults
    # (multi30k_recipe's choice) are these with 8,000 pieces and lowercased BLEU.
    "translation_recipe": {
        "task.vocab_size": 2000, "model.embed_dim": 128, "model.hidden_size": 128,
        "model.attention.dim": 128, "model.tie_embeddings": "all",
        "train.batch_size": 64, "train.learning_rate": 2e-3, "train.warmup_steps": 200,
        "train.label_smoothing": 0.1, "train.num_steps": 8000, "train.eval_every": 500,
        "train.best_metric": eval_key("bleu", "validation"),
        "transformer": {"model.ff_dim": 512, "model.dropout": 0.1},
        "rnn": {"model.dropout": 0.2}},
}

# What the first defaults (before translation_recipe) changed of its recipe: 3000
# steps, the last parameters, no smoothing, no tying.
FIRST_RECIPE = {"model.tie_embeddings": "none", "train.label_smoothing": 0.0,
                "train.num_steps": 3000, "train.eval_every": 1000, "train.best_metric": ""}


def use_recipe(config, name: str):
    """Train by the recipe ``name`` of ``RECIPES`` (sizes, regularisation, steps,
    checkpoint selection), for the config's model family."""
    require(name in RECIPES, f"unknown translation recipe {name!r}; the recipes are: "
                             f"{', '.join(RECIPES)}")
    return set_fields(config, RECIPES[name])


def use_first_recipe(config):
    """The defaults before translation_recipe (3000 steps, the last parameters, no
    smoothing, no tying; the rest translation_recipe's)."""
    return set_fields(use_recipe(config, "translation_recipe"), FIRST_RECIPE)


def pinned(name: str):
    """``use_recipe`` with ``name`` as a function of the config alone, for
    ``configs/transformer.translation_overrides``."""
    return lambda config: use_recipe(config, name)
