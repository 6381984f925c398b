"""Wall time of an N-seed sweep of configs/additive.py trained as one vmapped cohort,
against N separate single runs; start-up and compilation counted (each run is a
fresh process, as a user would start it).

    python experiments/benchmark_sweep.py                        # 8 members
    python experiments/benchmark_sweep.py --members=8,32,128     # e.g. on a GPU

Writes experiments/results/benchmark_sweep/<device>.md. As a sweep file it is
what the cohort timing runs:

    python launch.py --config=experiments/benchmark_sweep.py:members=8

Cost: 8 members as one cohort took 247.7 s and as 8 separate runs 337.3 s on one of this
project's 2-core CPUs (results/benchmark_sweep/cpu_cpu_x1.md).

Result: results/benchmark_sweep/README.md.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # configs/ when run as a script

from attention_research.metric_names import TIME, TRAIN_LOSS  # noqa: E402
from attention_research.running import sweeps  # noqa: E402
from configs import additive, base  # noqa: E402


# For --help only: any member count is taken (``_members`` parses it; default 8).
ARGUMENTS = {"members": ["N"]}


def _members(arg) -> int:
    """members=N (default 8); ``tiny`` may stand beside it."""
    members = [item for item in (arg or "").split(",") if item and item != base.TINY]
    match = re.fullmatch(r"members=(\d+)", members[0] if members else "members=8")
    if len(members) > 1 or not match:
        raise ValueError(f"bad config argument {arg!r}: expected members=N, and optionally "
                         f"{base.TINY}")
    return int(match.group(1))


def get_config(arg=None):
    _members(arg)  # refuse a bad argument early
    config = additive.get_config(base.TINY if base.TINY in (arg or "").split(",") else None)
    config.name = "benchmark_sweep"
    return config


def get_sweep(arg=None):
    return sweeps.axis("config.seed", list(range(_members(arg))))


def _timed(command, workdir) -> tuple[float, str]:
    start = time.time()
    done = subprocess.run(command + [f"--workdir={workdir}"], cwd=ROOT, check=True,
                          capture_output=True, text=True)
    return time.time() - start, done.stdout + done.stderr


def _compile_seconds(output: str) -> float:
    return sum(float(s) for s in re.findall(r"compiled the train step .*? in ([\d.]+) s", output))


def _phases(workdir: Path) -> tuple[float, float, float]:
    """(start to the first train log, training and evaluation, after the last step) in s,
    from what a run wrote: its metrics' ``time_s`` and its summary's wall time."""
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    train = [r[TIME] for r in records if TRAIN_LOSS in r]
    wall = json.loads((workdir / "summary.json").read_text())["wall_time_s"]
    return train[0], train[-1] - train[0], wall - train[-1]


def breakdown(scratch: Path) -> list[str]:
    """Where the time goes: the phases of every separate run (summed) and of each cohort."""
    separate = sorted(scratch.glob("separate_*"))
    rows = [("separate runs (sum)", len(separate),
             [sum(p) for p in zip(*(_phases(d) for d in separate))])]
    for cohort in sorted(scratch.glob("cohort_*"), key=lambda d: int(d.name.split("_")[1])):
        first_member = sorted((cohort / "members").iterdir())[0]
        rows.append(("one vmapped cohort", int(cohort.name.split("_")[1]),
                     _phases(first_member)))
    lines = ["| how | members | start-up, compile, first 50 steps (s) | "
             "training + evaluation (s) | plots and summary (s) |", "|---|---|---|---|---|"]
    lines += [f"| {how} | {n} | {a:.1f} | {b:.1f} | {c:.1f} |" for how, n, (a, b, c) in rows]
    return lines


def _device() -> str:
    probe = "import jax; d = jax.devices()[0]; print(f'{d.platform} {d.device_kind} x{jax.device_count()}')"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description="cohort vs separate runs")
    parser.add_argument("--members", default="8", help="comma-separated cohort sizes")
    parser.add_argument("--separate", type=int, default=8, help="separate runs to time")
    parser.add_argument("--breakdown_of", default="",
                        help="only print the phase table of an earlier run's scratch dir")
    args = parser.parse_args()
    if args.breakdown_of:
        print("\n".join(breakdown(Path(args.breakdown_of))))
        return
    python = [sys.executable, "launch.py"]
    rows, scratch = [], Path(tempfile.mkdtemp(prefix="benchmark_sweep_"))
    separate_total, separate_compile = 0.0, 0.0
    for seed in range(args.separate):
        wall, output = _timed(python + ["--config=configs/additive.py", f"--config.seed={seed}"],
                              scratch / f"separate_{seed}")
        separate_total += wall
        separate_compile += _compile_seconds(output)
        print(f"separate run {seed}: {wall:.1f} s", flush=True)
    rows.append(("separate runs", args.separate, separate_total, separate_compile))
    for count in [int(n) for n in args.members.split(",")]:
        wall, output = _timed(python + [f"--config=experiments/benchmark_sweep.py:members={count}"],
                              scratch / f"cohort_{count}")
        rows.append(("one vmapped cohort", count, wall, _compile_seconds(output)))
        print(f"cohort of {count}: {wall:.1f} s", flush=True)
    device = _device()
    lines = [f"# Sweep benchmark on {device}", "",
             f"Made by `python experiments/benchmark_sweep.py --members={args.members} "
             f"--separate={args.separate}` on {time.strftime('%Y-%m-%d')}. Each entry is "
             "fresh processes from start to exit: start-up, compilation, 1500 training steps, "
             "evaluations, plots.", "",
             "| how | members | wall (s) | per member (s) | of which compiling (s) |",
             "|---|---|---|---|---|"]
    lines += [f"| {how} | {n} | {wall:.1f} | {wall / n:.1f} | {comp:.1f} |"
              for how, n, wall, comp in rows]
    cohort = next((r for r in rows[1:] if r[1] == args.separate), None)
    if cohort:
        lines += ["", f"Cohort / separate wall time for {args.separate} members: "
                      f"**{cohort[2] / separate_total:.2f}**."]
    lines += ["", "Where the time goes (from each run's metrics.jsonl and summary.json; a "
              "cohort's phases are shared by its members):", ""] + breakdown(scratch)
    text = "\n".join(lines) + "\n"
    out = ROOT / "experiments" / "results" / "benchmark_sweep"
    out.mkdir(parents=True, exist_ok=True)
    (out / (re.sub(r"[^A-Za-z0-9]+", "_", device).strip("_") + ".md")).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
