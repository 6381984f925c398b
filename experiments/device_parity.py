"""Why a run on 4 devices parts from the same run on 1 (issue 72, item 6): the training
loss of each logged step, side by side, for the default additive run of 300 steps.

    python experiments/device_parity.py

Five runs of ``configs/additive.py`` (300 steps, checkpoints and evaluations every 100),
each a fresh ``launch.py`` process: on 1 CPU device; on 4 forced CPU devices
(``XLA_FLAGS=--xla_force_host_platform_device_count=4``: a mesh of member=4, data=1,
the one member replicated, no collective in its program); on 1 device compiled with
``train.fast_compile`` (the same computation, compiled by XLA another way); and the first
two again with gradient clipping off (``train.grad_clip_norm=1e9``). The record's table
gives, at every logged step, each run's loss minus that of the 1-device run it is
compared with, and each run's final sequence accuracy on lengths 1-25.

What it shows is written in the record's README (its numbers are the run's): where the
runs part, and whether another device count parts more than another compilation on one
device does.

Cost: about 4 minutes of wall time on this project's 2-core CPU with both cores also
training sweeps (2026-12-06).

Result: results/device_parity/summary.md, read by docs/scaling.md.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from attention_research.metric_names import TRAIN_LOSS, eval_key, length_range

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "experiments" / "results" / "device_parity"
BASE = ["--config=configs/additive.py", "--config.train.num_steps=300",
        "--config.train.checkpoint_every=100", "--config.train.eval_every=100"]
FOUR = "--xla_force_host_platform_device_count=4"
NO_CLIP = "--config.train.grad_clip_norm=1e9"
RUNS = {  # name: (XLA_FLAGS, extra arguments, the run it is compared with)
    "1 device": ("", [], None),
    "4 devices": (FOUR, [], "1 device"),
    "1 device, fast_compile": ("", ["--config.train.fast_compile=true"], "1 device"),
    "1 device, no clipping": ("", [NO_CLIP], None),
    "4 devices, no clipping": (FOUR, [NO_CLIP], "1 device, no clipping"),
}
ACCURACY = eval_key("seq_acc", length_range(1, 25))


def run(name: str, flags: str, extra: list[str], scratch: Path) -> tuple[str, dict, dict]:
    """One run in a fresh process: its command, its losses by step, its summary."""
    workdir = scratch / name.replace(" ", "_").replace(",", "")
    arguments = [sys.executable, "launch.py", *BASE, *extra, f"--workdir={workdir}"]
    env = {**os.environ, "XLA_FLAGS": flags} if flags else dict(os.environ)
    subprocess.run(arguments, cwd=ROOT, env=env, check=True, capture_output=True)
    losses = {r["step"]: r[TRAIN_LOSS]
              for r in map(json.loads, (workdir / "metrics.jsonl").read_text().splitlines())
              if TRAIN_LOSS in r}
    command = (f"XLA_FLAGS={flags} " if flags else "") + shlex.join(
        ["python", "launch.py", *BASE, *extra])
    return command, losses, json.loads((workdir / "summary.json").read_text())


def main():
    with tempfile.TemporaryDirectory() as scratch:
        found = {name: run(name, flags, extra, Path(scratch))
                 for name, (flags, extra, _) in RUNS.items()}
    steps = sorted(found["1 device"][1])
    head = "| run | " + " | ".join(f"step {s}" for s in steps) + f" | {ACCURACY} |"
    rows = [head, "|---" * (len(steps) + 2) + "|"]
    for name, (_, losses, summary) in found.items():
        reference = RUNS[name][2]
        cells = [f"{losses[s]:.7f}" if reference is None
                 else f"{losses[s] - found[reference][1][s]:+.2e}" for s in steps]
        rows.append(f"| {name}{f' − {reference}' if reference else ''} | "
                    + " | ".join(cells) + f" | {summary['members'][0]['final'][ACCURACY]:.5f} |")
    summary = found["1 device"][2]
    lines = ["# Device parity: one run on 1 and on 4 CPU devices", "",
             "Made by `python experiments/device_parity.py` at commit "
             f"{(summary.get('code') or {}).get('commit', 'unknown')} "
             f"(changed checkout: {(summary.get('code') or {}).get('changed')}), "
             f"jax {summary['software']['jax']}, on {summary['devices']['cpu']['model']} "
             f"({summary['devices']['cpu']['vector']}).", "",
             "A row without a minus sign is a run's training loss at each logged step (the "
             "mean over the 25 steps before it); a row 'A − B' is run A's loss minus run B's. "
             "The last column is each run's final greedy sequence accuracy on lengths 1-25.",
             "",
             *rows, "", "The commands:", "",
             *[f"    {command}" for command, _, _ in found.values()], ""]
    RECORD.mkdir(parents=True, exist_ok=True)
    (RECORD / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
