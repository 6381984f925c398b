"""The registries of scores and alignments. Every list of names, config choice and
error message about them is derived from here.

A score registers itself where it is defined (``@register_score`` in ``scores.py``),
with the properties the rest of the code asks about; an alignment likewise
(``register_alignment`` in ``attention.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

NO_ATTENTION = "none"  # the fixed-context baseline: a choice of score with no score module


@dataclass(frozen=True)
class ScoreEntry:
    name: str
    module: type  # a ``scores.Score`` subclass
    equal_sizes: bool  # compares q with k_s directly, so both need one size (dot)
    transformer: bool  # can drive Transformer self- and cross-attention
    # Reads the attention history (the previous step's weights, their running sum) that
    # only a recurrent decoder carries; such a score needs one query per step, one head.
    reads_history: bool
    paper: str


@dataclass(frozen=True)
class AlignmentEntry:
    name: str
    local: bool  # a softmax inside a window around a centre p_t
    multihead: bool  # can run inside projected heads
    transformer: bool  # usable in the Transformer
    # Builds, from the config's model.attention section, the extra loss this alignment
    # trains with (see ``reinforce.py``); None: the likelihood alone.
    training_signal: Optional[Callable]
    paper: str
    # Reads the previous step's weights (monotonic: where the last step stopped), which
    # only a recurrent decoder carries: RNN-only, one query per step, one head.
    reads_history: bool = False
    # α_0, the weights "before the first step": uniform over the source, or all on its
    # first position (monotonic attention starts reading there).
    history_start: str = "uniform"


SCORES: dict[str, ScoreEntry] = {}
ALIGNMENTS: dict[str, AlignmentEntry] = {}
ALIASES = {"concat": "additive"}  # Luong et al. call Bahdanau's score "concat"


def register_score(name: str, *, paper: str, equal_sizes: bool = False,
                   transformer: bool = True, reads_history: bool = False):
    """Class decorator: register a score module under ``name``."""
    def add(module):
        SCORES[name] = ScoreEntry(name, module, equal_sizes, transformer and not reads_history,
                                  reads_history, paper)
        return module
    return add


def register_alignment(name: str, *, paper: str, local: bool = False, multihead: bool = True,
                       transformer: bool = False, training_signal: Optional[Callable] = None,
                       reads_history: bool = False, history_start: str = "uniform"):
    ALIGNMENTS[name] = AlignmentEntry(name, local, multihead and not reads_history,
                                      transformer and not reads_history, training_signal,
                                      paper, reads_history, history_start)


def score_names() -> list[str]:
    """Every name a config may use for ``model.attention.score``."""
    return [*SCORES, *ALIASES, NO_ATTENTION]


def canonical_score(name: str) -> str:
    """The registered name of a score (aliases resolved); unknown names are refused."""
    name = ALIASES.get(name, name)
    if name not in SCORES and name != NO_ATTENTION:
        raise ValueError(
            f"unknown attention score {name!r}; valid choices: {', '.join(score_names())}")
    return name


def transformer_scores() -> list[str]:
    return [name for name, entry in SCORES.items() if entry.transformer]


def transformer_alignments() -> list[str]:
    return [name for name, entry in ALIGNMENTS.items() if entry.transformer]
