"""The figures a run leaves in ``plots/``: attention heat maps, learning curves,
sequence accuracy by length. Plain matplotlib (Agg), one function per figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from attention_research import tasks  # noqa: E402

_SPECIAL = {tasks.PAD: "<pad>", tasks.BOS: "<s>", tasks.EOS: "</s>"}


def _save(fig, path, title=None, axes=(), legend_size=8):
    """Grid and legend on ``axes``, the title, then write the figure and free it."""
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=legend_size)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def token_labels(tokens):
    """Readable labels: special tokens by name, symbols by their index from 0."""
    return [_SPECIAL.get(int(t), str(int(t) - tasks.NUM_SPECIAL)) for t in tokens]


def attention_heatmaps(path, examples, title: str):
    """Heat maps of held-out examples: source on x, decoded target on y, a colour bar each.

    ``examples``: dicts with 'source', 'output' (token arrays, padding included),
    'weights' [T, S] and 'correct' (bool).
    """
    columns = min(2, len(examples))
    rows = -(-len(examples) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 6 * rows), squeeze=False)
    for ax, example in zip(axes.flat, examples):
        source = [t for t in example["source"] if t != tasks.PAD]
        output = list(example["output"])
        if tasks.EOS in output:
            output = output[:output.index(tasks.EOS) + 1]
        output = [t for t in output if t != tasks.PAD]
        weights = example["weights"][:len(output), :len(source)]
        image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        small = 6 if len(source) > 30 else 8
        ax.set_xticks(range(len(source)), token_labels(source), fontsize=small, rotation=90)
        ax.set_yticks(range(len(output)), token_labels(output), fontsize=small)
        ax.set_xlabel("source")
        ax.set_ylabel("output (greedy)")
        verdict = "correct" if example["correct"] else "wrong"
        ax.set_title(f"length {len(source)} ({verdict})", fontsize=10)
    for ax in list(axes.flat)[len(examples):]:
        ax.axis("off")
    _save(fig, path, title)


def learning_curves(path, records, title: str):
    """Training loss and held-out sequence accuracy against the step, per member."""
    fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(11, 4))
    members = sorted({r["member"] for r in records})
    for member in members:
        mine = [r for r in records if r["member"] == member]
        train = [(r["step"], r["train/loss"]) for r in mine if "train/loss" in r]
        if train:
            loss_ax.plot(*zip(*train), label=f"member {member}" if len(members) > 1 else "train")
        evals = [r for r in mine if any(k.startswith("eval/seq_acc/") for k in r)]
        for key in sorted({k for r in evals for k in r if k.startswith("eval/seq_acc/")}):
            points = [(r["step"], r[key]) for r in evals if r.get(key) is not None]
            label = key.removeprefix("eval/seq_acc/")
            acc_ax.plot(*zip(*points), marker="o",
                        label=label if len(members) == 1 else f"{label}, member {member}")
    loss_ax.set(xlabel="step", ylabel="train loss (nats/token)", yscale="log", title="loss")
    acc_ax.set(xlabel="step", ylabel="greedy sequence accuracy", ylim=(-0.02, 1.02),
               title="held-out sequence accuracy")
    _save(fig, path, title, axes=(loss_ax, acc_ax))


def accuracy_by_length(path, accuracies, train_max_length: int, title: str):
    """Greedy sequence accuracy per source length; ``accuracies``: {label: {length: acc}}."""
    accuracy_by_length_spread(path, {label: [acc] for label, acc in accuracies.items()},
                              train_max_length, title)


def accuracy_by_length_spread(path, accuracies, train_max_length: int, title: str):
    """Mean accuracy per length with its min-max band; ``accuracies``: {label: [{length: acc}
    per seed]}."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, runs in accuracies.items():
        lengths = sorted(runs[0])
        values = np.array([[run[n] for n in lengths] for run in runs])
        line, = ax.plot(lengths, values.mean(0), marker=".", label=label)
        if len(runs) > 1:
            ax.fill_between(lengths, values.min(0), values.max(0), alpha=0.2,
                            color=line.get_color())
    ax.axvline(train_max_length + 0.5, color="gray", linestyle="--", label="longest trained")
    ax.set(xlabel="source length", ylabel="greedy sequence accuracy", ylim=(-0.02, 1.02),
           title=title)
    _save(fig, path, axes=(ax,))


def _curve(records, key):
    points = [(r["step"], r[key]) for r in records if r.get(key) is not None]
    return dict(points)


def learning_curves_spread(path, curves, seen_bucket: str, title: str):
    """Held-out accuracy on seen lengths and training loss against the step, per setting:
    the mean over seeds with a min-max band. ``curves``: {label: [records per seed]}."""
    fig, (acc_ax, loss_ax) = plt.subplots(1, 2, figsize=(11, 4))
    for label, runs in curves.items():
        for ax, key in ((acc_ax, f"eval/seq_acc/{seen_bucket}"), (loss_ax, "train/loss")):
            per_seed = [_curve(records, key) for records in runs]
            steps = sorted(set.intersection(*(set(c) for c in per_seed)))
            if not steps:
                continue
            values = np.array([[c[s] for s in steps] for c in per_seed])
            line, = ax.plot(steps, values.mean(0), label=label,
                            marker="o" if ax is acc_ax else None)
            if len(runs) > 1:
                ax.fill_between(steps, values.min(0), values.max(0), alpha=0.2,
                                color=line.get_color())
    acc_ax.set(xlabel="step", ylabel=f"greedy sequence accuracy ({seen_bucket})",
               ylim=(-0.02, 1.02), title="held-out accuracy")
    loss_ax.set(xlabel="step", ylabel="train loss (nats/token)", yscale="log", title="loss")
    _save(fig, path, title, axes=(acc_ax, loss_ax), legend_size=7)
