"""How fast a trained translation run is used (issue 71): one sentence of one's own in one
command, and a file of many sentences, batched.

    python experiments/predict_speed.py --workdir=runs/additive_task-translation

``--workdir`` is a finished translation run (the default additive recipe on Multi30k:
``python launch.py --config=configs/additive.py:task=translation``). Measured, each in a
fresh process so that nothing is warm but the disk and JAX's compilation cache:

1. ``python -m attention_research.use predict WORKDIR "Ein Mann fährt Fahrrad."``, the
   wall time of the whole command, three times (the first may compile the decoder; the
   others find it in the compilation cache);
2. the first ``--sentences`` source sentences of the run's ``--split`` (test2017 by
   default: not the split the run was tuned or scored on), translated from a file with
   ``--input``: greedy, then beam search at the run's own beam size and length penalty,
   twice each; sentences a second = sentences / the command's wall time, and = sentences
   / the time of the decoding alone (the command's own "N input(s) in S s" line, which
   leaves out start-up and loading).

The sentences are read from the prepared corpus into a temporary file, never into the
record (Multi30k's licence). The record keeps the commands, the times and the machine.

Cost: 111 s of wall time on this project's 2-core CPU with both cores also training
(2026-12-06).

Result: results/predict_speed/summary.md, read by docs/speed.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "experiments" / "results" / "predict_speed"
SENTENCE = "Ein Mann fährt Fahrrad."


def timed(arguments: list[str]) -> tuple[float, str, str]:
    """Wall time, stdout and stderr of one command from this checkout."""
    started = time.time()
    done = subprocess.run(arguments, cwd=ROOT, capture_output=True, text=True, check=True)
    return time.time() - started, done.stdout, done.stderr


def decoding_seconds(stderr: str) -> float:
    """The command's own "N input(s) in S s" (predicting, after loading)."""
    return float(re.search(r"input\(s\) in ([\d.]+) s", stderr)[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True, help="a finished translation run")
    parser.add_argument("--split", default="test2017")
    parser.add_argument("--sentences", type=int, default=1000)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from attention_research.use.loading import locate
    from attention_research.tasks.translation import datasets
    config = locate(args.workdir).configs[0]
    task = config.task
    corpus = datasets.load(task.dataset, task.data_dir or None, task.data_path or None,
                           task.source_language, task.target_language, splits=(args.split,))
    sources = corpus.texts(args.split, corpus.source_language)[:args.sentences]
    use = [sys.executable, "-m", "attention_research.use", "predict", args.workdir]
    rows, commands = [], []
    one = [*use, SENTENCE]
    commands.append(shlex.join(["python", *one[1:]]))
    for attempt in range(1, 4):
        seconds, out, err = timed(one)
        rows.append(f"| one sentence, command {attempt} | 1 | {seconds:.1f} | "
                    f"{decoding_seconds(err):.2f} | — | {out.strip()!r} |")
    with tempfile.TemporaryDirectory() as scratch:
        inputs = Path(scratch) / f"{args.split}.{corpus.source_language}"
        inputs.write_text("".join(s + "\n" for s in sources), encoding="utf-8")
        for name, extra in (("greedy", ["--beam=1"]), (f"beam {task.beam_size}", [])):
            command = [*use, f"--input={inputs}", *extra]
            commands.append(shlex.join(["python", *command[1:]]).replace(
                str(inputs), f"<{len(sources)} {args.split} sources>"))
            for attempt in (1, 2):
                seconds, out, err = timed(command)
                decoding = decoding_seconds(err)
                assert len(out.splitlines()) == len(sources)
                rows.append(f"| {len(sources)} sentences, {name}, command {attempt} | "
                            f"{len(sources)} | {seconds:.1f} | {decoding:.1f} | "
                            f"{len(sources) / seconds:.0f} / {len(sources) / decoding:.0f} | |")
    from attention_research.running.peaks import cpu_description
    from attention_research.running.provenance import code_version, software_versions
    summary = json.loads((Path(args.workdir) / "summary.json").read_text())
    code, cpu = code_version() or {}, cpu_description()
    lines = [
        "# Using a trained translation run: how fast", "",
        f"Made by `python experiments/predict_speed.py --workdir={args.workdir}` at commit "
        f"{code.get('commit', 'unknown')[:7]} (changed checkout: {code.get('changed')}), jax "
        f"{software_versions()['jax']}, on {cpu['model']} ({cpu['vector']}; "
        f"{platform.machine()}), the CPU its only device. The run used: {summary['name']} on "
        f"{task.dataset}, {summary['steps']} steps (trained at "
        f"{(summary.get('code') or {}).get('commit', 'unknown')[:7]}). Each row is one fresh "
        "process; 'decoding' is the command's own time for predicting, after start-up and "
        "loading.", "",
        "| what | sentences | command wall time (s) | decoding (s) | sentences/s "
        "(command / decoding) | output |", "|---|---|---|---|---|---|", *rows, "",
        "The commands:", "", *[f"    {c}" for c in commands], ""]
    RECORD.mkdir(parents=True, exist_ok=True)
    (RECORD / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
