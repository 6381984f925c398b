"""The Task protocol: everything the training loop, the config checks and the sweep
report ask of a task. A task implements it in one class and is registered by name in
``tasks/__init__.py``; nothing outside ``tasks/`` names a task.

A task's life in a run: its class adds its config fragment (``configure``; then
``shrink`` for the ``tiny`` argument) and checks it (``validate``); the training
loop builds it once per cohort (``Task(config, seeds, verbose)``), builds the model
for its vocabulary, then asks it for training batches, held-out evaluations, and at
the end its final evaluation, plots and summary fields.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterator, NamedTuple, Optional, Protocol, Sequence

from attention_research.data import Batch


class Run(NamedTuple):
    """One member as a task sees it at the end: its config, its ``WorkDir``, a title."""

    config: Any
    workdir: Any
    title: str


class Final(NamedTuple):
    """What a task's final evaluation adds for one member."""

    summary: dict  # fields of summary.json beside the generic ones (dataset, decoding, …)
    member: dict  # fields of the member's entry (accuracy by length, samples, …)
    log: dict  # metrics to log at the last step ({} for none), e.g. test BLEU


class Task(Protocol):
    name: ClassVar[str]  # the registry name, the value of config.task.name
    curve_score: ClassVar[str]  # the held-out score learning curves plot: eval/<score>/…

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

    @staticmethod
    def write_sweep_report(workdir, members, summaries, elapsed_s: float) -> None:
        """summary.md, summary.csv and plots comparing a sweep's members."""

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

    def alignment_targets(self, batch: Batch):
        """[B, T]: the source position each target step should attend to, -1 where
        none (EOS, padding); None where the task knows no alignment."""

    # Whether ``evaluate`` also takes ``seen_only=True`` (``train.curve_eval_every``):
    # the held-out lengths seen in training alone, 'metrics' only, for a learning
    # curve on a finer grid than the whole evaluation's.
    curve_evaluation: ClassVar[bool]

    def make_evaluation(self, model, placement) -> Callable[[Any], list[dict]]:
        """``evaluate(stacked params)`` -> one dict per member, each with 'metrics'
        ({'eval/<metric>/<split or range>': float}, logged at every evaluation) and
        whatever ``finish`` needs from it."""

    def pictures(self, result: dict) -> tuple[dict, dict]:
        """One member's evaluation (an item of ``evaluate``'s list) as TensorBoard shows
        it at every evaluation: ({name: [H, W, 3] uint8 heat map}, {name: Markdown of
        sample outputs}), saved under the run's evaluations/ (``WorkDir.log_pictures``)."""

    def progress_line(self, metrics: dict) -> str:
        """The few held-out metrics worth printing during training."""

    def finish(self, params, results: list[dict], runs: Sequence[Run],
               step: int) -> list[Final]:
        """The final evaluation (decoding, BLEU, …) and the task's plots, per member."""
