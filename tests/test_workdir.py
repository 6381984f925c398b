"""The work directory keeps what was written: a lock against a second run (taken over
after kill -9), TensorBoard rebuilt to match metrics.jsonl, files written whole, and
damaged files named in the error."""

import errno
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from attention_research.running import sweeps
from attention_research.errors import explain
from attention_research.running.lock import DirectoryLock, WorkDirLockedError
from attention_research.reports.verdicts import verdict
from attention_research.api import run_sweep, train
from attention_research.running.workdir import WorkDir, WorkDirError, write_atomically
from tests.conftest import metrics_scalars, tensorboard_scalars

ROOT = Path(__file__).resolve().parents[1]

# Trains the tiny config, then sleeps after logging step 15 (its last checkpoint is
# step 10), so the test can kill it at a known point.
_SLEEPER = """
import sys, time
from tests.conftest import tiny_config
from attention_research.api import train
def hook(step):
    if step == 15:
        print("sleeping", flush=True)
        time.sleep(600)
train(tiny_config(), sys.argv[1], hooks=[hook], progress=False)
"""


@pytest.mark.slow
def test_kill_9_then_resume_keeps_tensorboard_complete_and_the_lock_is_taken_over(
        tiny, tmp_path):
    workdir = tmp_path / "run"
    sleeper = subprocess.Popen([sys.executable, "-c", _SLEEPER, str(workdir)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert sleeper.stdout.readline().strip() == "sleeping"
        # A second run in the same directory is refused at once, naming the holder.
        with pytest.raises(WorkDirLockedError, match=rf"in use by another run \(pid "
                           rf"{sleeper.pid} on host {socket.gethostname()}"):
            train(tiny(), workdir, progress=False)
        os.kill(sleeper.pid, signal.SIGKILL)
        sleeper.wait(timeout=60)
    finally:
        sleeper.kill()
    assert max(r["step"] for r in WorkDir(workdir).read_metrics()) == 15
    # The killed process's lock is free: the rerun takes it and resumes from step 10.
    resumed = train(tiny(), workdir, progress=False)
    reference = train(tiny(), tmp_path / "reference", progress=False)
    assert resumed["members"][0]["final"] == reference["members"][0]["final"]
    board = tensorboard_scalars(workdir)
    assert sorted(board) == sorted((s, t, np.float32(v)) for s, t, v in metrics_scalars(workdir))
    assert len(set(board)) == len(board)  # no step twice
    assert (workdir / "lock").read_text() == ""  # released: no holder named


def test_a_lock_is_exclusive_and_released(tmp_path):
    with DirectoryLock(tmp_path):
        holder = json.loads((tmp_path / "lock").read_text())
        assert holder["pid"] == os.getpid()
        with pytest.raises(WorkDirLockedError, match=f"pid {os.getpid()}"):
            DirectoryLock(tmp_path).acquire()
    with DirectoryLock(tmp_path):  # free again
        pass


@pytest.mark.slow
def test_a_lock_deleted_under_a_run_stops_it(tiny, tmp_path):
    """Issue 37: flock holds a deleted inode, so a second run could lock a new file and
    write beside the first. The run checks its lock at every train call."""
    def delete_lock(step):
        if step == 5:
            (tmp_path / "lock").unlink()
    with pytest.raises(WorkDirLockedError, match=r"deleted or replaced .* stopped at step 10"):
        train(tiny(), tmp_path, hooks=[delete_lock], progress=False)
    assert train(tiny(), tmp_path, progress=False)["steps"] == 20  # resumes from step 10


def test_one_kind_of_run_per_work_directory(tmp_path):
    """Issue 37: a single run and a sweep in one directory overwrote each other's plots."""
    from attention_research.running.kinds import claim
    from attention_research.running.workdir import WorkDirError
    claim(tmp_path / "a", "run", "additive.py:tiny")
    claim(tmp_path / "a", "run", "additive.py:tiny")  # the same run, resumed
    with pytest.raises(WorkDirError, match=r"holds a single run of additive.py:tiny; this is "
                                           r"a sweep of compare_attention.py\. One kind"):
        claim(tmp_path / "a", "sweep", "compare_attention.py")
    with pytest.raises(WorkDirError, match="this is a single run of dot.py"):
        claim(tmp_path / "a", "run", "dot.py")
    # A directory from before kind.json: its files tell what it holds.
    (tmp_path / "b" / "members").mkdir(parents=True)
    with pytest.raises(WorkDirError, match="holds a sweep; this is a single run"):
        claim(tmp_path / "b", "run", "additive.py")
    assert not (tmp_path / "b" / "kind.json").exists()  # nothing written when refused
    claim(tmp_path / "b", "sweep", "compare_attention.py:replicate")
    with pytest.raises(WorkDirError, match="holds a sweep of compare_attention.py:replicate"):
        claim(tmp_path / "b", "sweep", "compare_attention.py")


def test_a_directory_where_the_lock_or_a_summary_should_be_is_named(tmp_path):
    """Issue 37: `lock` or `summary.json` made a directory gave a bare IsADirectoryError."""
    from attention_research.running.workdir import read_json
    (tmp_path / "lock").mkdir()
    with pytest.raises(WorkDirLockedError, match=r"lock is a directory.*move it away"):
        DirectoryLock(tmp_path).acquire()
    (tmp_path / "summary.json").mkdir()
    with pytest.raises(WorkDirError, match=r"summary\.json is a directory.*move it away"):
        read_json(tmp_path / "summary.json")


def test_a_torn_last_metrics_line_is_dropped_and_a_damaged_one_named(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"step": 5, "member": 0, "train/loss": 1.0}\n{"step": 10, "memb')
    workdir = WorkDir(tmp_path)
    assert [r["step"] for r in workdir.read_metrics()] == [5]
    workdir.resume_at(5)
    workdir.close()
    assert path.read_text() == '{"step": 5, "member": 0, "train/loss": 1.0}\n'
    path.write_text('{"step": 5, "memb\n{"step": 10, "member": 0}\n')
    with pytest.raises(WorkDirError, match="metrics.jsonl line 1 is damaged"):
        WorkDir(tmp_path).read_metrics()
    # issue 72: a middle line that parses but is no log row, and bytes that are not UTF-8,
    # each named by file and line before anything trains
    path.write_text('{"step": 5, "member": 0}\n{"step": 10}\n{"step": 15, "member": 0}\n')
    with pytest.raises(WorkDirError, match=r"metrics.jsonl line 2 is damaged: .*'step' and "
                                           r"'member'"):
        WorkDir(tmp_path).read_metrics()
    path.write_text('{"step": 5, "member": 0}\n{"step": 10, "member": 0, "train/loss": "1"}\n')
    with pytest.raises(WorkDirError, match=r"metrics.jsonl line 2 is damaged: .* and numbers"):
        WorkDir(tmp_path).read_metrics()
    path.write_bytes(b'{"step": 5, "member": 0}\n{"step": 10, "member": 0, "x": "\xff"}\n')
    with pytest.raises(WorkDirError, match=r"metrics.jsonl line 2 is damaged: not UTF-8 "
                                           r"\(byte 0xff\)"):
        WorkDir(tmp_path).read_metrics()


def test_a_summary_is_written_whole_or_not_at_all(tmp_path):
    write_atomically(tmp_path / "summary.json", '{"old": true}\n')
    with pytest.raises(TypeError):
        WorkDir(tmp_path).write_summary({"unserialisable": object()})
    assert (tmp_path / "summary.json").read_text() == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]  # no temporary left
    WorkDir(tmp_path).write_summary({"loss": float("nan"), "nested": [float("inf"), 1.0]})
    assert json.loads((tmp_path / "summary.json").read_text()) == {"loss": None,
                                                                  "nested": [None, 1.0]}


def test_a_run_resumes_with_its_corpus_files_found_elsewhere(tmp_path):
    from configs import base
    config = base.get_config("task=translation")
    config.task.data_path = ".data/multi30k"  # the copy a GPU machine was sent
    WorkDir(tmp_path).check_or_write_config(config)
    config.task.data_path = "../shared/data/multi30k"
    WorkDir(tmp_path).check_or_write_config(config)  # accepted: the same pinned files
    assert json.loads((tmp_path / "config.json").read_text())["task"]["data_path"] == (
        "../shared/data/multi30k")


@pytest.mark.slow
def test_a_resume_may_change_only_how_much_is_computed_at_once(tiny, tmp_path):
    from attention_research.running.config_changes import ConfigMismatchError
    config = tiny()
    WorkDir(tmp_path).check_or_write_config(config)
    config.task.eval_batch_size = 7  # a resource field: accepted, and recorded
    WorkDir(tmp_path).check_or_write_config(config)
    assert json.loads((tmp_path / "config.json").read_text())["task"]["eval_batch_size"] == 7
    config.train.learning_rate = 0.5  # what is computed: refused, config.json kept
    with pytest.raises(ConfigMismatchError, match="train.learning_rate: was .*, now 0.5"):
        WorkDir(tmp_path).check_or_write_config(config)
    assert json.loads((tmp_path / "config.json").read_text())["train"]["learning_rate"] != 0.5


@pytest.mark.slow
def test_a_run_written_before_a_field_existed_resumes_with_its_old_behaviour(tiny, tmp_path):
    from attention_research.running.config_changes import ConfigMismatchError
    config = tiny()
    WorkDir(tmp_path).check_or_write_config(config)
    saved = json.loads((tmp_path / "config.json").read_text())
    del saved["analysis"]  # a run begun before config.analysis existed: the analysis off
    (tmp_path / "config.json").write_text(json.dumps(saved))
    WorkDir(tmp_path).check_or_write_config(config)
    config.analysis.implicit = "gradient"
    with pytest.raises(ConfigMismatchError, match="analysis.implicit: was '', now 'gradient'"):
        WorkDir(tmp_path).check_or_write_config(config)


@pytest.mark.slow
def test_a_damaged_member_summary_is_named(tiny, tmp_path):
    sweep = sweeps.axis("config.seed", [0])
    run_sweep(tiny(), sweep, tmp_path, progress=False)
    summary = tmp_path / "members" / "seed-0" / "summary.json"
    summary.write_text(summary.read_text()[:100])
    with pytest.raises(WorkDirError, match=f"{summary} is damaged .* Delete it and rerun"):
        run_sweep(tiny(), sweep, tmp_path, progress=False)


def test_a_winner_is_named_only_when_a_test_separates_it():
    assert verdict({"dot": [0.5, 0.52, 0.51], "additive": [0.7, 0.71, 0.69]}).startswith(
        "**additive** (separated from dot by +0.190 [+0.167, +0.213]; p ")  # one test: no Holm
    assert verdict({"dot": [0.5, 0.52, 0.51], "additive": [0.7, 0.71, 0.69],
                    "general": [0.4, 0.41, 0.39]}).startswith(
        "**additive** (separated from every other setting; the closest, dot, by +0.190 "
        "[+0.167, +0.213]; largest Holm-corrected p ")
    tie = verdict({"dot": [0.7, 0.7], "additive": [0.7, 0.7]})
    assert tie.startswith("none: the best mean") and "not separated from" in tie
    close = verdict({"dot": [0.80, 0.90, 0.70], "additive": [0.82, 0.88, 0.79]})
    assert close.startswith("none: the best mean, additive (0.830), is not separated "
                            "from dot (+0.030 [-0.180, +0.240], p ")
    one_seed = verdict({"dot": [0.5], "additive": [0.7]})
    assert "dot (under 2 seeds: no test)" in one_seed
    assert verdict({"dot": [0.0, 0.0], "none": [0.0]}) == "none (every setting scored 0)"
    assert verdict({"dot": [None], "none": []}) == "none (every member failed)"
    assert verdict({"dot": [0.9, None], "none": [None]}) == "none (only dot has results)"


@pytest.mark.parametrize("error, words", [
    (OSError(errno.ENOSPC, "No space left on device", "/w/checkpoints"), "disk is full"),
    (OSError(errno.EACCES, "Permission denied", "/w"), "pass a --workdir you can write"),
    (ValueError('OUT_OF_RANGE: Error writing "x": No space left on device'), "disk is full"),
    (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero (rerun "
                                            "with --verbose"),
])
def test_errors_are_explained_in_one_line(error, words):
    line = explain(error)
    assert words in line and "\n" not in line


def test_an_unwritable_work_directory_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """Read-only: root ignores permission bits, so the refused write is simulated."""
    from attention_research.running import workdir as workdir_module

    def refuse(self, text):
        raise PermissionError(errno.EROFS, "Read-only file system", str(self))
    monkeypatch.setattr(workdir_module.Path, "write_text", refuse)
    with pytest.raises(WorkDirError, match="cannot write to the work directory .*: the file "
                       "system is read-only. Pass a --workdir you can write to"):
        workdir_module.ensure_writable(tmp_path / "run")


_READ_ONLY_LAUNCH = """
import builtins, errno, io, os, runpy, sys
root = os.path.realpath(sys.argv[1])
real_open = io.open
def read_only(file, mode="r", *args, **kwargs):
    if any(c in mode for c in "wax+") and os.path.realpath(str(file)).startswith(root):
        raise PermissionError(errno.EROFS, "Read-only file system", str(file))
    return real_open(file, mode, *args, **kwargs)
builtins.open = io.open = read_only
sys.argv = ["launch.py", *sys.argv[2:]]
runpy.run_path("launch.py", run_name="__main__")
"""


@pytest.mark.slow
def test_a_finished_run_in_a_read_only_directory_says_it_is_finished(tmp_path):
    """Issue 72: it could not even print "already finished" (the write probe refused it).
    Root ignores permission bits, so every write under the directory is refused here."""
    workdir = tmp_path / "run"
    args = ["--config=configs/additive.py:tiny", f"--workdir={workdir}"]
    assert _launch(*args).returncode == 0
    done = subprocess.run([sys.executable, "-c", _READ_ONLY_LAUNCH, str(workdir), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "already finished" in done.stdout
    # Unfinished, it must write: refused in one line.
    (workdir / "summary.json").unlink()
    done = subprocess.run([sys.executable, "-c", _READ_ONLY_LAUNCH, str(workdir), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "error: cannot write to the work directory" in done.stderr


def _launch(*args, shell_prefix=""):
    command = [sys.executable, "launch.py", *args]
    if shell_prefix:  # limits set in a shell, not in a forked copy of this threaded process
        command = ["bash", "-c", shell_prefix + "; exec " + " ".join(map(shlex.quote, command))]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


_FILLS_TENSORBOARD = """
import sys
from attention_research.running.workdir import WorkDir, WorkDirError
workdir = WorkDir(sys.argv[1])
try:
    for step in range(1, 5000):
        workdir.log(step, 0, {f"train/m{i}": 0.5 for i in range(50)})
except WorkDirError as error:
    print(error)
"""


@pytest.mark.slow
def test_a_tensorboard_file_that_cannot_grow_is_one_error_naming_it(tmp_path):
    """Issue 37: EFBIG on the event file printed two tensorboardX tracebacks (its
    writer thread's and its exit hook's) and named no file."""
    done = subprocess.run(
        ["bash", "-c", "trap '' XFSZ; ulimit -f 200; exec " + shlex.join(
            [sys.executable, "-c", _FILLS_TENSORBOARD, str(tmp_path)])],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.startswith(f"cannot write TensorBoard's event file {tmp_path}/"
                                  "events.out.tfevents."), done.stdout
    assert "ulimit -f" in done.stdout and "metrics.jsonl holds every value" in done.stdout
    assert done.stderr.strip() == ""  # no traceback from tensorboardX's threads or exit


@pytest.mark.slow
def test_ctrl_c_stops_at_the_next_log_with_a_checkpoint_and_one_line(tmp_path):
    """Issue 37: SIGTERM (how Slurm and Kubernetes preempt) exited 143 with no message
    and left an orbax tmp directory, and Ctrl-C sometimes ended in a segfault. Both now
    stop at the next log with a checkpoint and one line (SIGTERM, in-process, with the
    exact resume: test_training.py); Ctrl-C exits 130."""
    workdir = tmp_path / "run"
    run = subprocess.Popen([sys.executable, "launch.py", "--config=configs/additive.py:tiny",
                            "--config.train.num_steps=100000", f"--workdir={workdir}"],
                           cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 300
        while not (workdir / "metrics.jsonl").is_file() and time.time() < deadline:
            time.sleep(0.2)
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=300)
    finally:
        run.kill()
    assert run.returncode == 130
    # Besides the progress bar (tqdm writes to stderr), one line.
    lines = [line for line in stderr.splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1 and lines[0].startswith("stopped by SIGINT at step "), stderr
    assert "Traceback" not in stderr
    step = int(lines[0].split("at step ")[1].split(",")[0])
    assert step == max(r["step"] for r in WorkDir(workdir).read_metrics())  # nothing lost
    assert (workdir / "checkpoints" / str(step)).is_dir()
    assert not [p for p in workdir.rglob("*") if "tmp" in p.name]


@pytest.mark.parametrize("args, words", [
    (["--config=configs/nonexistent.py"], "no config file configs/nonexistent.py; the "
                                          "configs are configs/additive.py"),
    (["--config=configs/additive.py:tiny", "--config.train.learning_rat=1"],
     "--config.train.learning_rat=1: the config has no field 'learning_rat'; did you mean "
     "'learning_rate'?"),
    (["--config=configs/additive.py:task=nonexistent"], "task must be one of copy"),
    (["--config=configs/additive.py:tiny", "--workdir=README.md"],
     "cannot write to the work directory README.md: a file of that name is in the way"),
    (["--config=configs/additive.py:tiny", "--workdir=README.md/run"],
     "part of the path is a file, not a directory"),
])
@pytest.mark.slow
def test_launch_explains_bad_input_in_one_line(args, words):
    # Without and with --verbose at once: each launch is mostly start-up on one core.
    runs = [subprocess.Popen([sys.executable, "launch.py", *a], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for a in (args, [*args, "--verbose"])]
    (stdout, stderr), (_, verbose_stderr) = [run.communicate(timeout=600) for run in runs]
    assert runs[0].returncode != 0
    errors = [line for line in stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error: ") and words in errors[0], stderr
    assert "Traceback" not in stdout + stderr
    assert "Traceback" in verbose_stderr


@pytest.mark.slow
def test_a_failed_save_stops_training_in_one_line(tmp_path):
    """A full disk, simulated by a file-size limit (writes past it fail with EFBIG)."""
    workdir = tmp_path / "run"
    done = _launch("--config=configs/additive.py:tiny", f"--workdir={workdir}",
                   "--compilation_cache=off", shell_prefix="trap '' XFSZ; ulimit -f 40")
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and "the checkpoint of step 10 could not be saved" in lines[0]
    assert "raise the limit and rerun the same command" in lines[0]
    assert "Traceback" not in done.stderr
    # The save at step 10 failed; training stopped at the next log (step 15), before
    # logging it, not at the end (20).
    assert max(r["step"] for r in WorkDir(workdir).read_metrics()) == 10
    assert not [p for p in (workdir / "checkpoints").iterdir() if p.name.isdigit()]
    started = time.time()
    assert _launch("--config=configs/additive.py:tiny", f"--workdir={workdir}").returncode == 0
    assert time.time() - started < 300
    assert json.loads((workdir / "summary.json").read_text())["status"] == "finished"


@pytest.mark.slow
def test_a_failed_save_is_not_buried_under_orbax_echoes(tmp_path):
    """Issue 72: with ``ulimit -f 300`` the default model's save failed, and its one line
    came after about 290 "RuntimeError: Event loop is closed" tracebacks."""
    done = _launch("--config=configs/additive.py", "--config.train.num_steps=300",
                   "--config.train.checkpoint_every=100", "--config.train.eval_every=100",
                   f"--workdir={tmp_path / 'run'}", "--compilation_cache=off",
                   shell_prefix="trap '' XFSZ; ulimit -f 300")
    assert done.returncode != 0
    assert "Event loop is closed" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "error: the checkpoint of step 100 could not be saved")


def test_a_summary_names_the_code_that_trained_it(monkeypatch):
    """summary.json keeps the commit (a replication can show it ran the first run's
    code); outside a git checkout, as in CI's copy or an installed package, None."""
    import subprocess
    from attention_research.running import provenance
    provenance.code_version.cache_clear()
    found = provenance.code_version()
    assert found is None or (len(found["commit"]) == 40 and isinstance(found["changed"], bool))

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")
    monkeypatch.setattr(subprocess, "run", no_git)
    provenance.code_version.cache_clear()
    assert provenance.code_version() is None
    provenance.code_version.cache_clear()


def test_a_summary_names_the_software_that_trained_it():
    """summary.json keeps the versions that can change a run's numbers (the GPU's image
    and this machine differ in jax and SentencePiece)."""
    import platform

    import jax
    from attention_research.running import provenance
    found = provenance.software_versions()
    assert found["python"] == platform.python_version() and found["jax"] == jax.__version__
    assert set(found) == {"python", *provenance.VERSIONED_PACKAGES}
