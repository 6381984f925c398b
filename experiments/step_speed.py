"""Time one config's compiled train step and count its matrix FLOPs: achieved FLOP/s.

    python experiments/step_speed.py --config=configs/additive.py
    python experiments/step_speed.py --config=configs/additive.py --members=128
    python experiments/step_speed.py --config=configs/transformer.py \\
        --config.model.d_model=256 --config.model.fused_attention=True

The train call is the one ``launch.py`` runs (``training/steps.make_train_call``:
jit(vmap(``train.steps_per_call`` steps in one ``lax.scan``))), built through the
same ``Cohort`` for ``--members`` copies of the config (seeds 0..N-1). It is compiled
ahead of time, run ``--warmup`` calls, then timed over ``--calls`` calls, each waited
for; the median call gives the step time.

FLOPs are counted from the step's jaxpr (``attention_research/training/flops.py``),
not from XLA's cost analysis, which counts the body of a loop once however often it
runs (an RNN's time loop and the ``steps_per_call`` scan are both loops). Every run
logs the same count (``summary.json``'s ``time.throughput``); this script times the
step alone, without start-up or evaluations.

Prints one JSON line: device, members, step time (ms), member-steps/s, matrix FLOPs
per step and achieved FLOP/s (TFLOP/s).

``--profile_top=N`` then traces two more calls with JAX's profiler and adds the N XLA
operations that took longest (``profile``: name, milliseconds a step, share of the
traced calls, runs a step), to see where a step goes: on a CPU, XLA's per-operation
trace events are turned on for it (``--xla_cpu_enable_xprof_traceme``). The profiler
slows small operations, so read the shares, not the absolute times, and time the step
without it.

``--compilation_cache=DIR`` compiles through JAX's persistent cache there, as runs do:
run twice, the second loads the step from the cache (``cache_hits``), and the first
call's loss and health (``first_call``) should match the first run's. On a GPU,
2026-11-27, this program's first call was non-finite at
``JAX_DEFAULT_MATMUL_PRECISION=highest`` on a loaded machine, from the cache and
without it, and finite on a fresh one (experiments/results/gpu/README.md):

    python experiments/step_speed.py --config=experiments/translation_length.py \
        --members=3 --config.task.data_path=.data/multi30k --compilation_cache=off

Cost: `python experiments/step_speed.py --config=configs/additive.py` took 31.7 s of
wall time (9.7 s compiling) on one of this project's 2-core CPUs, both cores also
training a sweep, at 32a59b7 (2026-12-02); on an NVIDIA H200: results/gpu/README.md.

Result: one JSON line on stdout; the GPU's, results/gpu/step_speed.jsonl.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from absl import app, flags
from ml_collections import config_flags

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attention_research.training.flops import matmul_flops  # noqa: E402


def _define_flags():  # only when run: the tests import matmul_flops without the flags
    config_flags.DEFINE_config_file("config", "configs/additive.py", "config file")
    flags.DEFINE_integer("members", 1, "copies of the config, seeds 0..N-1")
    flags.DEFINE_integer("warmup", 3, "untimed train calls after compiling (the "
                         "first is always made)")
    flags.DEFINE_integer("calls", 20, "timed train calls")
    flags.DEFINE_integer("profile_top", 0, "if > 0: profile two calls and list the N "
                         "costliest XLA operations")
    flags.DEFINE_string("compilation_cache", "off", "JAX's persistent compilation cache "
                        "directory (as launch.py's flag); 'off': compile afresh")


# HLO instruction names are lower case (fusion.3, while.12, loop_add_fusion); the
# runtime's spans are CamelCase (ParseArguments, ThunkExecutor::Execute).
HLO_NAME = re.compile(r"[a-z_][a-z0-9_.-]*")
PROFILED_FLAG = "--xla_cpu_enable_xprof_traceme=true"  # CPU thunks emit trace events


def _enable_operation_events():
    """Ask XLA's CPU backend for a trace event per operation; before JAX starts."""
    import os

    from attention_research.running.compilation_cache import xla_knows
    if xla_knows(PROFILED_FLAG):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {PROFILED_FLAG}".strip()


def _profiling_asked(argv) -> bool:
    """Whether the command line asks for ``--profile_top`` > 0, read before absl parses
    it (XLA's flags must be set before JAX starts): ``--profile_top=N`` or
    ``--profile_top N``; a value that is no number is left for absl to refuse."""
    for i, arg in enumerate(argv):
        value = (arg.split("=", 1)[1] if arg.startswith("--profile_top=")
                 else argv[i + 1] if arg == "--profile_top" and i + 1 < len(argv) else None)
        if value is not None:
            try:
                return int(value) > 0
            except ValueError:
                return False
    return False


def profile_operations(run_call, calls: int, steps_per_call: int, top: int) -> list[dict]:
    """The ``top`` XLA operations by time over ``calls`` calls of ``run_call`` (which
    waits for its result), from the profiler's Perfetto trace. Loop bodies' operations
    are listed besides the loop that runs them, so shares are of the traced calls'
    wall time and do not add up to 1."""
    import collections
    import gzip

    import jax
    trace_dir = Path(tempfile.mkdtemp(prefix="step_profile_"))
    with jax.profiler.trace(str(trace_dir), create_perfetto_trace=True):
        start = time.perf_counter()
        for _ in range(calls):
            run_call()
        traced_us = (time.perf_counter() - start) * 1e6
    [trace] = trace_dir.rglob("*.trace.json.gz")
    events = json.load(gzip.open(trace))
    events = events["traceEvents"] if isinstance(events, dict) else events
    total, count = collections.Counter(), collections.Counter()
    for event in events:
        name = event.get("name", "")
        # Complete events named as HLO instructions are (fusion.3, while.12, dot.7):
        # not the Python frames ("$api.py:2479 ...") or the runtime's own spans
        # ("ThunkExecutor::Execute", "PjitFunction(...)"), which hold the operations.
        if event.get("ph") == "X" and HLO_NAME.fullmatch(name):
            total[name] += event.get("dur", 0)
            count[name] += 1
    steps = calls * steps_per_call
    return [{"op": name, "ms_per_step": round(us / 1e3 / steps, 3),
             "share": round(us / traced_us, 4), "runs_per_step": round(count[name] / steps, 2)}
            for name, us in total.most_common(top)]


def main(argv):
    del argv
    options = flags.FLAGS
    # First, before the package's imports, as launch.py does: turned on after them, the
    # cache was never used (0 hits on a second run, JAX 0.10.2).
    from attention_research.running import compilation_cache
    compilation_cache.enable(options.compilation_cache)  # 'off' leaves it off
    import jax
    import numpy as np

    from attention_research.training.config_checks import validate
    from attention_research.running.workdir import WorkDir
    from attention_research.training.loop import Cohort

    config = options.config
    validate(config)
    configs = []
    for seed in range(options.members):
        member = config.copy_and_resolve_references()
        member.seed = seed
        configs.append(member)
    scratch = Path(tempfile.mkdtemp(prefix="step_speed_"))
    cohort = Cohort(configs, [WorkDir(scratch / f"m{i}") for i in range(len(configs))],
                    time.time())
    state = cohort.initial_state()
    inputs = next(iter(cohort.call_inputs(0)))
    start = time.time()
    compiled = cohort.compile_train_call(state, inputs, progress=False)
    compile_s = time.time() - start
    steps = config.train.steps_per_call
    traced = jax.make_jaxpr(cohort.train_program.train_call)(state, *inputs)
    flops_per_call = matmul_flops(traced.jaxpr)

    state, out = compiled(state, *inputs)  # the first call, kept: was it healthy?
    first_call = {"loss": np.asarray(out["loss"]).reshape(-1).tolist(),
                  "grad_norm": np.asarray(out["grad_norm"]).reshape(-1).tolist(),
                  "failed_step": np.asarray(out["failed_step"]).reshape(-1).tolist()}
    for _ in range(options.warmup - 1):
        state, out = compiled(state, *inputs)
    jax.block_until_ready((state, out))
    times = []
    for _ in range(options.calls):
        start = time.perf_counter()
        state, out = compiled(state, *inputs)
        jax.block_until_ready((state, out))
        times.append(time.perf_counter() - start)
    call_s = statistics.median(times)
    device = jax.devices()[0]
    profile = {}
    if options.profile_top > 0:
        def run_call():
            nonlocal state, out
            state, out = compiled(state, *inputs)
            jax.block_until_ready((state, out))
        profile["profile"] = profile_operations(run_call, 2, steps, options.profile_top)
    print(json.dumps({
        "device": f"{device.platform} {device.device_kind}",
        "config": config.name, "members": len(configs),
        "batch_size": config.train.batch_size, "steps_per_call": steps,
        "hidden_size": config.model.hidden_size,
        "train_lengths": [config.task.get("train_min_length"),  # synthetic tasks
                          config.task.get("train_max_length")],
        "fused_attention": config.model.fused_attention,
        "compile_s": round(compile_s, 2),
        "step_ms": round(1e3 * call_s / steps, 4),
        "step_ms_spread": round(1e3 * (max(times) - min(times)) / steps, 4),
        "member_steps_per_s": round(len(configs) * steps / call_s, 1),
        "matmul_gflop_per_step": round(flops_per_call / steps / 1e9, 4),
        "tflop_per_s": round(flops_per_call / call_s / 1e12, 4),
        "loss_finite": bool(np.all(np.isfinite(np.asarray(out["loss"])))),
        "first_call": first_call,  # per member: summed loss and gradient norm, health
        "compilation_cache": options.compilation_cache,
        "cache_hits": sum(entry["cache_hits"]
                          for entry in cohort.stopwatch.compilation.values()),
        **profile,
    }), flush=True)


if __name__ == "__main__":
    _define_flags()
    if _profiling_asked(sys.argv[1:]):
        _enable_operation_events()
    app.run(main)
