"""Where a run's time goes (training/timing.py), its FLOPs and the device's peak
(training/flops.py), and the pieces issue 39 made cheaper to start."""

import json
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research.running import peaks
from attention_research.running.checkpoints import host_fingerprints, inspect_members
from attention_research.training import flops, timing
from attention_research.api import train


def test_phases_add_up_to_the_wall_time_and_count_compilation_where_it_happens():
    start = time.time()
    watch = timing.Stopwatch(start)
    try:
        time.sleep(0.05)
        watch.switch("setup")
        x = np.arange(7.0, dtype=np.float32)
        with watch.phase("train_compile"):
            # A function no other test compiles: one program, traced and compiled here.
            jax.jit(lambda x: jnp.sin(x) * 3.25 + 0.125)(x).block_until_ready()
        with watch.evaluation(step=10):
            time.sleep(0.02)
        report = watch.report()
    finally:
        watch.close()
    wall = time.time() - start
    assert abs(report["total_s"] - wall) <= 0.02 * wall
    assert sum(report["phases_s"].values()) == pytest.approx(report["total_s"], abs=0.01)
    assert report["phases_s"]["startup"] >= 0.05
    compiled = report["compilation"]["train_compile"]
    assert compiled["programs"] == 1 and compiled["seconds"] > 0
    assert compiled["seconds"] == pytest.approx(compiled["tracing_s"] + compiled["backend_s"],
                                                abs=0.002)
    assert [e["step"] for e in report["evaluations"]] == [10]
    assert report["evaluations"][0]["seconds"] >= 0.02
    with pytest.raises(ValueError, match="valid|phases are"):
        watch.switch("lunch")


def test_a_sweeps_reports_sum_over_cohorts():
    one = {"phases_s": {"training": 2.0, "evaluation": 1.0}, "total_s": 3.0,
           "compilation": {"evaluation": {"seconds": 0.5, "tracing_s": 0.1, "backend_s": 0.4,
                                          "programs": 2, "cache_hits": 1}},
           "evaluations": [{"step": 5, "kind": "full", "seconds": 1.0, "compile_s": 0.5}]}
    total = timing.sum_reports([one, one, {}])
    assert total["phases_s"]["training"] == 4.0 and total["total_s"] == 6.0
    assert total["compilation"]["evaluation"]["programs"] == 4
    assert total["evaluations"] == 2 and total["evaluation_s"] == 2.0
    assert "training" in timing.describe(total)


def test_matmul_flops_counts_each_scan_iteration_and_the_vmapped_axis():
    w = jnp.ones((8, 3))

    def step(carry, x):  # [4, 8] @ [8, 3] per iteration: 2*4*8*3 = 192 FLOPs
        return carry + jnp.sum(x @ w), None

    def call(xs):  # scan of 5 iterations, inside a jit
        return jax.jit(lambda xs: jax.lax.scan(step, 0.0, xs)[0])(xs)

    one = jax.make_jaxpr(call)(jnp.ones((5, 4, 8)))
    assert flops.matmul_flops(one) == 5 * 192
    members = jax.make_jaxpr(jax.vmap(call))(jnp.ones((7, 5, 4, 8)))
    assert flops.matmul_flops(members) == 7 * 5 * 192
    grads = jax.make_jaxpr(jax.grad(call))(jnp.ones((5, 4, 8)))
    assert flops.matmul_flops(grads) >= 2 * 5 * 192  # forward and the backward dots


def test_xla_cost_analysis_agrees_without_loops_and_counts_a_loop_body_once():
    """Why the runs count FLOPs from the jaxpr: XLA's analysis sees a scan's body once."""
    x, w = jnp.ones((16, 32)), jnp.ones((32, 32))
    plain = jax.jit(lambda x, w: x @ w @ w)
    assert flops.xla_flops(plain.lower(x, w).compile()) == pytest.approx(
        flops.matmul_flops(plain.trace(x, w).jaxpr), rel=0.01)
    looped = jax.jit(lambda x, w: jax.lax.scan(lambda c, _: (c @ w, None), x, None,
                                               length=10)[0])
    counted = flops.matmul_flops(looped.trace(x, w).jaxpr)
    assert counted == 10 * 2 * 16 * 32 * 32
    assert flops.xla_flops(looped.lower(x, w).compile()) < counted / 5


def test_an_unknown_trip_count_is_refused_not_guessed():
    loop = jax.make_jaxpr(lambda x: jax.lax.while_loop(lambda c: c[0] < 3,
                                                       lambda c: (c[0] + 1, c[1] @ c[1]),
                                                       (0, x)))(jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="unknown trip count"):
        flops.matmul_flops(loop)


def test_peaks_published_for_known_chips_and_measured_once_on_a_cpu(tmp_path, monkeypatch):
    peak, source = peaks.published_peak("NVIDIA H100 80GB HBM3", highest_precision=False)
    assert peak == pytest.approx(494.7e12) and "TF32" in source
    assert peaks.published_peak("NVIDIA H100 80GB HBM3", True)[0] == pytest.approx(66.9e12)
    assert "bfloat16" in peaks.published_peak("TPU v4", False)[1]
    assert peaks.published_peak("an unknown chip", False) is None
    monkeypatch.setenv("ATTENTION_RESEARCH_COMPILATION_CACHE", str(tmp_path))
    measured, source = peaks.measured_cpu_peak(size=128, repeats=2)
    assert measured > 0 and "measured" in source
    cached = json.loads((tmp_path / "peak_flops.json").read_text())
    assert list(cached.values()) == [measured]
    assert peaks.measured_cpu_peak(size=128, repeats=2)[0] == measured  # read, not measured


def test_the_host_fingerprint_is_the_jitted_one_word_for_word():
    """Checkpoints saved before issue 39 (jitted fingerprint) restore under the NumPy one."""
    rng = np.random.default_rng(0)
    state = {"a": jnp.asarray(rng.standard_normal((3, 5, 7)), jnp.float32),
             "b": jnp.asarray(rng.integers(-9, 9, (3, 4)), jnp.int32),
             "c": jnp.asarray(rng.random((3, 2)) > 0.5),
             "d": jnp.asarray(rng.standard_normal((3, 6)), jnp.bfloat16),
             "e": jnp.asarray([1.0, np.nan, 2.0], jnp.float32)}
    expected, finite = jax.device_get(inspect_members(state))
    got, got_finite = host_fingerprints(state)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got_finite, finite)


def test_a_runs_summary_says_where_its_time_went(tiny, tmp_path):
    summary = train(tiny(), tmp_path)
    timed = summary["time"]
    assert set(timed["phases_s"]) == set(timing.PHASES)
    assert abs(timed["total_s"] - summary["wall_time_s"]) <= 0.02 * summary["wall_time_s"]
    assert timed["phases_s"]["training"] > 0 and timed["phases_s"]["train_compile"] > 0
    steps = tiny().train
    assert [e["step"] for e in timed["evaluations"] if e["kind"] == "full"] == list(
        range(steps.eval_every, steps.num_steps + 1, steps.eval_every))
    # The evaluation programs compiled in a background thread beside the first train
    # calls; the evaluations themselves compiled nothing.
    # So did the train step, from the initial state's shapes while the main thread made
    # that state: the train_compile phase only waited for it.
    assert timed["compilation"]["background"]["programs"] >= 2
    assert "evaluation" not in timed["compilation"]
    assert "train_compile" not in timed["compilation"]
    throughput = timed["throughput"]
    assert throughput["matmul_gflop_per_member_step"] > 0
    assert 0 < throughput["fraction_of_peak"] < 1
    assert "measured" in throughput["peak_source"]


def test_the_default_evaluation_compiles_two_programs_and_a_long_one_keeps_its_cuts():
    from attention_research.tasks import get_task
    from configs import additive

    config = additive.get_config()
    task = get_task(config.task.name)(config)
    widths = lambda chunks: sorted({c.source.shape[1] for c in chunks})
    seen = int(np.sum(task.eval_lengths <= config.task.train_max_length))
    assert widths(task.held_out_chunks() + task.held_out_chunks(seen)) == [32, 50]
    config.task.update(eval_max_length=200, eval_examples_per_length=4, eval_batch_size=64)
    task = get_task(config.task.name)(config)
    chunks = task.held_out_chunks()
    assert len(widths(chunks)) > 2  # a chunk of short sequences is not decoded to 200
    for chunk in chunks:
        longest = int(np.max(np.sum(chunk.source != 0, axis=1)))
        assert longest <= chunk.source.shape[1] < longest + 32


@pytest.mark.slow
def test_the_benchmark_runs_a_config_in_a_fresh_process_and_reports_its_phases():
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "experiments/benchmark.py",
                           "--config=configs/additive.py:tiny", "--cache=cold",
                           "--set=train.num_steps=10"], cwd=root, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["overrides"] == ["train.num_steps=10"]
    timed = result["time"]
    assert set(timed["phases_s"]) == set(timing.PHASES)
    # What lies outside the phases is the interpreter's start and exit: small.
    assert 0 <= result["process_wall_s"] - timed["total_s"] < 5
    assert "phases sum to" in done.stdout and "train step:" in done.stdout


def test_a_train_step_compiled_ahead_runs_only_on_a_state_that_fits_it():
    """The train step compiled from the state's shapes before the state exists
    (compile_ahead.TrainProgram.start_early) is taken only for a state of those shapes, types and
    placement; anything else is compiled again for the state it has."""
    from jax.sharding import NamedSharding, PartitionSpec as P
    from attention_research.training.compile_ahead import fits, state_spec

    mesh = jax.make_mesh((1,), ("member",))
    members, replicated = NamedSharding(mesh, P("member")), NamedSharding(mesh, P())
    state = {"w": jax.device_put(jnp.zeros((1, 3)), members),
             "step": jax.device_put(jnp.zeros((1,), jnp.int32), members)}
    spec = state_spec(jax.eval_shape(lambda: state), members)
    assert fits(state, spec)
    assert not fits({**state, "w": jax.device_put(jnp.zeros((1, 4)), members)}, spec)
    assert not fits({**state, "w": jax.device_put(jnp.zeros((1, 3), jnp.bfloat16), members)},
                    spec)
    assert not fits({**state, "w": jax.device_put(jnp.zeros((1, 3)), replicated)}, spec)
    assert not fits({**state, "extra": state["step"]}, spec)
    assert not fits({**state, "w": np.zeros((1, 3), np.float32)}, spec)
