"""End to end: a tiny run writes everything, resumes exactly, and a small model learns."""

import json
import os
import shutil
import signal

import numpy as np
import pytest

from attention_research.running.checkpoints import CheckpointError
from attention_research.training.config_checks import ConfigError, validate
from attention_research.api import train
from attention_research.running.config_changes import ConfigMismatchError
from attention_research.running.workdir import TIMING_FIELDS


class Interrupted(Exception):
    pass


def _interrupt_at(stop_step):
    def hook(step):
        if step == stop_step:
            raise Interrupted(step)
    return hook


def _without_times(records):
    """Metric lines minus the wall-clock fields, which differ between any two runs."""
    return [{k: v for k, v in r.items() if k not in TIMING_FIELDS}
            for r in records]


def _tensorboard_matches_metrics(workdir) -> bool:
    from tests.conftest import metrics_scalars, tensorboard_scalars
    board = tensorboard_scalars(workdir)
    expected = [(step, tag, np.float32(value)) for step, tag, value in metrics_scalars(workdir)]
    return sorted(board) == sorted(expected) and len(set(board)) == len(board)


def _assert_tensorboard_pictures(workdir):
    """Issue 38: TensorBoard shows the config, each evaluation's heat maps and samples
    (saved under evaluations/), and the finished run's plots, each once, in the run's
    own folder (no /tensorboard suffix on the run's name)."""
    from tests.conftest import tensorboard_events
    pictures = [(step, tag, kind) for step, tag, kind, _ in tensorboard_events(workdir)
                if kind != "simple_value"]
    assert len(set(pictures)) == len(pictures)  # nothing shown twice
    assert (0, "config/text_summary", "tensor") in pictures
    for step in (10, 20):  # the two evaluations
        shown = sorted(p.name for p in (workdir / "evaluations" / f"step_{step:07d}").iterdir())
        assert shown == ["attention_1_length_4.png", "attention_2_length_6.png", "samples.md"]
        assert {(step, f"evaluation/{name}", "image") for name in
                ("attention_1_length_4", "attention_2_length_6")} <= set(pictures)
        assert (step, "evaluation/samples/text_summary", "tensor") in pictures
    assert {(20, f"plots/{name}", "image") for name in
            ("attention", "learning_curves", "seq_acc_by_length")} <= set(pictures)
    assert not (workdir / "tensorboard").exists()


def _records(workdir):
    return [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """One uninterrupted tiny run, shared by the tests that inspect its outputs."""
    from tests.conftest import tiny_config
    workdir = tmp_path_factory.mktemp("run")
    summary = train(tiny_config(), workdir, progress=False)
    return workdir, summary


@pytest.mark.slow
def test_a_run_writes_every_output(finished_run):
    workdir, summary = finished_run
    assert json.loads((workdir / "config.json").read_text())["model"]["attention"]["score"] == "additive"
    records = _records(workdir)
    assert [r["step"] for r in records if "train/loss" in r] == [5, 10, 15, 20]
    evals = [r for r in records if "eval/seq_acc/len1-4" in r]
    assert [r["step"] for r in evals] == [10, 20]
    for key in ("eval/loss/len5-6", "eval/token_acc/len1-4", "eval/align_acc/len1-4"):
        assert 0 <= evals[-1][key] < 10
    assert _tensorboard_matches_metrics(workdir)
    _assert_tensorboard_pictures(workdir)
    assert sorted(p.name for p in (workdir / "checkpoints").iterdir()) == ["10", "20"]
    for plot in ("attention.png", "learning_curves.png", "seq_acc_by_length.png"):
        assert (workdir / "plots" / plot).stat().st_size > 10_000
    saved = json.loads((workdir / "summary.json").read_text())
    assert saved == json.loads(json.dumps(summary))
    member = saved["members"][0]
    assert member["final"] == {k: v for k, v in evals[-1].items()
                               if k.startswith("eval/")}
    assert sorted(map(int, member["seq_acc_by_length"])) == [1, 2, 3, 4, 5, 6]
    assert saved["memory"]["host_peak_rss_mib"] > 0
    # The matrix-product precision it trained at (conftest.py sets "highest"): a GPU's
    # default is TF32, which a reader of the record must be able to tell apart.
    assert saved["devices"]["matmul_precision"] == "highest"
    # And, on a CPU, which kind: XLA's floats differ in their last bits between AVX and
    # AVX-512, so a record reproduces exactly only on the kind it names.
    from attention_research.running.peaks import VECTOR_EXTENSIONS, cpu_description
    assert saved["devices"]["cpu"] == cpu_description()
    assert saved["devices"]["cpu"]["model"] and (
        saved["devices"]["cpu"]["vector"] in (*VECTOR_EXTENSIONS, None))


@pytest.mark.slow
def test_resume_after_an_interruption_gives_the_same_metrics(finished_run, tmp_path):
    from tests.conftest import tiny_config
    reference_dir, reference = finished_run
    with pytest.raises(Interrupted):
        train(tiny_config(), tmp_path, hooks=[_interrupt_at(15)], progress=False)
    # The interrupted run logged step 15, after its last checkpoint (10): resuming
    # must drop that line and log it again, not twice.
    assert max(r["step"] for r in _records(tmp_path)) == 15
    resumed = train(tiny_config(), tmp_path, progress=False)
    # The restored state fits the train step compiled beside setup from the initial
    # state's shapes: nothing was compiled again for it.
    assert "train_compile" not in resumed["time"]["compilation"]
    assert _without_times(_records(tmp_path)) == _without_times(_records(reference_dir))
    # TensorBoard holds exactly what metrics.jsonl holds: step 15 once, nothing lost.
    assert _tensorboard_matches_metrics(tmp_path)
    _assert_tensorboard_pictures(tmp_path)
    assert resumed["members"][0]["final"] == reference["members"][0]["final"]
    # Rerunning a finished run changes nothing (issue 38: it is "already finished"),
    # and asked to (refinish) evaluates its final parameters to the same numbers.
    written = (tmp_path / "summary.json").stat().st_mtime_ns
    assert train(tiny_config(), tmp_path, progress=False) == json.loads(json.dumps(resumed))
    assert (tmp_path / "summary.json").stat().st_mtime_ns == written
    again = train(tiny_config(), tmp_path, progress=False, refinish=True)
    assert (tmp_path / "summary.json").stat().st_mtime_ns != written
    assert again["members"][0]["final"] == reference["members"][0]["final"]
    assert _without_times(_records(tmp_path)) == _without_times(_records(reference_dir))
    _assert_tensorboard_pictures(tmp_path)


@pytest.mark.slow
def test_sigterm_stops_at_the_next_log_and_the_resume_is_exact(finished_run, tmp_path):
    """SIGTERM during steps 11-15 stops at the log of step 15 with a checkpoint there;
    resuming ends as the uninterrupted run, with its checkpoints (the stop's own is
    deleted once step 20's is saved). Ctrl-C takes the same path (test_workdir.py)."""
    signum = signal.SIGTERM
    from attention_research.running.preemption import Preempted
    from tests.conftest import tiny_config
    reference_dir, reference = finished_run
    def signal_once(step):
        if step == 15:
            os.kill(os.getpid(), signum)
    with pytest.raises(Preempted, match=f"stopped by {signum.name} at step 15, its "
                                        "checkpoint saved") as stopped:
        train(tiny_config(), tmp_path, hooks=[signal_once], progress=False)
    assert stopped.value.exit_code == 128 + signum
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["10", "15"]
    assert max(r["step"] for r in _records(tmp_path)) == 15
    assert getattr(signal.getsignal(signum), "__name__", "") != "_ask_to_stop"  # restored
    resumed = train(tiny_config(), tmp_path, progress=False)
    assert resumed["members"][0]["final"] == reference["members"][0]["final"]
    assert _without_times(_records(tmp_path)) == _without_times(_records(reference_dir))
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["10", "20"]


@pytest.mark.slow
def test_a_signal_during_the_final_evaluation_is_named_and_the_run_completes(
        tmp_path, monkeypatch, capsys):
    """Issue 72: a signal during the final plots completed the run with no line about it."""
    from attention_research.training.loop import Cohort
    from tests.conftest import tiny_config
    final_parameters = Cohort.final_parameters

    def signalled(self, *args):
        os.kill(os.getpid(), signal.SIGTERM)
        return final_parameters(self, *args)
    monkeypatch.setattr(Cohort, "final_parameters", signalled)
    summary = train(tiny_config(), tmp_path, progress=False)
    assert summary["status"] == "finished" and (tmp_path / "summary.json").is_file()
    assert "SIGTERM arrived after the last step: the final evaluation and summary were " \
        "completed, not stopped" in capsys.readouterr().out


def test_a_stopped_sweep_names_the_cohort_it_stopped_in():
    """Issue 72: a sweep stopped at its second cohort said "before training began"."""
    from attention_research.running.preemption import Preempted
    term = signal.SIGTERM
    assert str(Preempted(term, 0, (2, 4))) == (
        "stopped by SIGTERM in cohort 2 of 4, before it trained; the cohorts before it are "
        "finished and saved: rerun the same command to resume")
    assert str(Preempted(term, 150, (1, 4))) == (
        "stopped by SIGTERM in cohort 1 of 4, at step 150, its checkpoint saved: rerun the "
        "same command to resume")
    assert str(Preempted(term, None, (3, 4))).startswith(
        "stopped by SIGTERM before cohort 3 of 4; the cohorts before it are finished")
    assert str(Preempted(term, 0)).startswith("stopped by SIGTERM before training began")


@pytest.mark.slow
def test_resume_refuses_a_different_config(finished_run, tmp_path):
    from tests.conftest import tiny_config
    workdir = tmp_path / "run"
    shutil.copytree(finished_run[0], workdir)
    before = (workdir / "metrics.jsonl").read_text()
    changed = tiny_config("dot")
    with pytest.raises(ConfigMismatchError, match="model.attention.score: was 'additive', now 'dot'"):
        train(changed, workdir, progress=False)
    assert (workdir / "metrics.jsonl").read_text() == before


@pytest.mark.slow
def test_resume_refuses_a_log_that_stops_before_every_checkpoint(finished_run, tmp_path):
    """A log cut short before the checkpoint it would resume from (another attempt began
    at step 0 and was killed at step 5) is not joined to that checkpoint's history."""
    from attention_research.errors import RunError
    from tests.conftest import tiny_config
    workdir = tmp_path / "run"
    shutil.copytree(finished_run[0], workdir)
    shutil.rmtree(workdir / "checkpoints" / "20")  # resumes at 10
    (workdir / "summary.json").unlink()
    cut = "".join(line + "\n" for line in (workdir / "metrics.jsonl").read_text().splitlines()
                  if json.loads(line)["step"] <= 5)
    (workdir / "metrics.jsonl").write_text(cut)
    with pytest.raises(RunError, match=r"ends at step 5, before the log of every checkpoint "
                                       r"\(steps 10 in .*Nothing was changed"):
        train(tiny_config(), workdir, progress=False)
    assert (workdir / "metrics.jsonl").read_text() == cut


@pytest.mark.slow
def test_a_log_cut_short_resumes_from_the_checkpoint_it_reaches(finished_run, tmp_path):
    """Issue 37: a truncated metrics.jsonl of a finished run was called 'of another
    attempt'. The run now goes on from the newest checkpoint its log reaches (10, not
    20), sets the newer aside and ends as the uninterrupted run."""
    from attention_research.errors import RunError
    from tests.conftest import tiny_config
    reference_dir, reference = finished_run
    workdir = tmp_path / "run"
    shutil.copytree(reference_dir, workdir)
    cut = "".join(line + "\n" for line in (workdir / "metrics.jsonl").read_text().splitlines()
                  if json.loads(line)["step"] <= 12)
    (workdir / "metrics.jsonl").write_text(cut)
    resumed = train(tiny_config(), workdir, progress=False)
    assert resumed["members"][0]["final"] == reference["members"][0]["final"]
    assert _without_times(_records(workdir)) == _without_times(_records(reference_dir))
    assert (workdir / "checkpoints.unlogged" / "20").is_dir()  # set aside, not deleted
    # A log lost whole reaches no checkpoint: refused, saying what is missing and what
    # to run, with nothing changed.
    (workdir / "metrics.jsonl").unlink()
    files = sorted(str(p) for p in workdir.rglob("*"))
    with pytest.raises(RunError, match=r"metrics.jsonl is missing, before the log of every "
                                       r"checkpoint \(steps 10, 20 .*move .* away"):
        train(tiny_config(), workdir, progress=False)
    assert sorted(str(p) for p in workdir.rglob("*")) == files


def _resumable_at_10(finished_run, tmp_path):
    """A copy of the finished run as if killed after its checkpoint of step 10."""
    workdir = tmp_path / "run"
    shutil.copytree(finished_run[0], workdir)
    shutil.rmtree(workdir / "checkpoints" / "20")
    (workdir / "summary.json").unlink()
    kept = "".join(line + "\n" for line in (workdir / "metrics.jsonl").read_text().splitlines()
                   if json.loads(line)["step"] <= 10)
    (workdir / "metrics.jsonl").write_text(kept)
    return workdir


@pytest.mark.slow
def test_the_checkpoint_refuses_another_learning_rate_when_config_json_is_lost(
        finished_run, tmp_path):
    """Issue 37's repro: config.json deleted, then a resume with another rate. The
    checkpoint's own copy of its config refuses it, and rebuilds config.json."""
    from tests.conftest import tiny_config
    workdir = _resumable_at_10(finished_run, tmp_path)
    (workdir / "config.json").unlink()
    changed = tiny_config()
    changed.train.learning_rate = 0.05
    with pytest.raises(ConfigMismatchError, match=r"step 10 .* another config \(train.learning"
                                                  r"_rate: was 0.003, now 0.05\).*--resume_with="
                                                  r"train.learning_rate"):
        train(changed, workdir, progress=False)
    assert not (workdir / "config.json").exists()  # nothing written
    resumed = train(tiny_config(), workdir, progress=False)
    assert json.loads((workdir / "config.json").read_text()) == json.loads(
        (finished_run[0] / "config.json").read_text())
    assert resumed["members"][0]["final"] == finished_run[1]["members"][0]["final"]


@pytest.mark.slow
def test_a_finished_run_without_config_json_is_checked_by_its_checkpoint(finished_run,
                                                                         tmp_path):
    """Issue 72: a finished run whose config.json was deleted, rerun under another rate,
    said "already finished" with the first run's metrics. Its checkpoint's config refuses
    it; with that copy gone too, nothing can check it, and it is refused."""
    from tests.conftest import tiny_config
    workdir = tmp_path / "run"
    shutil.copytree(finished_run[0], workdir)
    (workdir / "config.json").unlink()
    changed = tiny_config()
    changed.train.learning_rate = 0.05
    files = sorted(str(p) for p in workdir.rglob("*"))
    with pytest.raises(ConfigMismatchError, match=r"another config \(train.learning_rate: "
                                                  r"was 0.003, now 0.05\)"):
        train(changed, workdir, progress=False)
    again = train(tiny_config(), workdir, progress=False)  # "already finished"
    assert again["members"][0]["final"] == finished_run[1]["members"][0]["final"]
    for step in ("10", "20"):
        shutil.rmtree(workdir / "checkpoints" / step / "config")
    with pytest.raises(ConfigMismatchError, match=r"config.json is missing and no checkpoint "
                                                  r".* records the config that made them"):
        train(tiny_config(), workdir, progress=False)
    assert sorted(str(p) for p in workdir.rglob("*")) == [
        f for f in files if "/config/" not in f and not f.endswith("/config")]


@pytest.mark.slow
def test_a_resume_with_every_copy_of_its_config_lost_refuses_overrides(finished_run,
                                                                       tmp_path):
    """Issue 72: stopped, config.json and the checkpoint's config deleted, then resumed
    with another rate: it resumed silently, and summary.json named the new rate for the
    steps the old one trained. An override is refused unless --resume_with names it; a
    plain resume goes on, says so, and records that the config was lost."""
    from tests.conftest import tiny_config
    workdir = _resumable_at_10(finished_run, tmp_path)
    (workdir / "config.json").unlink()
    shutil.rmtree(workdir / "checkpoints" / "10" / "config")
    changed = tiny_config()
    changed.train.learning_rate = 0.05
    with pytest.raises(ConfigMismatchError, match=r"step 10 .* is lost .* overrides "
                                                  r"train.learning_rate.*--resume_with="
                                                  r"train.learning_rate"):
        train(changed, workdir, progress=False, overrides=["train.learning_rate"])
    assert not (workdir / "config.json").exists()
    summary = train(tiny_config(), workdir, progress=False)
    assert summary["config_history"] == [{"step": 10, "field": "config", "was": "lost",
                                          "now": "the resuming command's"}]
    assert summary["members"][0]["final"] == finished_run[1]["members"][0]["final"]


@pytest.mark.slow
def test_a_resumed_run_names_every_segment_and_what_changed(finished_run, tmp_path,
                                                            monkeypatch, capsys):
    """Issue 72: a run resumed after a commit named only the new commit. Each segment
    keeps its steps and what it ran on; a resume on another commit says so in one line."""
    from attention_research.running import segments
    from tests.conftest import tiny_config
    first = finished_run[1]["segments"]
    assert [(s["from_step"], s["to_step"]) for s in first] == [(0, 20)]
    assert first[0]["devices"]["mesh"] == {"member": 1, "data": 1}
    workdir = _resumable_at_10(finished_run, tmp_path)
    monkeypatch.setattr(segments, "code_version",
                        lambda: {"commit": "f" * 40, "changed": False})
    summary = train(tiny_config(), workdir, progress=False)
    assert "resuming at step 10 on another setup than the segment before (commit: " in \
        capsys.readouterr().out
    resumed = summary["segments"]
    assert [(s["from_step"], s["to_step"]) for s in resumed] == [(0, 10), (10, 20)]
    assert resumed[0]["code"] == first[0]["code"]
    assert resumed[1]["code"]["commit"] == "f" * 40
    assert summary["members"][0]["final"] == finished_run[1]["members"][0]["final"]


def test_a_resume_on_another_mesh_is_refused_unless_accepted():
    from attention_research.running.segments import MeshChangedError, Segments, environment
    earlier = [{"from_step": 0, "to_step": 10, **environment({"member": 4, "data": 1})}]
    earlier[0]["devices"]["count"] = 4
    with pytest.raises(MeshChangedError, match=r"step 10 was trained on a mesh of member=4x"
                                               r"data=1 \(4 device\(s\)\); this process has "
                                               r"member=1xdata=1.*--resume_with=mesh"):
        Segments().begin(10, earlier, {"member": 1, "data": 1})
    accepted = Segments()
    line = accepted.begin(10, earlier, {"member": 1, "data": 1}, accept_mesh=True)
    assert "devices: 4 -> 1; mesh: member=4xdata=1 -> member=1xdata=1" in line
    assert [s["devices"]["mesh"] for s in accepted.until(20)] == [
        {"member": 4, "data": 1}, {"member": 1, "data": 1}]
    # A checkpoint from before segments were kept: one unrecorded segment, no check.
    assert Segments().begin(10, None, {"member": 1, "data": 1}) is None


# A restore under another model's shapes fails as a corrupt one does: orbax's sibling
# reads end after its event loop closed (see test_a_corrupt_checkpoint_is_reported_...).
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_checkpoint_of_another_model_is_named_so_not_called_damaged(finished_run, tmp_path):
    from tests.conftest import tiny_config
    workdir = _resumable_at_10(finished_run, tmp_path)
    (workdir / "config.json").unlink()
    changed = tiny_config()
    changed.model.hidden_size = 16
    with pytest.raises(ConfigMismatchError, match=r"is of another model or task \(model.hidden"
                                                  r"_size: was \d+, now 16\). It is intact"):
        train(changed, workdir, progress=False)
    # A checkpoint saved before checkpoints kept their config: its shapes tell.
    shutil.rmtree(workdir / "checkpoints" / "10" / "config")
    with pytest.raises(CheckpointError, match=r"step 10 .* is of another model: its \d+ arrays "
                                              r"have other shapes .* It is intact"):
        train(changed, workdir, progress=False)


# A restore under another model's shapes fails as a corrupt one does: orbax's sibling
# reads end after its event loop closed (see test_a_corrupt_checkpoint_is_reported_...).
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_resume_with_changes_the_rate_and_the_steps_and_records_both(finished_run, tmp_path):
    from attention_research.errors import RunError
    from attention_research.running.config_changes import parse_resume_with
    from tests.conftest import tiny_config
    workdir = _resumable_at_10(finished_run, tmp_path)
    changed = tiny_config()
    changed.train.learning_rate = 0.05
    changed.train.num_steps = 30
    fields = parse_resume_with("train.learning_rate, train.num_steps", changed)
    summary = train(changed, workdir, progress=False, resume_with=fields)
    history = [{"step": 10, "field": "train.learning_rate", "was": 0.003, "now": 0.05},
               {"step": 10, "field": "train.num_steps", "was": 20, "now": 30}]
    assert summary["config_history"] == history
    assert json.loads((workdir / "config_history.json").read_text()) == history
    assert summary["steps"] == 30
    assert json.loads((workdir / "config.json").read_text())["train"]["learning_rate"] == 0.05
    # The rate trained with is the new one (it lives in the optimiser state): the
    # losses after step 10 are not the reference's.
    losses = {r["step"]: r["train/loss"] for r in _records(workdir) if "train/loss" in r}
    reference = {r["step"]: r["train/loss"] for r in _records(finished_run[0])
                 if "train/loss" in r}
    assert losses[10] == reference[10] and losses[15] != reference[15]
    # Without --resume_with, the run (now under 0.05) refuses the old rate.
    with pytest.raises(ConfigMismatchError, match="was 0.05, now 0.003"):
        train(tiny_config(), workdir, progress=False)
    for text, words in [("model.hidden_size", "cannot change model.hidden_size"),
                        ("train.optimizer", "cannot change train.optimizer"),
                        ("train.learning_rat", "no field of the config")]:
        with pytest.raises(RunError, match=words):
            parse_resume_with(text, changed)


# When a restore fails, orbax raises on the first failed read while its sibling
# reads finish after orbax's event loop has closed; Python reports those as
# unraisable. That is orbax's noise on the failure path, not ours.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_corrupt_checkpoint_is_reported_and_kept(finished_run, tmp_path):
    from tests.conftest import tiny_config
    workdir = tmp_path / "run"
    shutil.copytree(finished_run[0], workdir)
    for f in (workdir / "checkpoints" / "20" / "state").rglob("*"):
        if f.is_file():
            f.write_bytes(b"")  # as a crash in the middle of writing would leave it
    files_before = sorted((str(p), p.stat().st_size) for p in workdir.rglob("*"))
    # The run had finished: a plain rerun is "already finished" and reads no checkpoint
    # (issue 38); asked to evaluate its final parameters again, it reads the damaged one.
    train(tiny_config(), workdir, progress=False)
    assert sorted((str(p), p.stat().st_size) for p in workdir.rglob("*")) == files_before
    with pytest.raises(CheckpointError, match="checkpoint of step 20 .* Nothing was deleted"):
        train(tiny_config(), workdir, progress=False, refinish=True)
    assert sorted((str(p), p.stat().st_size) for p in workdir.rglob("*")) == files_before


@pytest.mark.parametrize("field, value, words", [
    ("model.attention.score", "no_such_score_probe",
     "valid choices: dot, scaled_dot, general, additive"),
    ("task.name", "palindrome", "valid choices: copy, reverse"),
    ("model.cell", "rnn", "valid choices: lstm, gru"),
    ("task.train_max_length", 0, "train_min_length <= task.train_max_length"),
    ("task.eval_max_length", 3, "must be >= task.train_max_length"),
    ("model.hidden_size", 7, "must be even"),
    ("train.eval_every", 7, "multiple of train.steps_per_call"),
    ("train.warmup_steps", 20, "warmup_steps"),
    ("model.max_source_length", 5, "longest held-out source"),
    ("model.attention.hard.reward", "episode", "valid choices: token, sequence, sequence_mean"),
    ("model.attention.location_width", 4, "location_width must be odd"),
    ("model.attention.coverage_loss", -1.0, "coverage_loss must be >= 0"),
    ("model.attention.normalizer", "entmax15", "monotonic attention turns scores"),
    ("model.attention.score", "none", "pointer_generator copies source tokens"),
    ("train.weight_decay", 0.01, "applied by train.optimizer=adamw only"),  # adam ignored it
    ("train.weight_decay", -0.1, "weight_decay must be >= 0"),
])
def test_bad_configs_are_refused_before_anything_is_written(tmp_path, field, value, words):
    from tests.conftest import tiny_config
    config = tiny_config()
    if "monotonic" in words:
        config.model.attention.alignment = "monotonic"
    if "pointer" in words:
        config.model.pointer_generator = True
    section, name = field.rsplit(".", 1)
    node = config
    for part in section.split("."):
        node = node[part]
    node[name] = value
    with pytest.raises(ConfigError, match=words.replace("(", r"\(")):
        validate(config)
    with pytest.raises(ConfigError):
        train(config, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("field, value, words", [
    ("task.eval_max_length", 100_000, r"the held-out set needs at least [\d.]+ GiB, more "
                                      r"than (three quarters of )?the [\d.]+ GiB free of this "
                                      r"machine's memory: lower "
                                      r"task.eval_max_length"),
    ("model.hidden_size", 100_000, r"the train state .* lower model.hidden_size"),
])
def test_a_run_too_big_for_the_machine_is_refused_before_it_tries(tmp_path, field, value,
                                                                   words):
    """Issue 37: eval_max_length=100000 filled 7.7 GB of RAM in 5 s and kept growing;
    batch_size=1e7 or hidden_size=1e5 met XLA's out-of-memory error after a long wait."""
    import time
    from tests.conftest import tiny_config
    config = tiny_config()
    section, name = field.split(".")
    config[section][name] = value
    started = time.time()
    with pytest.raises(ConfigError, match=words):
        train(config, tmp_path / "run", progress=False)
    assert time.time() - started < 10
    assert not list((tmp_path / "run").glob("checkpoints/[0-9]*"))  # nothing was trained


def test_the_size_guard_measures_against_free_memory(tmp_path, monkeypatch):
    """Issue 72: :tiny with eval_max_length=3000 was only warned about (17.2 GiB of a
    23.5 GiB machine with 8-13 GiB free), and grew to 6 GiB of RSS before failing."""
    from attention_research.training import memory
    from tests.conftest import tiny_config
    config = tiny_config()
    config.task.eval_max_length = 3000
    monkeypatch.setattr(memory, "host_bytes", lambda: 21 * memory.GIB)  # free, not total
    with pytest.raises(ConfigError, match=r"evaluation chunk's attention weights needs at "
                                          r"least 17.2 GiB, more than three quarters of the "
                                          r"21.0 GiB free"):
        train(config, tmp_path / "run", progress=False)


@pytest.mark.slow
def test_a_compiled_train_step_too_big_for_the_device_is_refused(monkeypatch):
    """The third check: XLA's memory analysis of the compiled step, before it runs. (The
    tiny config with train.batch_size=1e7 passes the config's estimates, and this check
    refuses its 82 GiB step after compiling it, ~25 s on a loaded 2-core CPU: too slow to
    repeat here, so the check is tested on a small program and a small device.)"""
    import jax
    import jax.numpy as jnp
    from attention_research.training import memory
    compiled = jax.jit(lambda x: (x * 2).sum()).lower(jnp.ones((1000, 1000))).compile()
    monkeypatch.setattr(memory, "device_bytes", lambda: 1_000_000)
    with pytest.raises(ConfigError, match=r"the train step of 1 member\(s\) needs [\d.]+ GiB, "
                                          r"more than .* lower train.batch_size"):
        memory.check_compiled(compiled, 1)


@pytest.mark.slow
def test_a_small_model_learns_copy(tmp_path):
    from tests.conftest import tiny_config
    config = tiny_config()
    config.task.num_symbols = 8
    config.task.train_max_length = 5
    config.task.eval_max_length = 5
    config.task.eval_examples_per_length = 40
    config.model.hidden_size = 32
    config.model.embed_dim = 16
    config.model.attention.dim = 16
    config.train.batch_size = 32
    config.train.num_steps = 600
    config.train.warmup_steps = 50
    config.train.learning_rate = 1e-2
    config.train.steps_per_call = 50
    config.train.log_every = 100
    config.train.eval_every = 600
    config.train.checkpoint_every = 600
    config.train.num_heatmaps = 0
    summary = train(config, tmp_path, progress=False)
    final = summary["members"][0]["final"]
    assert final["eval/seq_acc/len1-5"] >= 0.95
    assert final["eval/align_acc/len1-5"] >= 0.9  # copy attends along the diagonal


# The configs that bring their own piece of the training loop: a training signal
# (hard: REINFORCE, trained from its config file by the gradient-noise test below;
# coverage: its loss), a training-only rng (monotonic: the noise) or an evaluation
# metric (the pointer-generator's copy rate). The others differ only in the model,
# which test_models, test_alignments and test_configs check.
@pytest.mark.slow
@pytest.mark.parametrize("name", ["coverage", "monotonic", "pointer_generator"])
def test_each_new_config_trains_and_decodes(name, tmp_path):
    import importlib
    config = importlib.import_module(f"configs.{name}").get_config("task=copy,tiny")
    config.train.num_steps = 10
    config.train.eval_every = 10
    final = _assert_trained_and_decoded(train(config, tmp_path, progress=False), tmp_path)
    if name == "pointer_generator":  # how much it copies: the mean 1 − p_gen
        assert 0.0 < final["eval/copy_rate/len1-4"] < 1.0


def _assert_trained_and_decoded(summary, workdir) -> dict:
    """A config's run ended with finite, in-range held-out metrics and its heat maps;
    its final metrics, for the caller's own checks."""
    final = summary["members"][0]["final"]
    assert np.isfinite(final["eval/loss/len1-4"])
    assert 0.0 <= final["eval/seq_acc/len1-4"] <= 1.0
    assert 0.0 <= final["eval/align_acc/len1-4"] <= 1.0
    assert (workdir / "plots" / "attention.png").exists()
    return final


@pytest.mark.slow
@pytest.mark.parametrize("weights, learns", [((0.0, 0.0), False), ((1.0, 1e-3), True)])
def test_hard_attention_scores_learn_only_through_reinforce(weights, learns):
    """The sample is not differentiable: without the REINFORCE and entropy terms the
    score parameters get no gradient at all; with them they move."""
    import jax
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.training.state import create_train_state, make_optimizer
    from attention_research.training.steps import make_train_call
    from tests.conftest import tiny_config
    config = tiny_config()
    config.model.attention.alignment = "hard"
    config.model.attention.hard.reinforce_weight, config.model.attention.hard.entropy_weight = weights
    task = get_task("copy")(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    tx = make_optimizer(config.train)
    signal = training_signal(config.model.attention)
    state = create_train_state(model, tx, task.example_batch(), [0], signal=signal)
    placement = Placement(make_mesh(config.mesh), 1)
    new_state, _ = make_train_call(model, tx, config, placement, task.sample_batch)(state)
    before = state.params["decoder"]["attention"]["score_fn"]
    after = new_state.params["decoder"]["attention"]["score_fn"]
    moved = any(np.any(np.asarray(a) != np.asarray(b)) for a, b in
                zip(jax.tree_util.tree_leaves(before), jax.tree_util.tree_leaves(after)))
    assert moved == learns
    # The signal's state rides in the train state: rewards are log-likelihoods (< 0).
    assert float(new_state.signal_state["reward_baseline"][0]) < 0


def test_mean_and_variance_over_samples_match_numpy():
    import jax.numpy as jnp
    from attention_research.training.steps import mean_and_variance
    table = np.random.default_rng(0).normal(3.0, 2.0, size=(7, 5)).astype(np.float32)
    mean, variance = mean_and_variance(lambda i: jnp.asarray(table)[i], 7, 5)
    np.testing.assert_allclose(mean, table.mean(0), rtol=1e-5)
    np.testing.assert_allclose(variance, table.var(0, ddof=1), rtol=1e-4)


@pytest.mark.slow
def test_gradient_statistics_of_one_fixed_batch_have_no_noise():
    """Soft attention, no dropout, the same batch every draw: the mean gradient is the
    attention's gradient on that batch, computed directly, and the variance is 0."""
    import jax
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.training.state import create_train_state, make_optimizer
    from attention_research.training.steps import (attention_parameters, make_gradient_statistics,
                                                   make_loss)
    from tests.conftest import tiny_config
    config = tiny_config()
    config.train.gradient_batches = 3
    task = get_task("copy")(config)
    batch = task.sample_batch(jax.random.PRNGKey(9))
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    state = create_train_state(model, make_optimizer(config.train), task.example_batch(), [0])
    statistics = make_gradient_statistics(model, config, Placement(make_mesh(config.mesh), 1),
                                          lambda key: batch)
    got = jax.device_get(statistics(state))
    params = jax.tree_util.tree_map(lambda x: x[0], state.params)
    loss = make_loss(model, training_signal(config.model.attention))
    grads = jax.grad(lambda p: loss(p, batch, {}, {})[0])(params)
    direct = np.sqrt(sum(np.sum(np.square(g)) for g in attention_parameters(grads)))
    assert direct > 0
    assert float(got["grad_norm"][0]) == pytest.approx(float(direct), rel=1e-4)
    assert float(got["grad_var"][0]) <= 1e-8 * float(direct) ** 2


@pytest.mark.slow
def test_a_curve_evaluation_logs_the_seen_lengths_between_whole_evaluations(tmp_path):
    """train.curve_eval_every: the seen lengths (1-4) alone every 5 steps, the whole
    held-out set (and the longer lengths) only at the evaluations every 10."""
    from tests.conftest import tiny_config
    config = tiny_config()
    config.train.curve_eval_every = 5
    train(config, tmp_path, progress=False)
    records = _records(tmp_path)
    assert sorted({r["step"] for r in records if "eval/seq_acc/len1-4" in r}) == [5, 10, 15, 20]
    assert sorted({r["step"] for r in records if "eval/seq_acc/len5-6" in r}) == [10, 20]
    curve = [r for r in records if r["step"] == 5 and "eval/seq_acc/len1-4" in r]
    assert curve and all(0 <= r["eval/seq_acc/len1-4"] <= 1 and r["time_s"] > 0
                         for r in curve)


@pytest.mark.slow
def test_a_hard_attention_run_logs_the_reinforce_gradient_noise(tmp_path):
    """configs/hard.py trains and decodes (as test_each_new_config_trains_and_decodes's
    configs do), and with gradient_batches > 0 every evaluation logs the attention
    gradient's mean norm, variance and signal-to-noise ratio; REINFORCE's gradient is
    noisy (variance > 0)."""
    from configs import hard
    config = hard.get_config("task=copy,tiny")
    config.model.attention.hard.update(reward="sequence", soft_fraction=0.5,
                                       soft_unit="sequence")
    config.train.gradient_batches = 4
    config.train.gradient_alt_soft_fraction = 0.0  # every sequence sampled, same points
    summary = train(config, tmp_path, progress=False)
    evaluations = [r for r in _records(tmp_path) if "eval/grad_var/attention" in r]
    assert [r["step"] for r in evaluations] == [10, 20]  # every evaluation of the run
    for record in evaluations:
        for suffix in ("", "_alt"):
            assert record[f"eval/grad_var{suffix}/attention"] > 0
            assert np.isfinite(record[f"eval/grad_snr{suffix}/attention"])
            assert record[f"eval/grad_norm{suffix}/attention"] > 0
    _assert_trained_and_decoded(summary, tmp_path)


@pytest.mark.slow
def test_the_alternative_estimator_is_measured_at_the_same_point():
    """train.gradient_alt_soft_fraction: the alternative model's statistics come from
    the same parameters, baseline and minibatches: with the run's own soft_fraction they
    equal the run's exactly (in the same program); with every sequence sampled they
    differ, and the run's own stay what they were."""
    import jax
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.training.state import create_train_state, make_optimizer
    from attention_research.training.steps import make_gradient_statistics
    from tests.conftest import tiny_config
    config = tiny_config()
    config.model.attention.alignment = "hard"
    config.model.attention.hard.update(reward="sequence_mean", soft_fraction=0.5,
                                       soft_unit="sequence")
    config.train.gradient_batches = 3
    task = get_task("copy")(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    state = create_train_state(model, make_optimizer(config.train), task.example_batch(), [0],
                               signal=training_signal(config.model.attention))
    placement = Placement(make_mesh(config.mesh), 1)

    def measured(fraction):
        other = config.copy_and_resolve_references()
        other.model.attention.hard.soft_fraction = fraction
        alternative = models.make_model(other, task.vocab_size, task.vocab_size)
        return jax.device_get(make_gradient_statistics(
            model, config, placement, task.sample_batch, alternative)(state))

    same, sampled = measured(0.5), measured(0.0)
    for name in ("grad_norm", "grad_var", "grad_snr"):
        assert same[f"{name}_alt"][0] == same[name][0]
        # The run's own, unchanged: the same sums in another program, which XLA may
        # fuse and round differently (the older CPU fusion emitters compile_fast
        # chooses did, by one float32 step), so equal to float32 rounding.
        np.testing.assert_allclose(sampled[name][0], same[name][0], rtol=1e-6)
    assert not np.isclose(sampled["grad_var_alt"][0], same["grad_var"][0], rtol=1e-3)


@pytest.mark.slow
def test_the_score_term_is_measured_apart_and_adds_up_with_the_likelihood():
    """train.gradient_score_term: REINFORCE's surrogate alone, for the run's estimator and
    the alternative at the same point. With REINFORCE off (λ_r = λ_e = 0) its gradient
    is zero, and the whole estimator's is the likelihood's; with it on, the surrogate's
    mean gradient is a part of the whole one (neither zero nor all of it)."""
    import jax
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.tasks import get_task
    from attention_research.training.state import create_train_state, make_optimizer
    from attention_research.training.steps import make_gradient_statistics
    from tests.conftest import tiny_config

    def measured(reinforce_weight, entropy_weight):
        config = tiny_config()
        config.model.attention.alignment = "hard"
        config.model.attention.hard.update(
            reward="sequence_mean", soft_fraction=0.5, soft_unit="sequence",
            reinforce_weight=reinforce_weight, entropy_weight=entropy_weight)
        config.train.update(gradient_batches=3, gradient_score_term=True)
        task = get_task("copy")(config)
        model = models.make_model(config, task.vocab_size, task.vocab_size)
        state = create_train_state(model, make_optimizer(config.train), task.example_batch(),
                                   [0], signal=training_signal(config.model.attention))
        other = config.copy_and_resolve_references()
        other.model.attention.hard.soft_fraction = 0.0
        alternative = models.make_model(other, task.vocab_size, task.vocab_size)
        return jax.device_get(make_gradient_statistics(
            model, config, Placement(make_mesh(config.mesh), 1), task.sample_batch,
            alternative)(state))

    off, on = measured(0.0, 0.0), measured(1.6, 0.032)
    assert {"grad_var_score", "grad_var_alt_score", "grad_snr_alt_score"} <= set(on)
    assert off["grad_norm_score"][0] == 0 and off["grad_norm_alt_score"][0] == 0
    for suffix in ("", "_alt"):
        assert 0 < on[f"grad_norm{suffix}_score"][0]
        assert on[f"grad_var{suffix}_score"][0] > 0
    # the whole estimator moves with REINFORCE on: its surrogate is a part of it
    assert not np.isclose(on["grad_norm"][0], off["grad_norm"][0], rtol=1e-3)


@pytest.mark.parametrize("score, alignment, heads", [
    ("coverage", "global", 1), ("coverage", "hard", 1), ("additive", "global", 2)])
@pytest.mark.slow
def test_the_coverage_loss_is_added_as_see_et_al_write_it(score, alignment, heads):
    """loss = NLL + λ · mean over real target tokens of Σ_s min(α_{t,s}, c_{t,s}),
    c_t = Σ_{t'<t} α_{t'} (See et al. 2017, Eq. 12-13), recomputed here from the
    teacher-forced weights (averaged over heads); beside REINFORCE (hard), both
    signals act."""
    import jax
    import jax.numpy as jnp
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.steps import make_loss
    from tests.conftest import tiny_config
    config = tiny_config(score, task="reverse")
    config.model.attention.alignment = alignment
    config.model.attention.num_heads = heads
    config.model.attention.coverage_loss = 0.5
    task = get_task("reverse")(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    batch = task.example_batch()
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    signal = training_signal(config.model.attention)
    rngs = {"sample": jax.random.PRNGKey(1), "soft_choice": jax.random.PRNGKey(2),
            "dropout": jax.random.PRNGKey(3)}
    loss, (nll, _, _, state) = make_loss(model, signal)(params, batch, rngs,
                                                          signal.init_state())
    assert ("reward_baseline" in state) == (alignment == "hard")
    if alignment == "hard":
        return  # REINFORCE's surrogate is in the loss too; its value is tested elsewhere
    _, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    weights = np.asarray(weights)
    coverage = np.cumsum(weights, axis=1) - weights  # Σ_{t'<t} α_{t'}
    per_token = np.minimum(weights, coverage).sum(-1)
    real = np.asarray(batch.targets) > 0
    expected = float(nll) + 0.5 * (per_token * real).sum() / real.sum()
    assert float(loss) == pytest.approx(expected, rel=1e-5)
    assert float(loss) > float(nll)
    # See et al.'s final phase: with coverage_loss_from 0.8 of 100 steps the loss is
    # off before step 80 and on from it.
    config.model.attention.coverage_loss_from = 0.8
    late = make_loss(model, training_signal(config.model.attention, 100))
    for step, on in ((0, False), (79, False), (80, True), (99, True)):
        value, _ = late(params, batch, rngs, signal.init_state(), step)
        assert float(value) == pytest.approx(expected if on else float(nll), rel=1e-5)
