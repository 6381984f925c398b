"""The implicit analysis (training/held_out.py) of a model on a parallel corpus, once,
on the final parameters (``corpus.py``): the ``task.eval_split`` sentences
teacher-forced on their references, in the evaluation's batches
(pipeline.eval_batches), jitted and vmapped over members.

A corpus's alignment is not known, so there is no alignment accuracy: the
analysis gives Kendall τ_b between the explicit weights and the implicit map over the
reference's pieces (EOS left out), and the ablation drops (agreement.py) — whether
zeroing the source piece the weights rank highest costs the output more than zeroing
the one the implicit map ranks highest, or a random one. The maps of a few sample
sentences are drawn side by side over their subword pieces.
"""

from __future__ import annotations

import jax
import numpy as np

from attention_research.tasks.translation import pipeline
from attention_research.training import held_out
from attention_research.training.evaluation import ranges
from attention_research.training.steps import over_members, teacher_forced

SHOWN = 4  # sample sentences drawn side by side (the shortest: every piece readable)


def make_analysis(task, model, placement):
    """``analyse(stacked params, sample indices)`` -> per member (metrics
    {'eval/<metric>/<split>': value}, heat-map examples for heatmaps.explicit_vs_implicit)."""
    config = task.config
    options, split_name = config.analysis, config.task.eval_split
    transformer = config.model.family == "transformer"
    split = task.splits[split_name]
    longest = config.task.eval_max_length  # collate cuts sources and targets to the batch width
    source_lengths = np.minimum(split.source_lengths, longest)
    # Drawn among the reference's pieces before EOS (collate keeps width − 1 of them).
    draws = held_out.probes(source_lengths, options.target_steps,
                            target_lengths=np.minimum(split.target_lengths - 1, longest - 1))

    def analyse_member(params, batch, probe):
        _, weights = teacher_forced(model, params, batch)
        return held_out.analyse(model, params, batch, weights, None, probe, options,
                                transformer)

    def maps_member(params, batch):
        _, weights = teacher_forced(model, params, batch)
        maps = held_out.heatmap_maps(model, params, batch, options, transformer)
        if weights is not None:
            maps["forced_weights"] = weights
        return maps

    analyse_batch = over_members(analyse_member, placement, shared=2)
    draw_maps = over_members(maps_member, placement)

    def analyse(params, samples) -> list[tuple[dict, list]]:
        sums = None
        for rows, batch in pipeline.eval_batches(split, config.task.eval_batch_size,
                                                 task.eval_widths):
            padded = list(rows) + [rows[-1]] * (batch.source.shape[0] - len(rows))
            probe = tuple(d[padded] for d in draws)
            stats = jax.device_get(analyse_batch(params, batch, probe))
            if sums is None:
                members = next(iter(stats.values())).shape[0]
                sums = {k: np.zeros((members, len(split)), np.float64) for k in stats}
            for key, value in stats.items():  # the filler rows repeat the last: dropped
                sums[key][:, rows] = value[:, :len(rows)]
        whole = [(split_name, 0, np.iinfo(np.int32).max)]  # one range: the split
        metrics = [ranges.analysis_metrics({k: v[m] for k, v in sums.items()},
                                           source_lengths, whole)
                   for m in range(members)]
        examples = _examples(samples, split, task.eval_widths, draw_maps, params, members,
                             options.implicit)
        return list(zip(metrics, examples))
    return analyse


def _examples(samples, split, widths, draw_maps, params, members, method):
    """Per member, the side-by-side examples of the ``SHOWN`` shortest ``samples``
    (dicts for heatmaps.explicit_vs_implicit); a Transformer's first also carries
    'layers', every head's weights (held_out.head_layers)."""
    shown = sorted(samples, key=lambda i: split.source_lengths[i])[:SHOWN]
    if not shown:
        return [[] for _ in range(members)]
    longest = max(max(split.source_lengths[i], split.target_lengths[i]) for i in shown)
    width = next((w for w in sorted(widths) if w >= longest), max(widths))
    batch = pipeline.collate([split.sources[i] for i in shown],
                             [split.targets[i] for i in shown], width)
    maps = jax.device_get(draw_maps(params, batch))
    found = []
    for m in range(members):
        own = {k: v[m] for k, v in maps.items()}
        examples = held_out.side_by_side(own, batch.source, batch.targets, method)
        examples[0]["layers"] = held_out.head_layers(own, 0)
        found.append(examples)
    return found
