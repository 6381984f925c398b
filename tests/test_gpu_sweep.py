"""experiments/gpu_sweep.sh: a sweep's finished members come back in one archive, and
a work directory made from it resumes without retraining them."""

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SWEEP = "--config=experiments/benchmark_sweep.py:members=1,tiny"


@pytest.mark.slow
def test_finished_members_come_back_and_are_not_retrained(tmp_path):
    out, work = tmp_path / "out", tmp_path / "device_work"
    env = {**os.environ, "OUT": str(out), "WORK": str(work), "BUDGET": "240",
           "PYTHON": sys.executable}
    done = subprocess.run(["bash", "experiments/gpu_sweep.sh", SWEEP], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 finished member(s)" in done.stdout
    with tarfile.open(out / "members.tgz") as archive:
        names = sorted(archive.getnames())
        assert names == ["members/seed-0/config.json", "members/seed-0/metrics.jsonl",
                         "members/seed-0/summary.json"]
        here = tmp_path / "here"
        archive.extractall(here)
    again = subprocess.run([sys.executable, "launch.py", SWEEP, f"--workdir={here}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "finished before, not retrained" in again.stdout + again.stderr
