"""Attention heat maps: a run's held-out examples (``attention_heatmaps``), explicit
against implicit attention (``explicit_vs_implicit``), every head of a Transformer
(``attention_heads``), and the small pictures and sample tables TensorBoard shows at
each evaluation (``heatmap_pixels``, ``samples_markdown``). Rows are target steps,
columns source tokens; a known alignment is marked on the map."""

from __future__ import annotations

import numpy as np

from attention_research.data import BOS, EOS, NUM_SPECIAL, PAD
from attention_research.reports import plotting

_SPECIAL = {PAD: "<pad>", BOS: "<s>", EOS: "</s>"}


def token_labels(tokens):
    """Readable labels: special tokens by name, symbols by their index from 0."""
    return [_SPECIAL.get(int(t), str(int(t) - NUM_SPECIAL)) for t in tokens]


def _namer(labels):
    """Token ids -> axis labels: ``labels`` (id -> text, e.g. a subword piece) or the
    symbols' own names, special tokens by name either way."""
    def names(tokens):
        if labels is None:
            return token_labels(tokens)
        return [_SPECIAL.get(int(t)) or labels(int(t)) for t in tokens]
    return names


def _draw_map(fig, ax, values, source_names, row_names, row_label: str):
    """One target x source map on [0, 1] (masked values, e.g. exact zeros, white),
    with a colour bar and every token named on the axes."""
    image = ax.imshow(values, cmap=plotting.map_colours(), vmin=0.0, vmax=1.0, aspect="auto")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    # 8 pt labels at any length: past 30 tokens only every k-th is named (the figure
    # grows with the length too, ``_map_size``), never 5 pt ones at length 50.
    for set_ticks, names in ((ax.set_xticks, source_names), (ax.set_yticks, row_names)):
        every = -(-len(names) // 30)
        shown = range(0, len(names), every)
        set_ticks(shown, [names[i] for i in shown], fontsize=8,
                  **({"rotation": 90} if set_ticks == ax.set_xticks else {}))
    ax.set_xlabel("source")
    ax.set_ylabel(row_label)


def _map_size(examples) -> float:
    """Inches a side of one heat map: 6 up to 30 source tokens, then growing with them."""
    longest = max((len(trim_example(e)[0]) for e in examples), default=0)
    return max(6.0, 0.12 * longest + 2.5)


def _mark_reference(ax, reference, rows: int):
    """Outline the true alignment (the source position each step should attend to,
    -1 where none) on a map of ``rows`` target steps."""
    steps = [t for t in range(min(rows, len(reference))) if reference[t] >= 0]
    if steps:
        ax.scatter([reference[t] for t in steps], steps, marker="s", s=40,
                   facecolors="none", edgecolors="red", linewidths=1.0,
                   label="true alignment")


def trim_example(example):
    """An example's real source tokens, its output up to EOS, and their [T, S] weights."""
    source = [t for t in example["source"] if t != PAD]
    output = list(example["output"])
    if EOS in output:
        output = output[:output.index(EOS) + 1]
    output = [t for t in output if t != PAD]
    return source, output, np.asarray(example["weights"][:len(output), :len(source)])


def heatmap_pixels(example, size: int = 256) -> np.ndarray:
    """An example's weights (``attention_heatmaps``' dicts) as [H, W, 3] uint8 pixels,
    target steps down and source positions across, each cell a square of at least
    ``size`` / its longest side pixels: TensorBoard's picture of one evaluation, drawn
    without a figure (about a millisecond), so that every evaluation can have one."""
    _, _, weights = trim_example(example)
    cell = max(1, size // max(weights.shape, default=1))
    pixels = plotting.map_colours()(
        np.ma.masked_where(weights == 0, np.clip(weights, 0.0, 1.0)), bytes=True)
    return np.kron(pixels[..., :3], np.ones((cell, cell, 1), np.uint8))


def samples_markdown(rows: list[dict]) -> str:
    """Sample outputs as a Markdown table (TensorBoard's Text tab renders it): one row
    per dict, its keys as the columns."""
    if not rows:
        return ""
    columns = list(rows[0])
    cell = lambda value: str(value).replace("|", "\\|").replace("\n", " ")
    return "\n".join(["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
                       *("| " + " | ".join(cell(r[c]) for c in columns) + " |"
                         for r in rows)]) + "\n"


def attention_heatmaps(path, examples, title: str, labels=None):
    """Heat maps of held-out examples: source on x, decoded target on y, a colour bar
    each; weights that are exactly 0 are white, and their share is in the title.

    ``examples``: dicts with 'source', 'output' (token arrays, padding included),
    'weights' [T, S] and 'correct' (bool, or None when there is no single right
    answer), and optionally 'reference' [T], the source position each step should
    attend to (-1: none), outlined in red where the task knows it. ``labels`` maps a
    token id to its text (e.g. a subword piece).
    """
    names = _namer(labels)
    columns = min(2, len(examples))
    rows = -(-len(examples) // columns)
    side = _map_size(examples)
    fig, axes = plotting.plt.subplots(rows, columns,
                                      figsize=((side + 0.5) * columns, side * rows),
                                      squeeze=False)
    for ax, example in zip(axes.flat, examples):
        source, output, weights = trim_example(example)
        # Exactly-zero weights (sparsemax, entmax15, outside a local window) are drawn
        # white, to tell them from merely small ones, and counted in the title.
        zeros = weights == 0
        _draw_map(fig, ax, np.ma.masked_where(zeros, weights), names(source), names(output),
                  "output")
        verdict = {True: " (correct)", False: " (wrong)", None: ""}[example["correct"]]
        share = f", {zeros.mean():.0%} exact zeros (white)" if zeros.any() else ""
        marked = ""
        if example.get("reference") is not None:
            _mark_reference(ax, example["reference"], len(output))
            marked = "; red squares: the true alignment"
        ax.set_title(f"length {len(source)}{verdict}{share}{marked}", fontsize=10)
    for ax in list(axes.flat)[len(examples):]:
        ax.axis("off")
    plotting.save(fig, path, title)


def explicit_vs_implicit(path, examples, title: str, labels=None,
                         target_name: str = "reference target"):
    """Side-by-side maps of the same held-out examples under teacher forcing, one row
    per example: the explicit weights, the implicit map (analysis/implicit.py) and,
    for a Transformer, the rollout (analysis/rollout.py), each over the source (x) and
    the reference target (y), each normalised to sum to 1 per target step.

    ``examples``: dicts with 'source', 'target' (token arrays, padding included) and
    'maps', {panel title: [T, S]}, and optionally 'reference' [T], the true alignment,
    outlined in red on every panel; ``labels`` as in ``attention_heatmaps``;
    ``target_name``: what the rows are ("output" for a model forced on its own output)."""
    names = _namer(labels)
    columns = max(len(e["maps"]) for e in examples)
    fig, axes = plotting.plt.subplots(len(examples), columns,
                                      figsize=(5.5 * columns, 5 * len(examples)),
                                      squeeze=False)
    for row, example in zip(axes, examples):
        source = [t for t in example["source"] if t != PAD]
        target = [t for t in example["target"] if t != PAD]
        for ax, (name, values) in zip(row, example["maps"].items()):
            _draw_map(fig, ax, np.asarray(values)[:len(target), :len(source)], names(source),
                      names(target), target_name)
            marked = ""
            if example.get("reference") is not None:
                _mark_reference(ax, example["reference"], len(target))
                marked = "; red squares: the true alignment"
            ax.set_title(f"{name}, length {len(source)}{marked}", fontsize=10)
        for ax in row[len(example["maps"]):]:
            ax.axis("off")
    plotting.save(fig, path, title)


# The Transformer's attention kinds: (key, title, rows are target steps?, columns are
# the decoder's inputs?; otherwise both are source positions).
_HEAD_KINDS = (("encoder_self", "encoder self-attention", False, False),
               ("decoder_self", "decoder self-attention", True, True),
               ("cross", "cross-attention", True, False))


def attention_heads(path, source, target, layers: dict, title: str, labels=None,
                    target_name: str = "reference target"):
    """Every weight a Transformer computes for one held-out example under teacher
    forcing: one row per layer and kind (encoder self-attention, decoder
    self-attention, cross-attention), one column per head.

    ``layers``: {'encoder_self' | 'decoder_self' | 'cross': [layer x [h, rows,
    columns]]} (training/held_out.head_layers); ``source``/``target``: token arrays,
    padding included (the target is what the decoder was forced on: the reference, or
    ``target_name`` says which)."""
    names = _namer(labels)
    source = [t for t in source if t != PAD]
    target = [t for t in target if t != PAD]
    # Row t is the step that emits target t; decoder self-attention at step t reads
    # the decoder's inputs up to t, which are BOS and the target shifted right.
    axes_of = {False: (source, "source"), True: (target, target_name)}
    inputs = ([BOS] + target[:-1], "decoder input")
    rows = [(title_, layer, weights, axes_of[by_target], inputs if of_target else axes_of[False])
            for kind, title_, by_target, of_target in _HEAD_KINDS
            for layer, weights in enumerate(layers.get(kind, []))]
    heads = max(weights.shape[0] for _, _, weights, _, _ in rows)
    fig, axes = plotting.plt.subplots(len(rows), heads, figsize=(3.6 * heads, 3.4 * len(rows)),
                                      squeeze=False)
    for ax_row, (kind_title, layer, weights, (row_tokens, row_name),
                 (column_tokens, column_name)) in zip(axes, rows):
        for head, ax in enumerate(ax_row):
            values = np.asarray(weights[head])[:len(row_tokens), :len(column_tokens)]
            _draw_map(fig, ax, values, names(column_tokens), names(row_tokens), row_name)
            ax.set_xlabel(column_name)
            ax.set_title(f"layer {layer + 1} {kind_title}, head {head + 1}", fontsize=9)
    plotting.save(fig, path, title)
