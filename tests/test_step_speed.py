"""experiments/step_speed.py end to end (its FLOP count: tests/test_timing.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _step_speed(*flags) -> dict:
    done = subprocess.run([sys.executable, "experiments/step_speed.py",
                           "--config=configs/additive.py:tiny", "--members=2", "--warmup=1",
                           "--calls=2", *flags], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_step_speed_times_a_two_member_cohort(tmp_path):
    # The profile's XLA flag is part of the cache's key: both runs profile.
    flags = ("--profile_top=3", f"--compilation_cache={tmp_path / 'cache'}")
    result = _step_speed(*flags)
    assert result["members"] == 2 and result["loss_finite"]
    # Again, the step from the cache: its first call computes what the fresh one did.
    again = _step_speed(*flags)
    assert result["cache_hits"] == 0 and again["cache_hits"] >= 1
    assert again["first_call"] == result["first_call"]
    assert all(step == 0 for step in result["first_call"]["failed_step"])
    assert result["step_ms"] > 0 and result["matmul_gflop_per_step"] > 0
    # The profile lists XLA's operations, costliest first.
    profile = result["profile"]
    assert len(profile) == 3 and all(op["ms_per_step"] > 0 and op["share"] > 0 for op in profile)
    assert [op["ms_per_step"] for op in profile] == sorted(
        (op["ms_per_step"] for op in profile), reverse=True)


def test_profiling_is_asked_in_either_flag_form_and_lists_hlo_operations_only():
    from experiments.step_speed import HLO_NAME, _profiling_asked
    # Read before absl parses the command line: both of absl's forms count.
    assert _profiling_asked(["--config=c.py", "--profile_top=5"])
    assert _profiling_asked(["--profile_top", "5", "--members=2"])
    assert not _profiling_asked(["--profile_top=0"])
    assert not _profiling_asked(["--profile_top", "x"])  # absl refuses it, not us
    assert not _profiling_asked(["--members=2"])
    # HLO instructions, not the runtime's spans around them.
    for name in ("fusion.3", "while.12", "loop_add_fusion", "custom-call.1"):
        assert HLO_NAME.fullmatch(name), name
    for name in ("ParseArguments", "ThunkExecutor::Execute", "PjitFunction(step)"):
        assert not HLO_NAME.fullmatch(name), name
