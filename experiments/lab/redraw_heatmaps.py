"""Redraw a record's heat maps by training again the members they were drawn from.

A record keeps each member's config, logs and summary, not its parameters, so
``findings --redraw`` redraws every table and curve but no heat map. The maps drawn
before the reference alignment was outlined on them (docs/experiments.md) can be
redrawn only by training the member again. This does that, and keeps a redrawn map
only where the retrained member logged exactly what the record holds: every number
of its metrics.jsonl but timings (a cohort trained again from its seeds reproduces
its logs bit for bit on the same kind of CPU and software, so equal logs say it is the
same model; anything else says it is not, and its map is not the record's; a record
trained on another kind of CPU cannot be redrawn here)::

    python -m experiments.lab.redraw_heatmaps experiments/results/pointer_generator
    python -m experiments.lab.redraw_heatmaps experiments/results/NAME --part=1/2  # and 2/2

Each map is of the setting's first member in name order, the member ``record`` drew
it from (``plots/attention_<setting>.png``, ``plots/explicit_vs_implicit_<setting>.png``).
It is retrained with the record's last training command from its ``commands.txt``
(the sweep file, its argument and ``--config.*`` overrides) and ``--only=<member>``,
which trains that member's whole cohort, as it was first trained, in a work directory
of its own (``runs/heatmaps/<record>``; a rerun resumes there). ``--part=K/N`` takes
every N-th map from the K-th, so N processes share a record. Only the maps change.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from experiments.lab.record import ROOT
from attention_research.metric_names import TIME
from attention_research.reports.setting_names import setting_name
from attention_research.running.workdir import WorkDir

MAPS = ("attention", "explicit_vs_implicit")  # record(): plots/<map>_<setting>.png
# launch.py's flags that say where and what part of a sweep trains, not how a member
# trains: the retraining sets its own.
PLACEMENT_FLAGS = ("--workdir", "--part", "--only", "--record", "--adopt_from")


def drawn_members(destination) -> dict[str, str]:
    """{member: setting} for each setting that has a heat map in the record: its first
    finished member in name order, as ``record`` chose it."""
    destination = Path(destination)
    chosen = {}
    for summary in sorted(destination.glob("members/*/summary.json")):
        member = summary.parent.name
        setting = setting_name(member)
        if setting in chosen.values():
            continue
        if any((destination / "plots" / f"{m}_{setting}.png").is_file() for m in MAPS):
            chosen[member] = setting
    return chosen


def training_arguments(destination) -> list[str]:
    """launch.py's arguments of the record's last training command (commands.txt),
    without the flags that place it (``PLACEMENT_FLAGS``)."""
    commands = Path(destination) / "commands.txt"
    launches = [shlex.split(line) for line in
                (commands.read_text().splitlines() if commands.is_file() else [])
                if "--config=" in line and "--record" not in line]
    if not launches:
        raise ValueError(f"{commands} names no training command (a line with --config= "
                         "and without --record): the record cannot be retrained")
    words = launches[-1]
    words = words[words.index("launch.py") + 1:] if "launch.py" in words else words
    return [w for w in words if w.split("=", 1)[0] not in PLACEMENT_FLAGS]


def _is_timing(key: str) -> bool:
    return key == TIME or key.endswith("_per_s")


def log_difference(recorded: Path, retrained: Path) -> str | None:
    """None if ``retrained`` logged every number of ``recorded`` (two metrics.jsonl)
    exactly, timings aside; else the first difference, in words. Keys the retrained
    run logs and the record lacks (a metric added since) are not compared."""
    if not retrained.is_file():
        return f"{retrained} was not written"
    old, new = (WorkDir(path.parent).read_metrics() for path in (recorded, retrained))
    if len(old) != len(new):
        return f"{len(new)} log lines against the record's {len(old)}"
    for number, (a, b) in enumerate(zip(old, new), 1):
        for key, value in a.items():
            if not _is_timing(key) and b.get(key) != value:
                return (f"line {number} (step {a.get('step')}): {key} is {b.get(key)!r}, "
                        f"the record's {value!r}")
    return None


def _machine(member: Path) -> str | None:
    """Where a member trained, as its summary.json says: the CPU's model and widest
    vector extension (which change the last bits of XLA's floats) and jaxlib's version;
    None where it does not say (summaries before 2026-11-29 name no CPU)."""
    try:
        summary = json.loads((member / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    cpu = summary.get("devices", {}).get("cpu")
    jaxlib = summary.get("software", {}).get("jaxlib")
    return f"{cpu['model']} ({cpu['vector']}), jaxlib {jaxlib}" if cpu and jaxlib else None


def _machines(recorded: Path, retrained: Path) -> str:
    """Why two runs of one member may differ, said: a run reproduces its logs exactly
    only on the same kind of CPU and software."""
    before = _machine(recorded)
    now = _machine(retrained) or "a machine its summary does not name"
    if before is None:
        return (f"retrained on {now}; the record does not name the CPU it was trained on, "
                "and floats' last bits differ between kinds of CPU and grow with training")
    if before == now:
        return f"both on {now}: the code or the config differs"
    return (f"recorded on {before}, retrained on {now}: floats' last bits differ between "
            "kinds of CPU and grow with training")


def _launch(arguments: list[str]):
    subprocess.run([sys.executable, "launch.py", *arguments], cwd=ROOT, check=True)


def redraw_heatmaps(destination, workdir=None, part=(1, 1), launch=_launch) -> dict:
    """Retrain the members the record's heat maps were drawn from and copy each map
    whose member logged what the record holds; returns {member: 'redrawn' or why not}.
    ``launch`` runs launch.py's arguments (a test passes its own)."""
    destination = Path(destination)
    if not (destination / "members").is_dir():
        raise ValueError(f"{destination} is not a record (no members/ in it); the records "
                         f"are the folders of {ROOT / 'experiments' / 'results'}")
    workdir = Path(workdir or ROOT / "runs" / "heatmaps" / destination.name).resolve()
    arguments = training_arguments(destination)
    k, n = part
    outcome = {}
    for member, setting in list(drawn_members(destination).items())[k - 1::n]:
        launch(arguments + [f"--workdir={workdir}", f"--only={member}"])
        trained = workdir / "members" / member
        difference = log_difference(destination / "members" / member / "metrics.jsonl",
                                     trained / "metrics.jsonl")
        if difference:
            outcome[member] = (f"not redrawn: its logs differ from the record's: {difference}"
                               f" ({_machines(destination / 'members' / member, trained)})")
            continue
        for name in MAPS:
            if (trained / "plots" / f"{name}.png").is_file() and (
                    destination / "plots" / f"{name}_{setting}.png").is_file():
                shutil.copy2(trained / "plots" / f"{name}.png",
                             destination / "plots" / f"{name}_{setting}.png")
        outcome[member] = "redrawn"
    return outcome


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", help="experiments/results/NAME")
    parser.add_argument("--workdir", default=None,
                        help="where the members retrain (default runs/heatmaps/NAME)")
    parser.add_argument("--part", default="1/1", help="K/N: every N-th map from the K-th")
    args = parser.parse_args(argv)
    k, _, n = args.part.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        parser.error(f"--part={args.part!r}: expected K/N with 1 <= K <= N, e.g. 1/2")
    outcome = redraw_heatmaps(args.record, args.workdir, (int(k), int(n)))
    for member, said in outcome.items():
        print(f"{member}: {said}")
    return 0 if all(said == "redrawn" for said in outcome.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
