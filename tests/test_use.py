"""Using a trained model (attention_research/use/, issue 71): predict, attention and
evaluate from a work directory, reading only; the command line; the bad inputs."""

import hashlib
import shutil
import json

import numpy as np
import pytest

import attention_research
from attention_research.errors import InputError, RunError
from attention_research.running import sweeps
from attention_research.use import cli
from tests.conftest import tiny_config


def _snapshot(folder):
    """Every file under ``folder`` with its bytes' digest and modification time."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                         p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def copy_run(tmp_path_factory):
    from attention_research.api import train
    workdir = tmp_path_factory.mktemp("use") / "copy"
    config = tiny_config(task="copy")
    config.train.num_steps, config.train.checkpoint_every = 40, 20
    train(config, workdir, progress=False)
    return workdir


def test_a_run_predicts_attends_and_evaluates_reading_only(copy_run, tmp_path):
    before = _snapshot(copy_run)
    run = attention_research.load(copy_run)
    assert "checkpoint of step 40" in repr(run)
    # Batched or one at a time, the same outputs.
    inputs = ["0 1 2", "3", "5 4 3 2 1 0", "2 2"]
    together = [p.text for p in run.predict(inputs)]
    assert together == [run.predict(text)[0].text for text in inputs]
    assert all(set(t.split()) <= set(map(str, range(6))) for t in together)
    # The n-best list: best first, as many as asked.
    (best,) = run.predict("0 1 2", beam_size=3, n_best=3)
    scores = [h.score for h in best.hypotheses]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    # Evaluating again gives the run's own accuracy by length, exactly.
    summary = json.loads((copy_run / "summary.json").read_text())["members"][0]
    again = run.evaluate()
    assert again["same_set_as_the_run"]
    assert {str(n): a for n, a in again["seq_acc_by_length"].items()} == \
        summary["seq_acc_by_length"]
    part = run.evaluate(lengths=(2, 3))  # a part of the run's own set: its own numbers
    assert part["same_set_as_the_run"] and {str(n): a for n, a in part[
        "seq_acc_by_length"].items()} == {n: summary["seq_acc_by_length"][n] for n in "23"}
    # A fresh set of the same sizes from another seed; the run's own seed is its own set.
    assert run.evaluate(eval_seed=run.config.task.eval_seed) == again
    fresh = run.evaluate(eval_seed=run.config.task.eval_seed + 1)
    assert not fresh["same_set_as_the_run"] and fresh["sequences"] == again["sequences"]
    assert fresh["seq_acc_by_length"].keys() == again["seq_acc_by_length"].keys()
    # Attention: arrays, heat maps and the page.
    attended, files = run.attention(["0 1 2", "4 3"], folder=tmp_path / "attention")
    assert attended[0].maps["weights"].shape == (len(attended[0].output), 3)
    assert attended[0].maps["implicit"].shape[1] == 3
    names = {p.name for p in files}
    assert {"attention.png", "explicit_vs_implicit.png", "attention.npz",
            "attention.html"} <= names
    arrays = np.load(tmp_path / "attention" / "attention.npz")
    assert {"0/source", "0/output", "0/weights", "0/implicit", "1/weights"} <= set(arrays)
    page = (tmp_path / "attention" / "attention.html").read_text()
    assert "implicit (gradient_x_input)" in page and "<script" in page and "http" not in page
    # An earlier checkpoint on request; and nothing in the run changed.
    assert "step 20" in repr(attention_research.load(copy_run, step=20))
    assert _snapshot(copy_run) == before


def test_bad_inputs_get_one_line_naming_the_problem(copy_run, tmp_path):
    run = attention_research.load(copy_run)
    with pytest.raises(InputError, match=r"'7' in '1 7' is not a symbol of this run: its "
                                         r"symbols are 0-5"):
        run.predict("1 7")
    with pytest.raises(InputError, match="an empty input"):
        run.predict("  ")
    with pytest.raises(InputError, match="is 7 tokens long; this model takes at most 6"):
        run.predict("1 2 3 4 5 0 1")
    with pytest.raises(InputError, match="n_best"):
        run.predict("1", beam_size=2, n_best=3)
    with pytest.raises(InputError, match=r"need 1 <= first <= last <= 6"):
        run.evaluate(lengths=(1, 7))
    with pytest.raises(RunError, match="does not exist"):
        attention_research.load(tmp_path / "nowhere")
    with pytest.raises(RunError, match="holds no run"):
        attention_research.load(tmp_path)
    with pytest.raises(RunError, match="holds the checkpoints of steps 20, 40"):
        attention_research.load(copy_run, step=30)
    with pytest.raises(RunError, match="single run, not a sweep"):
        attention_research.load(copy_run, member="seed-0")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text((copy_run / "config.json").read_text())
    with pytest.raises(RunError, match="no checkpoint yet: the run saves its first at step 20"):
        attention_research.load(empty)


def test_the_command_line(copy_run, tmp_path, capsys, monkeypatch):
    cli.main(["predict", str(copy_run), "0 1 2", "3 3"])
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 2 and "checkpoint of step 40" in out.err
    # Inputs before and after the options, in their order.
    cli.main(["predict", str(copy_run), "0 1 2", "--step=40", "3 3", "--beam=1", "4"])
    assert capsys.readouterr().out.splitlines()[:2] == out.out.splitlines()
    with pytest.raises(SystemExit):
        cli.main(["predict", str(copy_run), "--stpe=40", "3 3"])
    inputs = tmp_path / "inputs.txt"
    inputs.write_text("0 1\n1 9\n")
    with pytest.raises(SystemExit, match=r"error: .*inputs.txt line 2: '9' in '1 9'"):
        cli.main(["predict", str(copy_run), f"--input={inputs}"])
    # stdin: an empty line is refused by its number, not dropped (outputs line up).
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("0 1\n\n2 3\n"))
    with pytest.raises(SystemExit, match=r"error: stdin line 2: an empty input"):
        cli.main(["predict", str(copy_run)])
    with pytest.raises(SystemExit, match="lies inside the work directory"):
        cli.main(["attention", str(copy_run), "0 1", f"--out={copy_run / 'maps'}"])
    cli.main(["attention", str(copy_run), "0 1", f"--out={tmp_path / 'maps'}"])
    assert (tmp_path / "maps" / "attention.html").is_file()
    capsys.readouterr()
    cli.main(["evaluate", str(copy_run), "--lengths=1-4"])
    assert json.loads(capsys.readouterr().out)["data"] == "lengths 1-4"


def test_a_sweep_member_is_chosen_by_name(tmp_path):
    from attention_research.api import run_sweep
    sweep = sweeps.axis("config.seed", [0, 1])
    run_sweep(tiny_config(task="reverse"), sweep, tmp_path, progress=False)
    with pytest.raises(RunError, match=r"a sweep of 2 members: name one with --member .*"
                                       r"seed-0, seed-1"):
        attention_research.load(tmp_path)
    with pytest.raises(RunError, match=r"'seed-7' is not a member .*seed-0, seed-1"):
        attention_research.load(tmp_path, member="seed-7")
    with pytest.raises(RunError, match="matches 2 members"):
        attention_research.load(tmp_path, member="seed")
    for member in ("seed-0", "seed-1"):
        run = attention_research.load(tmp_path, member=member)
        again = run.evaluate()["seq_acc_by_length"]
        summary = json.loads((tmp_path / "members" / member / "summary.json").read_text())
        assert {str(n): a for n, a in again.items()} == summary["members"][0]["seq_acc_by_length"]
        assert run.restored.config.seed == int(member[-1])


def test_a_translation_run_is_evaluated_exactly_and_on_files(tmp_path):
    from attention_research.api import train
    from attention_research.tasks.translation import datasets
    from tests.conftest import tiny_translation_config
    from tests.test_translation_data import _write_ding_file
    source = _write_ding_file(tmp_path / "de-en", count=400)
    corpus = datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"), data_path=str(source))
    config = tiny_translation_config(corpus.data_dir.parents[1])
    summary = train(config, tmp_path / "run", progress=False)
    final = summary["members"][0]["final"]
    run = attention_research.load(tmp_path / "run")
    scores = run.evaluate()
    assert scores["data"] == "test"
    assert (scores["bleu"], scores["bleu_lc"], scores["chrf"]) == (
        final["test/bleu"], final["test/bleu_lc"], final["test/chrf"])
    # The same split as files of one's own: the same scores.
    folder = tmp_path / "run" / "translations"
    own = run.evaluate(source=folder / "test.source.txt", reference=folder / "test.reference.txt")
    assert (own["bleu"], own["chrf"], own["cut"]) == (final["test/bleu"], final["test/chrf"], 0)
    (prediction,) = run.predict("ein Mann")
    assert isinstance(prediction.text, str)
    with pytest.raises(InputError, match="cannot encode"):
        run.predict("ein Mann \u4e2d")
    short = tmp_path / "short.txt"
    short.write_text("ein Mann\n")
    with pytest.raises(InputError, match=r"has 1 lines and .* 2: line i of one"):
        run.evaluate(source=short, reference=_lines(tmp_path / "two.txt", 2))
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"gut\n\xff\n")
    with pytest.raises(InputError, match=r"broken.txt line 2 is not UTF-8"):
        run.evaluate(source=broken, reference=broken)
    gap = _lines(tmp_path / "gap.txt", 2, "a\n\nb\n")
    with pytest.raises(InputError, match=r"gap.txt line 2 is empty"):
        run.evaluate(source=gap, reference=gap)
    with pytest.raises(InputError, match="--eval_seed are for the symbol tasks"):
        run.evaluate(eval_seed=1)


def _lines(path, count, text=None):
    path.write_text(text if text is not None else "".join("x\n" for _ in range(count)))
    return path


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")),
                    reason="headless Chromium is not installed")
def test_the_attention_page_shades_the_source_in_a_browser(copy_run, tmp_path):
    """The page's script runs in headless Chromium: a link naming example 0's output step
    1 opens with the source shaded by that step's weights, in both panels."""
    import re
    import subprocess
    run = attention_research.load(copy_run)
    attended, _ = run.attention(["0 1 2", "4 3"], folder=tmp_path)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    page = (tmp_path / "attention.html").as_uri() + "#0:1:side%20by%20side"
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=2000", "--dump-dom", page],
                         capture_output=True, text=True, timeout=120).stdout
    shaded = [float(w) for w in re.findall(r'<span class="tok" title="([0-9.]+)"', dom)]
    expected = [*attended[0].maps["weights"][1], *attended[0].maps["implicit"][1]]
    assert shaded == pytest.approx(expected, abs=1e-3)
