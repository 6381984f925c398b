"""A trained run in a notebook: ``run = attention_research.load("runs/additive")``, then
``run.predict([...])``, ``run.attention("...")`` and ``run.evaluate(split=...)``
(docs/using.md). It reads the work directory only."""

from __future__ import annotations

from pathlib import Path

from attention_research.use import attending, evaluating, loading, predicting


class TrainedRun:
    """One trained model (a run, or a sweep's member) with the parameters its final
    evaluation uses, or a checkpoint's (``step``)."""

    def __init__(self, restored: loading.Restored):
        self.restored = restored
        self.config, self.task = restored.config, restored.task

    def __repr__(self) -> str:
        return f"TrainedRun({loading.describe_source(self.restored)})"

    def _decoding(self, beam_size, length_penalty) -> dict:
        task = self.config.task
        return {"beam_size": task.get("beam_size", 1) if beam_size is None else beam_size,
                "length_penalty": (task.get("length_penalty", 0.6) if length_penalty is None
                                   else length_penalty)}

    def predict(self, inputs, beam_size: int | None = None,
                length_penalty: float | None = None, n_best: int = 1,
                batch_size: int = 64) -> list[predicting.Prediction]:
        """Outputs for ``inputs`` (a string or a list of them: sentences, or symbol
        sequences such as '3 1 4'); each Prediction's ``.text`` is the best, its
        ``.hypotheses`` the n-best list. Beam size and length penalty default to the run's
        final evaluation's (greedy for the symbol tasks)."""
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        return predicting.predict(self.restored, texts, n_best=n_best, batch_size=batch_size,
                                  **self._decoding(beam_size, length_penalty))

    def attention(self, inputs, implicit: str = attending.DEFAULT_IMPLICIT,
                  folder=None, beam_size: int | None = None,
                  length_penalty: float | None = None):
        """The attention for ``inputs`` (a string or a list): a list of Attended, whose
        ``.maps`` hold the arrays ('weights', 'implicit', and for a Transformer 'rollout'
        and 'heads/<kind>/<layer>'). With ``folder``: (that list, the paths written
        there: the heat maps (PNG), the arrays (attention.npz) and the HTML page)."""
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        attended = attending.attend(self.restored, texts, implicit,
                                    **self._decoding(beam_size, length_penalty))
        if folder is None:
            return attended
        return attended, write_all(folder, attended, self.restored, implicit)

    def evaluate(self, split: str | None = None, source=None, reference=None,
                 lengths: tuple[int, int] | None = None, beam_size: int | None = None,
                 length_penalty: float | None = None, eval_seed: int | None = None) -> dict:
        """Scores as the run reports them: a corpus on ``split`` (default: the run's test
        split) or on ``source`` and ``reference`` files; a symbol task on ``lengths``, on
        the run's held-out set or on a fresh one drawn from ``eval_seed``."""
        return evaluating.evaluate(self.restored, split, source, reference, lengths,
                                   beam_size, length_penalty, eval_seed)


def write_all(folder, attended, restored, implicit: str) -> list[Path]:
    """Heat maps, arrays and the HTML page of ``attended`` in ``folder`` (made if new)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return [*attending.write_figures(folder, attended, restored, implicit),
            attending.write_arrays(folder / "attention.npz", attended),
            attending.write_page(folder / "attention.html", attended, restored, implicit)]


def load(workdir, member: str | None = None, step: int | None = None) -> TrainedRun:
    """The trained model of ``workdir`` (a sweep's ``member``: its name or a part only it
    holds), with the parameters its final evaluation uses, or checkpoint ``step``'s."""
    return TrainedRun(loading.restore(workdir, member, step))
