"""The registry of model families, and the protocol every family's model follows.

A family registers itself in its own module (``register_family`` at the end of
``rnn.py``, ``transformer.py``) with how to build its model from a config, how to
check the config's ``model`` section for it, the defaults it sets in that section,
and a one-line description for titles. Nothing else names a family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol

import jax.numpy as jnp


class EncoderDecoder(Protocol):
    """What training, evaluation and decoding ask of a model (a Flax module).

    ``__call__`` is teacher forcing; ``start_decoding`` and ``decode_step`` are the
    decoding protocol of ``decoding.py`` (greedy and beam search), called through
    ``model.apply(..., method=...)``.
    """

    def __call__(self, source: jnp.ndarray, target_inputs: jnp.ndarray,
                 train: bool = False) -> tuple[jnp.ndarray, Optional[jnp.ndarray]]:
        """source [B, S], target_inputs [B, T] -> (logits [B, T, V], weights [B, T, S]
        or None when the model records no attention weights)."""

    def start_decoding(self, source: jnp.ndarray, max_length: int) -> tuple[Any, Any]:
        """Encode ``source`` once: (memory, carry) before the first decoding step; a
        carry that grows with the output (a key/value cache) is sized ``max_length``."""

    def decode_step(self, carry: Any, tokens: jnp.ndarray, memory: Any,
                    step: Any) -> tuple[Any, jnp.ndarray, Optional[jnp.ndarray]]:
        """Previous tokens [B] at output position ``step`` -> (carry, logits [B, V],
        attention weights [B, S] or None)."""


@dataclass(frozen=True)
class Family:
    name: str
    build: Callable[..., EncoderDecoder]  # (config, source_vocab_size, target_vocab_size)
    validate: Callable[[Any], None]  # config -> None; raises ConfigError
    defaults: Callable[[Any], None]  # sets the family's defaults in config.model
    describe: Callable[[Any], str]  # config -> e.g. "additive attention, luong decoder"
    # Config fields its model never reads (another family's): two configs that differ in
    # them alone train the same model (running/adopt.py; tests/test_models.py checks).
    ignores: frozenset = frozenset()


FAMILIES: dict[str, Family] = {}


def register_family(name: str, *, build, validate, defaults, describe, ignores=()):
    FAMILIES[name] = Family(name, build, validate, defaults, describe, frozenset(ignores))


def max_source_length(config) -> int:
    """The longest source the model must handle: the field, or the task's longest."""
    return config.model.max_source_length or config.task.eval_max_length


def attention_kwargs(config) -> dict:
    """The make_attention arguments a config's ``model.attention`` section sets."""
    attention = config.model.attention
    return dict(score=attention.score, alignment=attention.alignment,
                attention_dim=attention.dim, max_length=max_source_length(config),
                window=attention.window, soft_fraction=attention.hard.soft_fraction,
                soft_unit=attention.hard.soft_unit,
                test_context=attention.hard.test_context,
                num_heads=attention.num_heads, head_dim=attention.head_dim,
                normalizer=attention.normalizer, filters=attention.location_filters,
                filter_width=attention.location_width,
                monotonic_bias=attention.monotonic.bias, monotonic_noise=attention.monotonic.noise)
