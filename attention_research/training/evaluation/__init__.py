"""Running a cohort's members over held-out data: one evaluation for each kind of task,
named by the task's ``evaluation`` class attribute, so that a task holds its data and
this layer runs the models over it.

* ``by_length`` (``by_length.py``): a held-out set of every length with a known
  alignment (the symbol tasks): teacher-forced loss and accuracy, greedy exact match,
  alignment accuracy and entropy, by length range; the implicit analysis at the end.
* ``corpus`` (``corpus.py``): a parallel corpus (text in, text out): validation loss
  and greedy BLEU during training; at the end the test split decoded with beam search
  and scored with sacrebleu, the decoded text written beside the run.

An evaluation is built once per cohort, ``EVALUATIONS[kind](task, model, placement)``,
and gives what the loop asks (``Evaluation``). The figures drawn from its results are
the reports layer's (``reports/figures.py``): the loop takes them as ``Figures``,
handed in from above, and draws nothing itself.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar, NamedTuple, Protocol, Sequence

# kind -> (module, class), imported when first asked for: a symbol task's run never
# imports the corpus evaluation's sacrebleu and subword readers (issue 39).
_WHERE = {"by_length": ("attention_research.training.evaluation.by_length", "LengthEvaluation"),
          "corpus": ("attention_research.training.evaluation.corpus", "CorpusEvaluation")}


class Run(NamedTuple):
    """One member as its final evaluation sees it: its config, its ``WorkDir``, a title."""

    config: Any
    workdir: Any
    title: str


class Final(NamedTuple):
    """What a final evaluation adds for one member."""

    summary: dict  # fields of summary.json beside the generic ones (dataset, decoding, …)
    member: dict  # fields of the member's entry (accuracy by length, samples, …)
    log: dict  # metrics to log at the last step ({} for none), e.g. test BLEU
    figures: dict  # what only the figures read (heat-map maps, decoded samples)


class Evaluation(Protocol):
    # Whether ``__call__`` also takes ``seen_only=True`` (``train.curve_eval_every``):
    # the held-out lengths seen in training alone, 'metrics' only, for a learning
    # curve on a finer grid than the whole evaluation's.
    curve_evaluation: ClassVar[bool]

    def __init__(self, task, model, placement) -> None: ...

    def __call__(self, params, seen_only: bool = False) -> list[dict]:
        """``evaluate(stacked params)`` -> one dict per member, each with 'metrics'
        ({'eval/<metric>/<split or range>': float}, logged at every evaluation) and
        whatever ``finish`` and the figures need from it."""

    def progress_line(self, metrics: dict) -> str:
        """The few held-out metrics worth printing during training."""

    def finish(self, params, results: list[dict], runs: Sequence[Run],
               step: int) -> list[Final]:
        """The final evaluation (decoding, BLEU, the implicit analysis, …), per member."""


class Figures(Protocol):
    """What the loop draws, from a cohort's task (reports/figures.py builds them)."""

    def pictures(self, result: dict) -> tuple[dict, dict]:
        """One member's evaluation (an item of ``evaluate``'s list) as TensorBoard shows
        it at every evaluation: ({name: [H, W, 3] uint8 heat map}, {name: Markdown of
        sample outputs}), saved under the run's evaluations/ (``WorkDir.log_pictures``)."""

    def draw(self, run: Run, step: int, result: dict, final: Final) -> None:
        """A finished member's plots (heat maps, accuracy by length, learning curves)."""


def evaluation_class(task) -> type:
    """The evaluation of ``task`` (a task class or instance), by its ``evaluation``."""
    module, name = _WHERE[task.evaluation]
    return getattr(importlib.import_module(module), name)


def make_evaluation(task, model, placement) -> Evaluation:
    """The cohort's evaluation of ``task``'s held-out data with ``model``."""
    return evaluation_class(task)(task, model, placement)
