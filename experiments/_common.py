"""Shared by the experiment scripts: run launch.py commands, tabulate, plot side by side.

Each run is the exact command a user would type, in its own process, so start-up
and compilation count in its wall time; the table, the plots and the commands go
to ``experiments/results/NAME/``.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from attention_research import plotting, reports  # noqa: E402
RUNS = Path("/tmp/attention_research_experiments")  # work directories, not committed


@dataclass
class Run:
    label: str
    config: str  # e.g. configs/local_p.py:task=reverse
    overrides: dict = field(default_factory=dict)
    summary: dict | None = None
    records: list | None = None
    wall_s: float = 0.0
    workdir: Path | None = None

    @property
    def command(self) -> str:
        flags = " ".join(f"--config.{k}={v}" for k, v in self.overrides.items())
        return f"python launch.py --config={self.config} {flags}".strip()


def execute(run: Run, experiment: str) -> Run:
    """Run one launch.py command into a fresh work directory and load what it wrote."""
    run.workdir = RUNS / experiment / run.label
    if run.workdir.exists():
        shutil.rmtree(run.workdir)
    command = [sys.executable, "launch.py", f"--config={run.config}",
               *(f"--config.{k}={v}" for k, v in run.overrides.items()),
               f"--workdir={run.workdir}"]
    start = time.time()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    run.wall_s = time.time() - start
    run.summary = json.loads((run.workdir / "summary.json").read_text())
    run.records = [json.loads(line) for line in
                   (run.workdir / "metrics.jsonl").read_text().splitlines()]
    return run


def _buckets(run: Run):
    return reports.summary_buckets(run.summary)


def _fmt(value, digits=4):
    return "—" if value is None else f"{value:.{digits}f}"


def table(runs) -> str:
    buckets = _buckets(runs[0])
    header = (["run", "command"] + [f"seq acc {b[3:]}" for b in buckets]
              + [f"align acc {buckets[0][3:]}", "step to 0.99", "time to 0.99 (s)", "wall (s)"])
    rows = []
    for run in runs:
        member = run.summary["members"][0]
        final = member["final"]
        cells = [run.label, f"`{run.command}`"]
        cells += [_fmt(final.get(f"eval/seq_acc/{b}")) for b in buckets]
        cells += [_fmt(final.get(f"eval/align_acc/{buckets[0]}")),
                  str(member["first_step_seq_acc_0.99"] or "—"),
                  _fmt(member["time_to_seq_acc_0.99_s"], 1), f"{run.wall_s:.1f}"]
        rows.append(cells)
    return reports.markdown_table(header, rows)


def plot_learning_curves(path: Path, runs, title: str):
    """Held-out accuracy on seen lengths and training loss against the step, run by run."""
    plotting.learning_curves_spread(path, {run.label: [run.records] for run in runs},
                                    _buckets(runs[0])[0], title)


def plot_accuracy_by_length(path: Path, runs, title: str):
    accuracies = {run.label: {int(n): acc for n, acc in
                              run.summary["members"][0]["seq_acc_by_length"].items()}
                  for run in runs}
    trained = int(_buckets(runs[0])[0].split("-")[1])
    plotting.accuracy_by_length(path, accuracies, trained, title)


def write_results(name: str, title: str, runs, script: str, notes: str = ""):
    """experiments/results/NAME/: summary.md, commands.txt, comparison plots, heat maps."""
    out = ROOT / "experiments" / "results" / name
    plots = out / "plots"
    if out.exists():
        shutil.rmtree(out)
    plots.mkdir(parents=True)
    plot_learning_curves(plots / "learning_curves.png", runs, title)
    plot_accuracy_by_length(plots / "seq_acc_by_length.png", runs, title)
    for run in runs:
        heatmap = run.workdir / "plots" / "attention.png"
        if heatmap.exists():
            shutil.copy(heatmap, plots / f"attention_{run.label}.png")
    machine = f"{platform.machine()} CPU ({_cores()} cores), Python {platform.python_version()}"
    text = (f"# {title}\n\nMade by `python {script}` on {time.strftime('%Y-%m-%d')}, {machine}. "
            "Each row is one run of its command (work directory omitted); times count "
            "start-up, compilation and evaluation. One seed per run.\n\n"
            f"{table(runs)}\n\n{notes}".rstrip() + "\n")
    (out / "summary.md").write_text(text)
    (out / "commands.txt").write_text("\n".join(r.command for r in runs) + "\n")
    print(text)


def _cores() -> int:
    import os
    return len(os.sched_getaffinity(0))
