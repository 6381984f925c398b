"""The figures a run or a sweep leaves in ``plots/``: learning curves, sequence accuracy
and BLEU by length (attention heat maps: ``heatmaps.py``). Plain matplotlib (Agg),
one function per figure, and the helpers every figure shares (``save``).

Figures that compare settings show each setting's mean over seeds with its 95% t
interval (``stats.t_interval``) as a band or error bars, give every series its own
colour and marker (``series_styles``), and put one legend beside the axes, never
over them, after the axes are laid out."""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

import numpy as np

from attention_research.metric_names import TRAIN_LOSS, eval_key, split_of
from attention_research.reports import stats

MARKERS = "os^DvP*X<>hp"


class _Pyplot:
    """matplotlib.pyplot (Agg), imported when a figure is first drawn: importing it
    costs about 0.6 s, which a run's start should not pay before it trains (issue 39)."""

    def __getattr__(self, name):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
        return getattr(matplotlib.pyplot, name)


plt = _Pyplot()


@functools.cache
def map_colours():
    """Attention maps on [0, 1]; masked values (exact zeros) white, in figures and in
    pixels. matplotlib's colormaps need no pyplot (TensorBoard's pictures draw none)."""
    import matplotlib
    return matplotlib.colormaps["viridis"].with_extremes(bad="white")


def series_styles(count: int) -> list[dict]:
    """A colour and a marker for each of ``count`` series: the colours all differ
    (tab10, then tab20 dark before light, then evenly spaced on a continuous map), and
    so do the markers of any twelve series in a row."""
    if count <= 10:
        colours = plt.cm.tab10.colors[:count]
    elif count <= 20:
        colours = (plt.cm.tab20.colors[::2] + plt.cm.tab20.colors[1::2])[:count]
    else:
        colours = [plt.cm.turbo(0.05 + 0.9 * i / (count - 1)) for i in range(count)]
    return [{"color": colour, "marker": MARKERS[i % len(MARKERS)]}
            for i, colour in enumerate(colours)]


def save(fig, path, title=None, axes=(), legend_size=8, shared_legend=False,
         legend_beside=False, legend_every=1):
    """Grid and legend on ``axes``, the title, then write the figure and free it.

    ``shared_legend``: the axes plot the same series, so one legend for the figure,
    beside the axes. It is placed after ``tight_layout`` has sized the axes and
    ``bbox_inches="tight"`` widens the saved figure to take it in, so however many
    series there are the axes keep their size. ``legend_beside``: small multiples, a
    legend beside every ``legend_every``-th axes (the last of each row)."""
    for ax in axes:
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    # Keep half an inch above the axes for the title, however tall the figure is
    # (tight_layout alone lets a tall grid's first row run into it).
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()) if title else None)
    outside = False  # a legend beside the axes, outside what tight_layout fitted
    if shared_legend and axes:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, fontsize=legend_size, loc="upper left",
                   bbox_to_anchor=(1.0, 0.95), frameon=False)
        outside = True
    elif legend_beside:  # small multiples: each row's legend beside its last axes
        for ax in list(axes)[legend_every - 1::legend_every]:
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                          frameon=False)
                outside = True
    else:
        for ax in axes:
            if len(ax.get_legend_handles_labels()[0]) > 5:  # many series: beside the axes
                ax.legend(fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.01, 1.0))
                outside = True
            elif ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=legend_size)
    # Written to a temporary name and renamed, so that a kill or a full disk midway
    # leaves the old plot, never a truncated one (issue 37 found a 0-byte attention.png).
    path = Path(path)
    partial = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    try:
        # bbox_inches="tight" widens the image to take in a legend outside the axes;
        # it costs a second drawing of the figure (a third of a run's plotting time),
        # so a figure tight_layout has fitted already is written as it is.
        fig.savefig(partial, dpi=90, bbox_inches="tight" if outside else None)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
        plt.close(fig)


def mean_band(ax, x, runs, style, label, log=False, **line):
    """The mean over runs (rows) with its 95% t interval as a band; one run: a line.
    ``log``: for a positive quantity on a log axis (a loss), the interval of the mean
    log, drawn as the geometric mean and its interval, so the band never crosses 0."""
    runs = np.asarray(runs, float)
    runs = np.log(runs) if log else runs
    back = np.exp if log else np.asarray
    intervals = [stats.t_interval(column) for column in runs.T]
    mean = back(np.array([i.mean for i in intervals]))
    every = max(1, len(x) // 10)
    ax.plot(x, mean, label=label, markevery=every, **style, **line)
    if runs.shape[0] > 1:
        ax.fill_between(x, back(np.array([i.low for i in intervals])),
                        back(np.array([i.high for i in intervals])),
                        alpha=0.15, color=style["color"], linewidth=0)


def learning_curves(path, records, title: str, score: str = "seq_acc"):
    """Training and held-out loss (``eval/loss/…``), and a held-out score
    (``eval/<score>/…``: sequence accuracy, or BLEU for translation) against the step,
    per member."""
    fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(11, 4))
    members = sorted({r["member"] for r in records})
    for member in members:
        of_member = [r for r in records if r["member"] == member]
        train = [(r["step"], r[TRAIN_LOSS]) for r in of_member if TRAIN_LOSS in r]
        suffix = f", member {member}" if len(members) > 1 else ""
        color = None
        if train:
            color = loss_ax.plot(*zip(*train), label=f"train{suffix}")[0].get_color()
        # The held-out loss beside the training loss: where they part, the model overfits.
        # One colour per member; each held-out split or length range its own dash.
        losses = sorted({k for r in of_member for k in r if split_of(k, "loss") is not None})
        for key, dash in zip(losses, itertools.cycle(["--", ":", "-."])):
            points = [(r["step"], r[key]) for r in of_member if r.get(key) is not None]
            loss_ax.plot(*zip(*points), marker="o", markersize=3, linestyle=dash, color=color,
                         label=f"{split_of(key, 'loss')}{suffix}")
        evals = [r for r in of_member if any(split_of(k, score) is not None for k in r)]
        for key in sorted({k for r in evals for k in r if split_of(k, score) is not None}):
            points = [(r["step"], r[key]) for r in evals if r.get(key) is not None]
            label = split_of(key, score)
            acc_ax.plot(*zip(*points), marker="o",
                        label=label if len(members) == 1 else f"{label}, member {member}")
    loss_ax.set(xlabel="step", ylabel="loss (nats/token)", yscale="log",
                title="training and held-out loss")
    plain_log_ticks(loss_ax)
    if score == "seq_acc":
        acc_ax.set(xlabel="step", ylabel="greedy sequence accuracy", ylim=(-0.02, 1.02),
                   title="held-out sequence accuracy")
    else:
        acc_ax.set(xlabel="step", ylabel=f"greedy {score.upper()}", title=f"held-out {score}")
    save(fig, path, title, axes=(loss_ax, acc_ax))


def bleu_by_length(path, scores, title: str):
    """BLEU per source-length bucket, one line per label (Bahdanau et al. 2015, Fig. 2),
    with error bars where a bucket has an interval.

    ``scores``: {label: {bucket: {'bleu': …, 'count': n, optionally 'low', 'high'}}},
    buckets in order."""
    fig, ax = plt.subplots(figsize=(7, 4))
    styles = series_styles(len(scores))
    for offset, (style, (label, buckets)) in enumerate(zip(styles, scores.items())):
        names = list(buckets)
        # Each series a little to the side, so that error bars do not hide each other.
        x = np.arange(len(names)) + 0.06 * (offset - (len(scores) - 1) / 2)
        bleu = np.array([buckets[n]["bleu"] for n in names])
        if all("low" in buckets[n] for n in names):
            below = bleu - np.array([buckets[n]["low"] for n in names])
            above = np.array([buckets[n]["high"] for n in names]) - bleu
            ax.errorbar(x, bleu, yerr=[below, above], capsize=3, label=label, **style)
        else:
            ax.plot(x, bleu, label=label, **style)
        ax.set_xticks(range(len(names)),
                      [f"{n}\n({buckets[n]['count']})" for n in names], fontsize=8)
    ax.set(xlabel="source length in words (sentences)", ylabel="BLEU", title=title)
    save(fig, path, axes=(ax,))


def accuracy_by_length(path, accuracies, train_max_length: int, title: str):
    """Greedy sequence accuracy per source length; ``accuracies``: {label: {length: acc}}."""
    accuracy_by_length_spread(path, {label: [acc] for label, acc in accuracies.items()},
                              train_max_length, title)


def accuracy_by_length_spread(path, accuracies, train_max_length: int, title: str,
                              ylabel: str = "greedy sequence accuracy",
                              xlabel: str = "source length", panels=None):
    """Mean accuracy per length with its 95% interval over seeds; ``accuracies``:
    {label: [{length: acc} per seed]}. ``panels`` (``Panels``): small multiples, one
    axes per group with the reference in grey, once there are more than
    ``MAX_SERIES`` series."""
    def draw(ax, labels, styles):
        for label, style in zip(labels, styles):
            runs = accuracies[label]
            lengths = sorted(runs[0])
            mean_band(ax, lengths, [[run[n] for n in lengths] for run in runs], style,
                      _shown_label(panels, label), markersize=4)
        ax.axvline(train_max_length + 0.5, color="gray", linestyle="--", label="longest trained")
        ax.set(ylabel=ylabel, ylim=(-0.02, 1.02))
    if panels is not None and len(accuracies) > MAX_SERIES:
        axes = panels.draw(list(accuracies), lambda ax, labels, styles: draw(ax, labels, styles))
        axes[-1].set(xlabel=xlabel)
        save(axes[0].figure, path, title, axes=axes, legend_beside=True)
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    draw(ax, list(accuracies), series_styles(len(accuracies)))
    ax.set(xlabel=xlabel, title=title)
    save(fig, path, axes=(ax,), shared_legend=len(accuracies) > 1)


MAX_SERIES = 8  # more series than this in one axes cannot be followed: small multiples
REFERENCE_STYLE = {"color": "0.55", "marker": ""}


class Panels:
    """Small multiples: ``groups`` ({panel title: [labels]}) each in its own axes, on
    shared axes, the ``reference`` label in grey in every panel; ``names`` maps a label
    to the name a legend shows (``reports.display_names``)."""

    def __init__(self, groups: dict, reference: str, names: dict | None = None):
        self.groups, self.reference, self.names = groups, reference, names or {}

    def draw(self, labels, draw_panel, columns: int = 1, width: float = 7.0):
        """A figure of one row per group (``columns`` axes a row, e.g. accuracy and
        loss); ``draw_panel(ax, labels, styles)`` draws one axes. Returns the axes."""
        groups = {t: [l for l in g if l in labels and l != self.reference]
                  for t, g in self.groups.items()}
        groups = {t: g for t, g in groups.items() if g}
        fig, axes = plt.subplots(len(groups), columns, figsize=(width * columns,
                                                               2.8 * len(groups)),
                                 sharex="col", sharey="col", squeeze=False)
        for row, (group_title, group) in zip(axes, groups.items()):
            for ax in row:
                shown = ([self.reference] if self.reference in labels else []) + group
                styles = ([REFERENCE_STYLE] if self.reference in labels else []) \
                    + series_styles(len(group))
                draw_panel(ax, shown, styles)
                ax.set_title(group_title, fontsize=10, loc="left")
        return list(axes.flat)


def _shown_label(panels, label: str) -> str:
    return panels.names.get(label, label) if panels is not None else label


def curve(records, key) -> dict:
    """{step: value} of the metrics.jsonl lines that hold ``key``."""
    points = [(r["step"], r[key]) for r in records if r.get(key) is not None]
    return dict(points)


def learning_curves_spread(path, curves, seen_bucket: str, title: str, panels=None):
    """Held-out accuracy on seen lengths and training loss against the step, per setting:
    the mean over seeds with its 95% interval (the loss: geometric mean and the interval
    of its log). ``curves``: {label: [records per seed]}; ``panels`` as in
    ``accuracy_by_length_spread`` (a row of both per group)."""
    def draw(ax, labels, styles, key):
        for label, style in zip(labels, styles):
            per_seed = [curve(records, key) for records in curves[label]]
            steps = sorted(set.intersection(*(set(c) for c in per_seed)))
            if steps:
                mean_band(ax, steps, [[c[s] for s in steps] for c in per_seed], style,
                          _shown_label(panels, label), log=key == TRAIN_LOSS, markersize=4)
        if key == TRAIN_LOSS:
            ax.set(ylabel="train loss (nats/token)", yscale="log")
            plain_log_ticks(ax)
        else:
            ax.set(ylabel=f"sequence accuracy ({seen_bucket})", ylim=(-0.02, 1.02))
    accuracy, loss = eval_key("seq_acc", seen_bucket), TRAIN_LOSS
    if panels is not None and len(curves) > MAX_SERIES:
        column = iter(itertools.cycle((accuracy, loss)))
        axes = panels.draw(list(curves), lambda ax, labels, styles: draw(
            ax, labels, styles, next(column)), columns=2, width=5.5)
        for ax in axes[-2:]:
            ax.set(xlabel="step")
        # One legend a row, beside its loss axes (the row's two axes share the series).
        save(axes[0].figure, path, title, axes=axes, legend_beside=True, legend_every=2)
        return
    fig, (acc_ax, loss_ax) = plt.subplots(1, 2, figsize=(11, 4))
    draw(acc_ax, list(curves), series_styles(len(curves)), accuracy)
    draw(loss_ax, list(curves), series_styles(len(curves)), loss)
    acc_ax.set(xlabel="step", title="held-out accuracy")
    loss_ax.set(xlabel="step", title="loss")
    save(fig, path, title, axes=(acc_ax, loss_ax), legend_size=7, shared_legend=True)


def plain_log_ticks(ax):
    """Tick labels on a log y axis as plain numbers ('0.02', '2'), not '2.2×10⁰'."""
    from matplotlib.ticker import FuncFormatter

    def minor(value, _):  # labelled only where the axis spans under a decade
        low, high = ax.get_ylim()
        return f"{value:g}" if 0 < low and high / low < 10 else ""
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(minor))
