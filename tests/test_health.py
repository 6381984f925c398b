"""A run never reports garbage: non-finite values stop a member with a clear error,
no non-finite state is saved, a sweep finishes its healthy members, and a diverging
loss is warned about (attention_research/training/health.py)."""

import json
import math
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research.running import sweeps
from attention_research.running.checkpoints import CheckpointError, Checkpoints
from attention_research.training.health import DivergenceMonitor, NonFiniteError
from attention_research.api import run_sweep, train

# Adam's first steps move every parameter by about the learning rate times the warm-up
# multiplier (0 at step 1, 1/2 at step 2 with tiny's two warm-up steps), so after step 2
# each parameter is about +-5e37, and in step 3 every product of two of them (an
# embedding times a kernel, 2.5e75) overflows float32 to +-inf; a sum holding both signs
# is NaN in any order of addition, so the run fails at step 3 on every machine. At 1e36
# the products stay finite and only some sums overflowed, depending on the order the
# compiled code adds in: the same code and wheels failed at step 3 on earlier CI
# machines and at step 8 on a later one.
HUGE = 1e38


@pytest.mark.parametrize("warmup, clip", [(0, 1.0), (100, 1.0), (500, 0.25)])
def test_the_advice_for_a_non_finite_run_never_repeats_a_value_in_use(tiny, warmup, clip):
    """Issue 37: it suggested --config.train.warmup_steps=0 to a run whose warm-up was
    0, and grad_clip_norm=1 where it was 1."""
    from attention_research.training.health import failure_message
    config = tiny()
    config.train.update(learning_rate=3e-3, warmup_steps=warmup, grad_clip_norm=clip,
                        num_steps=1000)
    message = failure_message(config, 0, 7, 1, None)
    suggested = dict(re.findall(r"--config\.train\.(\w+)=([\d.e+-]+)", message))
    assert float(suggested["learning_rate"]) < 3e-3
    assert float(suggested["grad_clip_norm"]) < clip
    assert "warmup_steps" not in suggested or int(suggested["warmup_steps"]) > warmup
    assert ("warmup_steps" in suggested) == (warmup < 500)  # 500 is already num_steps / 2


def test_a_first_step_failure_is_not_blamed_on_the_learning_rate(tiny):
    """At step 1 the loss and the gradient come from the initial parameters: the
    advice names the debugging switch, not a smaller learning rate (a GPU's first-step
    NaN, 2026-11-27, was advised to lower it)."""
    from attention_research.training.health import GRADIENT, LOSS, PARAMETERS, failure_message
    config = tiny()
    for failure, computed in ((GRADIENT | PARAMETERS, "gradient"), (LOSS, "loss")):
        message = failure_message(config, 0, 1, failure, None)
        assert f"the learning rate is not the cause: the model computed a non-finite " \
               f"{computed} from its initialisation" in message
        assert "JAX_DEBUG_NANS=True" in message and "--config.train" not in message
        assert message.endswith("No non-finite state was saved; no checkpoint had been saved yet.")
    # On a GPU it also names the first-step NaN seen there (docs/speed.md).
    assert "docs/speed.md" not in message
    import attention_research.training.health as health
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(health.jax, "default_backend", lambda: "gpu")
        on_gpu = failure_message(config, 0, 1, GRADIENT, None)
    assert "JAX_DEFAULT_MATMUL_PRECISION=highest" in on_gpu and "docs/speed.md" in on_gpu
    # Parameters alone, or any later step: an update made them, and its size is the suspect.
    for step, failure in ((1, PARAMETERS), (2, GRADIENT)):
        assert "Likely cause: the learning rate is too high" in failure_message(
            config, 0, step, failure, None)


@pytest.mark.slow
def test_a_huge_learning_rate_stops_a_run_with_a_clear_error(tiny, tmp_path):
    config = tiny()
    config.train.learning_rate = HUGE
    with pytest.raises(NonFiniteError, match=r"member 0 \(seed 0, learning rate 1e\+38\): "
                       r"the training loss.* became non-finite .* at step 3\. Likely cause: "
                       r"the learning rate is too high"):
        train(config, tmp_path, progress=False)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["failure"]["step"] == 3
    # It stopped at the first log (step 5), before any checkpoint (step 10): nothing
    # non-finite was saved, and nothing non-finite was logged.
    assert not any((tmp_path / "checkpoints").iterdir())
    metrics = (tmp_path / "metrics.jsonl")
    assert not metrics.exists() or "NaN" not in metrics.read_text()


@pytest.mark.slow
def test_a_sweep_finishes_its_healthy_members_and_reports_the_failed_one(tiny, tmp_path):
    """One cohort of two: member 0 fails at step 3, member 1 trains on to the end;
    every checkpoint the cohort saves holds member 0's last finite state."""
    sweep = sweeps.axis("config.train.learning_rate", [HUGE, 3e-3])
    summaries = run_sweep(tiny(), sweep, tmp_path, progress=False)
    failed, healthy = summaries
    assert healthy["status"] == "finished" and healthy["steps"] == 20
    assert failed["status"] == "failed" and failed["failure"]["step"] == 3
    assert "member 0" in failed["failure"]["message"]
    healthy_dir = tmp_path / "members" / "learning_rate-0.003"
    assert (healthy_dir / "plots" / "learning_curves.png").exists()
    [cohort] = (tmp_path / "cohorts").iterdir()
    checkpoints = Checkpoints(cohort / "checkpoints")
    assert sorted(checkpoints.manager.all_steps()) == [10, 20]
    from attention_research.running.workdir import WorkDir
    from attention_research.training.loop import Cohort
    initial = Cohort([m.config for m in sweeps.expand(tiny(), sweep, tmp_path)],
                     [WorkDir(tmp_path / "scratch0"), WorkDir(tmp_path / "scratch1")],
                     0.0).initial_state()
    state, step = checkpoints.restore_latest(initial)  # verified: intact and finite
    checkpoints.close()
    assert step == 20 and int(state.failed_step[0]) == 3 and int(state.failed_step[1]) == 0
    # Member 0 failed inside the first call, so it keeps the state it began it with.
    for kept, start in zip(jax.tree_util.tree_leaves(state.params),
                           jax.tree_util.tree_leaves(initial.params)):
        np.testing.assert_array_equal(np.asarray(kept)[0], np.asarray(start)[0])
    report = (tmp_path / "summary.md").read_text()
    assert "1 failed: non-finite at step 3" in report
    # The failed member's directory holds no plots of its frozen parameters.
    failed_dir = tmp_path / "members" / sweeps.member_name(sweep[0])
    assert failed_dir.name == "learning_rate-1e38" and failed_dir.is_dir()
    assert not (failed_dir / "plots").exists()
    # The launcher exits non-zero for it, naming it (issue 37).
    from attention_research.running.sweep import failure_line
    assert failure_line(tmp_path) == ("1 sweep member(s) failed (non-finite; summary.json "
                                      "of each says where): learning_rate-1e38")
    # Rerunning the sweep retrains neither member.
    again = run_sweep(tiny(), sweep, tmp_path, progress=False)
    assert [s["status"] for s in again] == ["failed", "finished"]
    assert again[1]["wall_time_s"] == healthy["wall_time_s"]
    # Interrupted after its checkpoint at step 10, such a cohort resumes: the member that
    # failed at step 3 (and has logged nothing since) is not held to the log check.
    class Stop(Exception):
        pass

    def stop_at_15(step):
        if step == 15:
            raise Stop

    with pytest.raises(Stop):
        run_sweep(tiny(), sweep, tmp_path / "interrupted", progress=False, hooks=[stop_at_15])
    resumed = run_sweep(tiny(), sweep, tmp_path / "interrupted", progress=False)
    assert [s["status"] for s in resumed] == ["failed", "finished"]
    assert resumed[1]["members"][0]["final"] == healthy["members"][0]["final"]


@pytest.mark.slow
def test_save_refuses_a_non_finite_state_and_keeps_every_checkpoint(tmp_path):
    checkpoints = Checkpoints(tmp_path, max_to_keep=1)
    good = {"w": jnp.ones((1, 3))}
    checkpoints.save(1, good)
    with pytest.raises(CheckpointError, match="refusing to save step 2: member.* 0 hold "
                       "non-finite values"):
        checkpoints.save(2, {"w": jnp.array([[1.0, np.nan, 1.0]])})
    assert checkpoints.manager.all_steps() == [1]  # max_to_keep=1 deleted nothing
    state, step = checkpoints.restore_latest(good)
    checkpoints.close()
    assert step == 1 and np.all(np.asarray(state["w"]) == 1)


def test_divergence_is_warned_about_once_and_noise_is_not():
    vocabulary = 50
    start = math.log(vocabulary)
    noisy = DivergenceMonitor(vocabulary)
    rng = np.random.default_rng(0)
    for step in range(200):  # a falling loss with noise: no warning
        assert noisy.update(step, start * math.exp(-step / 30) + rng.uniform(0, 0.1)) == []
    exploded = DivergenceMonitor(vocabulary)
    assert "diverged" in exploded.update(50, 1e8)[0]
    assert exploded.update(100, 1e8) == []  # once
    assert len(exploded.warnings) == 1
    rising = DivergenceMonitor(vocabulary)
    warnings = [w for step in range(40)
                for w in rising.update(step, 1.0 if step < 20 else 1.0 + 0.1 * (step - 19))]
    assert len(warnings) == 1 and "rising" in warnings[0]
    assert noisy.finish() == [] and rising.finish() == []
    flat = DivergenceMonitor(vocabulary)
    for step in range(0, 300, 25):
        flat.update(step, start + 0.001 * (step % 2))
    assert "did not fall" in flat.finish()[0] and "learned nothing" in flat.warnings[-1]


@pytest.mark.slow
def test_a_run_that_learned_nothing_says_so_in_its_last_line(tmp_path):
    """Issue 72: learning_rate=1e-35 finished at sequence accuracy 0 with no word."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "launch.py", "--config=configs/additive.py:tiny",
                           "--config.train.learning_rate=1e-35", f"--workdir={tmp_path}",
                           "--config.train.num_steps=60"],  # 12 logs: enough to tell
                          cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith(
        "warning: train loss did not fall")


@pytest.mark.slow
def test_a_finite_divergence_is_a_warning_in_the_summary(tiny, tmp_path):
    config = tiny()
    config.train.learning_rate = 1e6  # finite, but the loss blows far past ln(vocabulary)
    summary = train(config, tmp_path, progress=False)
    assert summary["status"] == "finished"
    assert any("diverged" in w for w in summary["warnings"])
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["warnings"] == summary["warnings"]


@pytest.mark.slow
def test_random_bytes_in_a_checkpoint_data_file_are_caught_by_its_checksum(tmp_path):
    """Bytes overwritten inside an array's data decode to other numbers without any
    error from orbax; the checksum recorded at save time refuses them, and the error
    names the older intact checkpoint."""
    rng = np.random.default_rng(0)
    states = [{"w": jnp.asarray(rng.normal(size=(1, 256, 1024)), jnp.float32)} for _ in range(2)]
    checkpoints = Checkpoints(tmp_path)
    checkpoints.save(1, states[0])
    checkpoints.save(2, states[1])
    checkpoints.check()  # saves run in the background: wait for this one
    largest = max((p for p in (tmp_path / "2").rglob("*") if p.is_file()),
                  key=lambda p: p.stat().st_size)
    data = bytearray(largest.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4096] = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
    largest.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"step 2 .* no longer match the checksum .* "
                       r"Nothing was deleted\. The checkpoint of step 1 is intact"):
        checkpoints.restore_latest(states[0])
    checkpoints.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1", "2"]
