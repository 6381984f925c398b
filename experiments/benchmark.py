"""Where a config's time goes, from a fresh process: wall time, time to 0.99, the phases
of the run (``attention_research/training/timing.py``), what compiled, each evaluation's
cost, and the train step's FLOP/s against the device's peak (issue 39).

    python experiments/benchmark.py --config=configs/additive.py
    python experiments/benchmark.py --config=configs/transformer.py --members=8
    python experiments/benchmark.py --config=configs/additive.py --cache=cold,warm,warm
    python experiments/benchmark.py --config=configs/additive.py \
        --set=train.num_steps=1000 --set=train.learning_rate=0.01

Each entry of ``--cache`` is one run of ``launch.py`` in a new work directory and a new
process, as a user would start it: ``cold`` with an empty compilation cache (a new
machine, or a first run), ``warm`` with the cache the runs before it filled. With
``--members=N`` (N > 1) the run is a sweep of N seeds of the config, trained as one
vmapped cohort (this file is also that sweep: ``launch.py
--config=experiments/benchmark.py:config=additive,members=8``). ``--code=DIR`` runs the
``launch.py`` of another checkout (e.g. an older commit's worktree, for side-by-side
timings; a checkout without the phases prints its wall time and time to 0.99 only).

Prints, per run, the process's wall time measured from outside and the phases'
sum (the difference is the interpreter's start before ``launch.py``'s first line and
its exit after the summary is written), then one JSON line per run.

Cost: one default run a process: configs/additive.py took 45.7 s cold and 38.7 s warm
(compilation cache) on one of this project's 2-core CPUs, at 9b29ecf
(results/benchmark/head_additive_1.txt).

Result: results/benchmark/README.md, one file of output a command.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # configs/ when run as a script or loaded as a sweep file


def _parse(arg) -> tuple[str, int]:
    """'config=NAME,members=N' (members optional) -> (NAME, N)."""
    items = [item for item in (arg or "").split(",") if item and item != "tiny"]
    fields = dict(item.split("=", 1) for item in items if "=" in item)
    unknown = set(fields) - {"config", "members"} or len(fields) < len(items)
    name = fields.get("config", "additive")
    if unknown or not re.fullmatch(r"\w+", name) or not (ROOT / "configs" / f"{name}.py").is_file():
        raise ValueError(f"bad config argument {arg!r}: expected config=NAME (a file in "
                         "configs/) and optionally members=N and tiny")
    return name, int(fields.get("members", 1))


def get_config(arg=None):
    import importlib
    name, _ = _parse(arg)
    tiny = "tiny" in (arg or "").split(",")  # a smoke run's sizes, as every config takes
    return importlib.import_module(f"configs.{name}").get_config("tiny" if tiny else None)


def get_sweep(arg=None):
    from attention_research.running import sweeps
    return sweeps.axis("config.seed", list(range(_parse(arg)[1])))


def _summaries(workdir: Path) -> list[dict]:
    """A single run's summary, or a sweep's members' (they share one cohort)."""
    if (workdir / "summary.json").is_file():
        return [json.loads((workdir / "summary.json").read_text())]
    return [json.loads(p.read_text()) for p in sorted(workdir.glob("members/*/summary.json"))]


def run_once(config: str, members: int, cache: Path, workdir: Path, code: Path,
             overrides=()) -> dict:
    """One launch.py process; its outside wall time and what its summaries say.
    ``overrides``: ``field=value`` pairs, passed as ``--config.field=value``."""
    name = Path(config).stem
    spec = config if members == 1 else f"experiments/benchmark.py:config={name},members={members}"
    env = {**os.environ, "ATTENTION_RESEARCH_COMPILATION_CACHE": str(cache)}
    start = time.time()
    done = subprocess.run([sys.executable, "launch.py", f"--config={spec}",
                           f"--workdir={workdir}", *(f"--config.{o}" for o in overrides)],
                          cwd=code, env=env, capture_output=True, text=True)
    wall = time.time() - start
    if done.returncode:
        raise SystemExit(f"error: the run failed:\n{done.stderr[-3000:]}")
    summaries = _summaries(workdir)
    last = max(summaries, key=lambda s: s.get("time", {}).get("total_s", 0))
    solved = [m.get("time_to_seq_acc_0.99_s") for s in summaries for m in s["members"]]
    compiled = re.findall(r"compiled the train step of \d+ member\(s\) in ([\d.]+) s",
                          done.stdout + done.stderr)
    return {"config": config, "members": members, "overrides": list(overrides),
            "process_wall_s": round(wall, 2),
            "train_step_compile_s": float(compiled[0]) if compiled else None,
            "run_wall_s": round(last["wall_time_s"], 2),
            "time_to_0.99_s": [None if t is None else round(t, 2) for t in solved],
            "time": last.get("time"), "device": last.get("devices", {}).get("kind"),
            "code": last.get("code")}


def describe_run(result: dict, label: str) -> str:
    from attention_research.training.timing import describe
    lines = [f"{label}: {result['config']}, {result['members']} member(s): process "
             f"{result['process_wall_s']:.1f} s, run {result['run_wall_s']:.1f} s, train step "
             f"compiled in {result['train_step_compile_s']} s, to 0.99: "
             + ", ".join("not reached" if t is None else f"{t:.1f} s"
                         for t in result["time_to_0.99_s"])]
    timed = result["time"]
    if not timed:
        return "\n".join(lines + ["  (this checkout records no phases)"])
    lines.append(describe(timed))
    lines.append(f"  phases sum to {timed['total_s']:.1f} s; the process outside them "
                 f"{result['process_wall_s'] - timed['total_s']:.1f} s (interpreter start and "
                 "exit)")
    evaluations = timed["evaluations"]
    if evaluations:
        lines.append("  evaluations: " + ", ".join(
            f"step {e['step']} {e['kind']} {e['seconds']:.2f} s ({e['compile_s']:.2f} compiling)"
            for e in evaluations))
    flops = timed.get("throughput") or {}
    if flops:
        lines.append(
            f"  train step: {flops['matmul_gflop_per_member_step']:.3f} GFLOP (matrix) a "
            f"member-step; {flops['gflop_per_s_per_device']:.1f} GFLOP/s a device, "
            f"{flops['gflop_per_s_per_member']:.1f} a member"
            + (f"; peak {flops['peak_gflop_per_s_per_device']:.0f} GFLOP/s "
               f"({flops['peak_source']}): {100 * flops['fraction_of_peak']:.1f}% of it"
               if "peak_gflop_per_s_per_device" in flops else ""))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/additive.py",
                        help="a config file in configs/")
    parser.add_argument("--members", type=int, default=1, help="seeds in one cohort")
    parser.add_argument("--cache", default="cold,warm",
                        help="comma-separated runs: cold (empty cache) or warm")
    parser.add_argument("--code", default=str(ROOT), help="the checkout whose launch.py runs")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a config override, e.g. --set=train.num_steps=1000 (repeatable)")
    args = parser.parse_args()
    _parse(f"config={Path(args.config).stem}")  # a config in configs/, refused early
    scratch = Path(tempfile.mkdtemp(prefix="benchmark_"))
    cache = scratch / "cache"
    results = []
    for number, kind in enumerate(args.cache.split(",")):
        if kind not in ("cold", "warm"):
            raise SystemExit(f"error: --cache entries are cold or warm, got {kind!r}")
        if kind == "cold":
            cache = scratch / f"cache_{number}"  # empty
        result = run_once(args.config, args.members, cache, scratch / f"run_{number}",
                          Path(args.code), args.set)
        result["cache"] = kind
        print(describe_run(result, f"run {number + 1} ({kind} cache)"), flush=True)
        results.append(result)
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
