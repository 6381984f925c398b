"""experiments/gpu_sweep.sh: a sweep's finished members come back in one archive, and
a work directory made from it resumes without retraining them."""

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Two members in two cohorts, trained as two parts at once (PARTS=2), as a GPU call
# trains a sweep's cohorts side by side.
SWEEP = ["--config=experiments/benchmark_sweep.py:members=2,tiny",
         "--config.max_cohort_members=1"]


@pytest.mark.slow
def test_finished_members_come_back_and_are_not_retrained(tmp_path):
    out, work = tmp_path / "out", tmp_path / "device_work"
    env = {**os.environ, "OUT": str(out), "WORK": str(work), "BUDGET": "240",
           "PYTHON": sys.executable, "PARTS": "2"}
    done = subprocess.run(["bash", "experiments/gpu_sweep.sh", *SWEEP], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 finished member(s)" in done.stdout
    log = (out / "log.txt").read_text()
    assert "[part 1/2] cohort 1/2" in log and "[part 2/2] cohort 2/2" in log
    with tarfile.open(out / "members.tgz") as archive:
        names = sorted(archive.getnames())
        assert names == ["commands.txt"] + [
            f"members/seed-{seed}/{name}" for seed in (0, 1)
            for name in ("config.json", "metrics.jsonl", "summary.json")]
        here = tmp_path / "here"
        archive.extractall(here)
    again = subprocess.run([sys.executable, "launch.py", *SWEEP, f"--workdir={here}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "finished before, not retrained" in again.stdout + again.stderr
