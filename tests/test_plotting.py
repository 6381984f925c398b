"""The figures' promises: every series its own style, legends that never squeeze the
axes, and the held-out loss beside the training loss."""

import matplotlib.colors
import pytest

from attention_research import plotting


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
