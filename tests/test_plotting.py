"""The figures' promises: every series its own style, legends that never squeeze the
axes, and the held-out loss beside the training loss."""

import matplotlib.colors
import pytest

from attention_research.reports import heatmaps, plotting


@pytest.mark.parametrize("count", [3, 12, 20, 25])
def test_every_series_gets_its_own_colour(count):
    styles = plotting.series_styles(count)
    colours = {matplotlib.colors.to_hex(s["color"]) for s in styles}
    assert len(colours) == count
    # Any twelve series in a row differ in marker too, for readers without colour.
    for start in range(max(1, count - 11)):
        window = [s["marker"] for s in styles[start:start + 12]]
        assert len(set(window)) == len(window)


def _captured(monkeypatch):
    """Keep the figure ``save`` is given instead of writing it."""
    figures = []
    original = plotting.save

    def keep(fig, path, *args, **kwargs):
        original(fig, path, *args, **kwargs)
        # After save has laid the figure out: the axes' widths as a share of the figure.
        figures.append((fig, [ax.get_position().width for ax in fig.axes]))
    monkeypatch.setattr(plotting, "save", keep)
    return figures


def test_learning_curves_draw_the_held_out_loss(tmp_path, monkeypatch):
    figures = _captured(monkeypatch)
    records = [{"member": 0, "step": s, "train/loss": 3.0 / (1 + s)} for s in range(0, 100, 10)]
    records += [{"member": 0, "step": s, "eval/loss/validation": 2.0 / (1 + s),
                 "eval/bleu/validation": s / 10} for s in (0, 50, 90)]
    plotting.learning_curves(tmp_path / "curves.png", records, "t", score="bleu")
    loss_ax = figures[0][0].axes[0]
    assert [line.get_label() for line in loss_ax.lines] == ["train", "validation"]
    assert list(loss_ax.lines[1].get_xdata()) == [0, 50, 90]
    assert (tmp_path / "curves.png").stat().st_size > 5_000


def test_many_series_leave_the_axes_their_width(tmp_path, monkeypatch):
    """Legends go beside the axes: with 3 series or 30 the axes keep one width."""
    widths = []
    for count in (3, 30):
        figures = _captured(monkeypatch)
        curves = {f"setting {i}": [[{"step": s, "eval/seq_acc/len1-5": 0.01 * i * s,
                                     "train/loss": 1.0 / (1 + s)} for s in (0, 10, 20)]]
                  for i in range(count)}
        plotting.learning_curves_spread(tmp_path / f"spread{count}.png", curves, "len1-5", "t")
        widths.append(figures[0][1])
    assert widths[0] == pytest.approx(widths[1], rel=1e-6)


def test_a_plot_that_fails_midway_leaves_the_old_one(tmp_path, monkeypatch):
    """Issue 37: a full disk left a 0-byte attention.png. A plot is written to a
    temporary name and renamed: a failure midway keeps the old file and no scrap."""
    import errno

    import matplotlib.figure
    import matplotlib.pyplot as plt
    path = tmp_path / "attention.png"
    path.write_bytes(b"the old plot")

    def full_disk(self, target, **kwargs):
        open(target, "wb").write(b"half a pn")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full_disk)
    fig, ax = plt.subplots()
    with pytest.raises(OSError, match="No space left"):
        plotting.save(fig, path, "title", [ax])
    assert path.read_bytes() == b"the old plot"
    assert [p.name for p in tmp_path.iterdir()] == ["attention.png"]


def test_many_series_become_small_multiples_with_the_reference_in_every_panel(
        monkeypatch, tmp_path):
    """Issue 38: 22 curves on one axes could not be followed. Past MAX_SERIES, one
    panel per group, each with the reference in grey and its own legend."""
    figures = _captured(monkeypatch)
    labels = [f"setting {i}" for i in range(12)]
    accuracies = {label: [{n: 1.0 - n / 60 for n in range(1, 51)}] * 2 for label in labels}
    groups = {"first": labels[:6], "second": labels[6:]}
    layout = plotting.Panels(groups, labels[0], {labels[0]: "the reference"})
    plotting.accuracy_by_length_spread(tmp_path / "a.png", accuracies, 25, "t", panels=layout)
    fig, _ = figures[-1]
    axes = [ax for ax in fig.axes if ax.get_legend() is not None]
    assert len(axes) == 2  # one panel per group, each with its legend
    for ax in axes:
        names = [text.get_text() for text in ax.get_legend().get_texts()]
        assert names[0] == "the reference" and len(names) <= plotting.MAX_SERIES
        assert matplotlib.colors.to_hex(ax.get_lines()[0].get_color()) == \
            matplotlib.colors.to_hex(plotting.REFERENCE_STYLE["color"])
    # A few series stay on one axes.
    plotting.accuracy_by_length_spread(tmp_path / "b.png", dict(list(accuracies.items())[:3]),
                                       25, "t", panels=layout)
    assert len(figures[-1][0].axes) == 1


def test_log_axes_read_plain_numbers():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0.002, 0.2, 2.2])
    ax.set_yscale("log")
    plotting.plain_log_ticks(ax)
    fig.canvas.draw()
    shown = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert "0.01" in shown and "1" in shown and not any("10^" in t or "×" in t for t in shown)
    plt.close(fig)


def test_heat_maps_outline_the_true_alignment(monkeypatch, tmp_path):
    import numpy as np
    figures = _captured(monkeypatch)
    example = {"source": np.array([5, 6, 7, 0]), "output": np.array([7, 6, 5, 2]),
               "weights": np.full((4, 4), 0.25), "correct": True,
               "reference": np.array([2, 1, 0, -1])}
    heatmaps.attention_heatmaps(tmp_path / "h.png", [example], "t")
    ax = figures[-1][0].axes[0]
    marks = ax.collections[0].get_offsets()
    assert [tuple(m) for m in marks] == [(2, 0), (1, 1), (0, 2)]  # (source, step); EOS none


def test_explicit_vs_implicit_panels_outline_the_true_alignment(monkeypatch, tmp_path):
    import numpy as np
    figures = _captured(monkeypatch)
    maps = {"explicit weights": np.full((4, 4), 0.25), "implicit (gradient)": np.eye(4)}
    example = {"source": np.array([5, 6, 7, 0]), "target": np.array([7, 6, 5, 2]),
               "maps": maps, "reference": np.array([2, 1, 0, -1])}
    heatmaps.explicit_vs_implicit(tmp_path / "e.png", [example], "t")
    panels = [ax for ax in figures[-1][0].axes if ax.get_title()]
    assert len(panels) == 2
    for ax in panels:
        marks = ax.collections[0].get_offsets()
        assert [tuple(m) for m in marks] == [(2, 0), (1, 1), (0, 2)]
        assert "true alignment" in ax.get_title()
