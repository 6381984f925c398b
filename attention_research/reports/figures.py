"""What a run draws, for each kind of task (its ``evaluation``), and the report each
kind of sweep ends with.

The training loop names no figure: it takes a ``Figures`` (training/evaluation/)
built here from its task (``figures_for``), asks it for the heat maps and samples
TensorBoard shows at every evaluation (``pictures``), and at the end for a finished
member's plots (``draw``: heat maps, accuracy or BLEU by length, explicit against
implicit attention, every head of a Transformer, learning curves). ``attention_research.api``
hands them in; a run started from ``running`` alone draws nothing and scores the same.
"""

from __future__ import annotations

import numpy as np

from attention_research.data import EOS, PAD
from attention_research.metric_names import split_of
from attention_research.reports import heatmaps, plotting, tables
from attention_research.reports import translation as corpus_report
from attention_research.training import held_out


def learning_curves(task, run) -> None:
    plotting.learning_curves(run.workdir.plots_dir / "learning_curves.png",
                             run.workdir.read_metrics(), run.title, score=task.curve_score)


def _has_weights(result) -> bool:
    """Whether an evaluation recorded attention weights (none and fused attention do
    not, and so have no alignment accuracy)."""
    return any(split_of(k, "align_acc") is not None for k in result["metrics"])


class LengthFigures:
    """A held-out set of every length with a known alignment (``by_length``): heat maps
    of the examples at ``task.heatmap_indices`` beside their true alignment, greedy
    samples, sequence accuracy by length."""

    def __init__(self, task):
        self.task = task

    def pictures(self, result) -> tuple[dict, dict]:
        """The heat-map examples' weights (none without explicit attention) and their
        greedy outputs beside the targets."""
        examples = self._heatmap_examples(result)
        has_weights = _has_weights(result)
        trimmed = [heatmaps.trim_example(e) for e in examples]
        images = ({f"attention_{j + 1}_length_{len(source)}": heatmaps.heatmap_pixels(e)
                   for j, (e, (source, _, _)) in enumerate(zip(examples, trimmed))}
                  if has_weights else {})
        names = lambda tokens: " ".join(heatmaps.token_labels(
            t for t in tokens if t not in (PAD, EOS)))
        texts = {"samples": heatmaps.samples_markdown([
            {"length": len(source), "source": names(source), "target": names(e["target"]),
             "output": names(output), "correct": e["correct"]}
            for e, (source, output, _) in zip(examples, trimmed)])}
        return images, texts

    def _heatmap_examples(self, result) -> list[dict]:
        """``heatmaps.attention_heatmaps``' dicts of the held-out heat-map examples."""
        task = self.task
        return [{"source": task.eval_set.source[i], "target": task.eval_set.targets[i],
                 "output": result["examples"]["tokens"][j],
                 "weights": result["examples"]["weights"][j],
                 "correct": bool(result["exact"][i]), "reference": task.heatmap_reference[j]}
                for j, i in enumerate(task.heatmap_indices)]

    def draw(self, run, step, result, final):
        """Heat maps and accuracy by length; explicit against implicit attention."""
        task, maps = self.task, final.figures.get("maps")
        plots, config = run.workdir.plots_dir, run.config
        title = f"{run.title} — {task.name}, step {step}"
        has_weights = _has_weights(result)
        if task.heatmap_indices and has_weights:  # none and fused attention record none
            heatmaps.attention_heatmaps(plots / "attention.png", self._heatmap_examples(result),
                                        title)
        plotting.accuracy_by_length(plots / "seq_acc_by_length.png",
                                    {f"seed {config.seed}": result["by_length"]},
                                    config.task.train_max_length, title)
        if maps is not None and task.heatmap_indices:
            self._explicit_vs_implicit(run, maps, title)
        learning_curves(task, run)

    def _explicit_vs_implicit(self, run, maps, title):
        task, shown = self.task, self.task.heatmap_indices
        examples = held_out.side_by_side(maps, task.eval_set.source[shown],
                                         task.eval_set.targets[shown],
                                         run.config.analysis.implicit)
        for example, reference in zip(examples, task.heatmap_reference):
            example["reference"] = reference  # teacher forced: the same true alignment
        plots = run.workdir.plots_dir
        heatmaps.explicit_vs_implicit(plots / "explicit_vs_implicit.png", examples, title)
        layers = held_out.head_layers(maps, 0)
        if layers:  # a Transformer: every head of the first (shortest) example
            first = shown[0]
            heatmaps.attention_heads(plots / "attention_heads.png", task.eval_set.source[first],
                                     task.eval_set.targets[first], layers, title)


class CorpusFigures:
    """A parallel corpus (``corpus``): the samples' attention over subword pieces, BLEU
    by source length, explicit against implicit attention."""

    def __init__(self, task):
        self.task = task

    def pictures(self, result) -> tuple[dict, dict]:
        """Greedy outputs of a few validation sentences and their heat maps (none
        without explicit attention, which records no weights)."""
        images = {f"attention_{j + 1}": heatmaps.heatmap_pixels(example)
                  for j, example in enumerate(result["drawn"]) if np.any(example["weights"])}
        return images, {"samples": heatmaps.samples_markdown(result["samples"])}

    def draw(self, run, step, result, final):
        plots, labels = run.workdir.plots_dir, self.task.processor.id_to_piece
        title = f"{run.title} — {self.task.config.task.dataset}, step {step}"
        # No attention (none, fused) records no weights.
        examples = [e for e in final.figures["drawn"] if np.any(e["weights"])]
        if examples:  # the four shortest samples: small enough to read every piece
            heatmaps.attention_heatmaps(plots / "attention.png", examples[:4], title,
                                        labels=labels)
        plotting.bleu_by_length(plots / "bleu_by_length.png",
                                {f"seed {run.config.seed}": final.figures["bleu_by_length"]},
                                run.title)
        side_by_side = final.figures["side_by_side"]
        if side_by_side:  # the sample sentences' maps over their subword pieces
            heatmaps.explicit_vs_implicit(plots / "explicit_vs_implicit.png", side_by_side,
                                          title, labels=labels)
            first = side_by_side[0]
            if first["layers"]:  # a Transformer's every head of the first
                heatmaps.attention_heads(plots / "attention_heads.png", first["source"],
                                         first["target"], first["layers"], title,
                                         labels=labels)
        learning_curves(self.task, run)


FIGURES = {"by_length": LengthFigures, "corpus": CorpusFigures}
# summary.md, summary.csv and plots comparing a sweep's members, by kind of task.
SWEEP_REPORTS = {"by_length": tables.write_accuracy_report,
                 "corpus": corpus_report.write_sweep_report}


def figures_for(task) -> LengthFigures | CorpusFigures:
    """The figures of a cohort's ``task`` (by its ``evaluation``)."""
    return FIGURES[task.evaluation](task)


def sweep_report_for(task):
    """``write(workdir, members, summaries, elapsed_s)``: the report of a sweep of
    ``task`` (a task class)."""
    return SWEEP_REPORTS[task.evaluation]
