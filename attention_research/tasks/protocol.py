"""The Task protocol: everything the training loop, the config checks and the sweep
report ask of a task. A task implements it in one class and is registered by name in
``tasks/__init__.py``; nothing outside ``tasks/`` names a task.

A task holds data: its vocabulary, training batches, held-out sets, known
alignments, the definitions of its metrics, its config fragment and its validation.
Its class adds its config fragment (``configure``; then ``shrink`` for the ``tiny``
argument) and checks it (``validate``); the training loop builds it once per cohort
(``Task(config, seeds, verbose)``), builds the model for its vocabulary, and asks it
for training batches. Running the models over its held-out data is the evaluation
its ``evaluation`` names (training/evaluation/); drawing them is the reports
layer's (reports/figures.py).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterator, Optional, Protocol, Sequence

from attention_research.data import Batch


class Task(Protocol):
    name: ClassVar[str]  # the registry name, the value of config.task.name
    curve_score: ClassVar[str]  # the held-out score learning curves plot: eval/<score>/…
    # The kind of held-out data, and so the evaluation that runs models over it and
    # the figures and sweep report drawn from it: 'by_length' or 'corpus'.
    evaluation: ClassVar[str]

    # Its config fragment: the fields of config.task (every fragment has
    # eval_max_length, the longest source the model must handle), with defaults.
    @classmethod
    def configure(cls, config) -> None:
        """Add the task's fields to ``config.task``; adjust run defaults it needs."""

    @classmethod
    def shrink(cls, config) -> None:
        """The ``tiny`` argument: task sizes for a seconds-long smoke run."""

    @classmethod
    def validate(cls, config) -> None:
        """Raise ``errors.ConfigError`` naming the field for impossible task settings."""

    @classmethod
    def selection_metrics(cls, config) -> tuple[str, ...]:
        """The held-out metrics (keys of an evaluation's 'metrics') by which
        ``train.best_metric`` may pick the parameters the final evaluation uses."""

    def __init__(self, config, seeds: Sequence[int], verbose: bool) -> None: ...

    vocab_size: int  # one joint vocabulary for source and target

    def example_batch(self) -> Batch:
        """A batch of the shapes training uses, to initialise a model."""

    # Training batches come one of two ways. A task that samples its batches on the
    # device gives ``sample_batch(key) -> Batch`` (jit-traceable; the train step
    # calls it with a key folded from the member's seed and the step). Otherwise
    # ``sample_batch`` is None and ``host_batches(first_call, placement)`` yields,
    # for every train call from ``first_call`` on, the Batch of [M, K, B, L] global
    # arrays placed with ``placement.batch_blocks``.
    sample_batch: Optional[Callable[[Any], Batch]]

    def host_batches(self, first_call: int, placement) -> Iterator[Batch]: ...

    # Using a trained model on inputs of one's own (attention_research/use/): one line
    # of input as source tokens, output tokens as text, one token as a label.
    def encode(self, text: str):
        """One input line -> its source tokens (int32 array, no EOS); raises
        ``errors.InputError`` naming what the vocabulary cannot hold."""

    def decode(self, tokens) -> str:
        """Output tokens (up to EOS; PAD ignored) -> their text."""

    def label(self, token: int) -> str:
        """One token's text on a heat map's axis (a symbol, a subword piece)."""

    def output_length(self, source_width: int) -> int:
        """The most output steps decoded for sources of ``source_width`` tokens, as the
        task's own evaluation decodes them."""

    def alignment_targets(self, batch: Batch):
        """[B, T]: the source position each target step should attend to, -1 where
        none (EOS, padding); None where the task knows no alignment."""
