"""The name of every metric a run logs, built here and nowhere else.

A held-out metric is ``eval/<metric>/<split>``: the metric (``seq_acc``,
``align_acc``, ``bleu``, …) on a split, which is a held-out length range
(``len1-25``, ``length_range``) or a corpus split (``validation``, ``test``). A
sweep's report and summary.csv drop the ``eval/`` (``column``: ``seq_acc/len1-25``)
and add columns of their own: the area under a learning curve (``auc``) and a
metric at an early step (``at_step``). Training rows are ``train/<metric>``, and
every row has ``time_s``, the seconds since the run began.
"""

from __future__ import annotations

HELD_OUT = "eval/"
TRAIN = "train/"
TIME = "time_s"  # seconds since the run began, in every logged row

TRAIN_LOSS = TRAIN + "loss"
TRAIN_TOKEN_ACC = TRAIN + "token_acc"
TRAIN_GRAD_NORM = TRAIN + "grad_norm"
TRAIN_TOKENS_PER_S = TRAIN + "tokens_per_s"
TRAIN_GFLOP_PER_S = TRAIN + "gflop_per_s"

# "Solved": a member's summary records when its seen lengths' sequence accuracy first
# reached this, by step and by time; a sweep's summary.csv by step and time too.
SOLVED_SEQ_ACC = 0.99
FIRST_STEP_SOLVED = f"first_step_seq_acc_{SOLVED_SEQ_ACC}"
TIME_TO_SOLVED = f"time_to_seq_acc_{SOLVED_SEQ_ACC}_s"
STEP_TO_SOLVED_COLUMN = f"step_to_{SOLVED_SEQ_ACC}"
TIME_TO_SOLVED_COLUMN = f"time_to_{SOLVED_SEQ_ACC}_s"


def length_range(first: int, last: int) -> str:
    """'len1-25': the held-out sources of ``first`` to ``last`` symbols."""
    return f"len{first}-{last}"


def eval_key(metric: str, split: str) -> str:
    """'eval/seq_acc/len1-25': ``metric`` on a held-out ``split``, as logged."""
    return f"{HELD_OUT}{metric}/{split}"


def column(metric: str, split: str) -> str:
    """'seq_acc/len1-25': a held-out metric as a report's row or summary.csv names it."""
    return f"{metric}/{split}"


def as_column(key: str) -> str:
    """'eval/seq_acc/len1-25' -> 'seq_acc/len1-25'."""
    return key.removeprefix(HELD_OUT)


def prefix(metric: str) -> str:
    """'eval/seq_acc/': what every split's key of ``metric`` begins with."""
    return f"{HELD_OUT}{metric}/"


def split_of(key: str, metric: str) -> str | None:
    """The split of ``key`` if it is ``metric``'s held-out key, else None."""
    return key.removeprefix(prefix(metric)) if key.startswith(prefix(metric)) else None


def final_key(split: str, metric: str) -> str:
    """'test/bleu': a split decoded at the end and scored (a corpus's final scores,
    split first; 'test.lp_tuned/bleu' at the tuned length penalty)."""
    return f"{split}/{metric}"


AUC_FROM_STEP = "auc_from_step"  # the first step of the curve under the area (``auc``)


def auc(name: str) -> str:
    """'auc_seq_acc/len1-25': the area under a column's learning curve."""
    return f"auc_{name}"


def at_step(name: str, step: int | str = "") -> str:
    """'seq_acc/len1-25@step500': a column's value at an early step (``step`` '' gives
    the prefix every step's column begins with)."""
    return f"{name}@step{step}"
