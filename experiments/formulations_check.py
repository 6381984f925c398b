"""Run every formulation config on copy and reverse with its defaults; tabulate.

    python experiments/formulations_check.py

Each run is the exact command a user types (``python launch.py
--config=configs/NAME.py:task=TASK``), in its own process, so start-up and
compilation count in its wall time. Writes ``experiments/results/formulations_check/``:
``summary.md`` (one row per run), ``commands.txt`` and each run's heat maps and
accuracy-by-length plot. One seed each: a smoke check and first look, not a
verdict. The seeded comparison with spreads is ``experiments/compare_attention.py``
(issue 4).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMULATIONS = ["additive", "dot", "scaled_dot", "general", "location", "cosine", "none"]
TASKS = ["reverse", "copy"]


def run(name: str, task: str, workdir: Path) -> tuple[dict, float, str]:
    command = [sys.executable, "launch.py", f"--config=configs/{name}.py:task={task}",
               f"--workdir={workdir}"]
    start = time.time()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return (json.loads((workdir / "summary.json").read_text()), time.time() - start,
            " ".join(["python"] + command[1:]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "experiments/results/formulations_check"))
    parser.add_argument("--runs", default="/tmp/formulations_check_runs",
                        help="work directories of the runs (not committed)")
    args = parser.parse_args()
    out, runs = Path(args.out), Path(args.runs)
    if runs.exists():
        shutil.rmtree(runs)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    header = ("| config | task | seq acc 1-25 | seq acc 26-50 | align acc 1-25 | "
              "step to 0.99 | time to 0.99 (s) | wall (s) |")
    rows = [header, "|" + "---|" * 8]
    commands = []
    for task in TASKS:
        for name in FORMULATIONS:
            summary, wall, command = run(name, task, runs / f"{name}_{task}")
            commands.append(command)
            member = summary["members"][0]
            final = member["final"]
            align = final.get("eval/align_acc/len1-25")
            rows.append(
                f"| {name} | {task} | {final['eval/seq_acc/len1-25']:.4f} | "
                f"{final['eval/seq_acc/len26-50']:.4f} | "
                f"{'—' if align is None else f'{align:.4f}'} | "
                f"{member['first_step_seq_acc_0.99'] or '—'} | "
                f"{'—' if member['time_to_seq_acc_0.99_s'] is None else round(member['time_to_seq_acc_0.99_s'], 1)} | "
                f"{wall:.1f} |")
            print(rows[-1], flush=True)
            for plot in ("attention.png", "seq_acc_by_length.png"):
                source = runs / f"{name}_{task}" / "plots" / plot
                if source.exists():
                    shutil.copy(source, out / "plots" / f"{name}_{task}_{plot}")
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}"
    (out / "summary.md").write_text(
        "# Every formulation config on copy and reverse (defaults, seed 0)\n\n"
        f"Made by `python experiments/formulations_check.py` on {time.strftime('%Y-%m-%d')} "
        f"({machine}). Each row is one run of the command in `commands.txt`; times count "
        "start-up and compilation.\n\n" + "\n".join(rows) + "\n")
    (out / "commands.txt").write_text("\n".join(commands) + "\n")
    print(f"wrote {out / 'summary.md'}")


if __name__ == "__main__":
    main()
