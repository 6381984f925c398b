"""experiments/step_speed.py: its matrix-FLOP count, and one run of it end to end."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("_step_speed", ROOT / "experiments" / "step_speed.py")
step_speed = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(step_speed)


def test_matmul_flops_counts_each_scan_iteration_and_the_vmapped_axis():
    w = jnp.ones((8, 3))

    def step(carry, x):  # [4, 8] @ [8, 3] per iteration: 2*4*8*3 = 192 FLOPs
        return carry + jnp.sum(x @ w), None

    def call(xs):  # scan of 5 iterations, inside a jit
        return jax.jit(lambda xs: jax.lax.scan(step, 0.0, xs)[0])(xs)

    one = jax.make_jaxpr(call)(jnp.ones((5, 4, 8))).jaxpr
    assert step_speed.matmul_flops(one) == 5 * 192
    members = jax.make_jaxpr(jax.vmap(call))(jnp.ones((7, 5, 4, 8))).jaxpr
    assert step_speed.matmul_flops(members) == 7 * 5 * 192
    grads = jax.make_jaxpr(jax.grad(call))(jnp.ones((5, 4, 8))).jaxpr
    assert step_speed.matmul_flops(grads) >= 2 * 5 * 192  # forward and the backward dots


def test_an_unknown_trip_count_is_refused_not_guessed():
    loop = jax.make_jaxpr(lambda x: jax.lax.while_loop(lambda c: c[0] < 3,
                                                       lambda c: (c[0] + 1, c[1] @ c[1]),
                                                       (0, x)))(jnp.ones((2, 2))).jaxpr
    with pytest.raises(ValueError, match="unknown trip count"):
        step_speed.matmul_flops(loop)


@pytest.mark.slow
def test_step_speed_times_a_two_member_cohort():
    done = subprocess.run([sys.executable, "experiments/step_speed.py",
                           "--config=configs/additive.py:tiny", "--members=2", "--warmup=1",
                           "--calls=2"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["members"] == 2 and result["loss_finite"]
    assert result["step_ms"] > 0 and result["matmul_gflop_per_step"] > 0
