"""Transformer encoder-decoder (Vaswani et al. 2017), pre-LayerNorm, sinusoidal positions,
with a pluggable score in self- and cross-attention: scaled_dot (the paper) by
default; any other score registered as usable in the Transformer as an ablation
(dot, general, additive, cosine).

    python launch.py --config=configs/transformer.py
    python launch.py --config=configs/transformer.py:score=additive
    python launch.py --config=configs/transformer.py:task=copy,score=dot
    python launch.py --config=configs/transformer.py:task=translation
"""

from attention_research.attention import transformer_scores
from configs import base

ARGUMENTS = {"task": base.ARGUMENTS["task"], "score": tuple(transformer_scores())}


def get_config(arg=None):
    choices = base.parse_argument(arg, ARGUMENTS)
    config = base.get_config(choices={k: v for k, v in choices.items() if k != "score"},
                             family="transformer")
    score = choices.get("score", "scaled_dot")
    config.name = "transformer" if score == "scaled_dot" else f"transformer-{score}"
    config.model.attention.score = score
    if choices.get(base.TINY):
        # One layer each side still runs every attention (encoder self, decoder self,
        # cross) and halves what XLA compiles: a cold smoke run in 12.4 s, not 19.1 s
        # (docs/configs.md), under issue 38's 15 s.
        config.model.num_layers = 1
    return config


# The fields a sweep sets to make a member of an RNN base config this Transformer.
SWEEP_FIELDS = ("family", "attention.score", "attention.num_heads", "num_layers", "ff_dim",
                "dropout")


def translation_overrides(pin=None) -> dict:
    """The sweep overrides that turn a member of a translation sweep (its base config the
    RNN of configs/base.py) into this file's Transformer, at today's translation defaults
    or, given ``pin`` (config -> config: an experiment's pinned recipe), at that recipe:
    the fields of ``SWEEP_FIELDS``, then any other model, train or task field the two
    configs set apart (a recipe's sizes or vocabulary for the Transformer alone), so that
    the member trains what ``configs/transformer.py:task=translation`` does."""
    from attention_research.running.config_changes import flatten
    pinned = pin or (lambda c: c)
    ours = pinned(get_config("task=translation"))
    rnn = pinned(base.get_config("task=translation"))
    overrides = {}
    for section in ("model", "train", "task"):
        flat = lambda config: flatten(config[section].to_dict())
        mine, theirs = flat(ours), flat(rnn)
        fields = (list(SWEEP_FIELDS) if section == "model" else []) + [
            f for f in mine if f not in SWEEP_FIELDS and mine[f] != theirs.get(f)]
        overrides.update({f"config.{section}.{f}": mine[f] for f in fields})
    return overrides

