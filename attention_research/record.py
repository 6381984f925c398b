"""Record a sweep into the repository: ``python launch.py --config=experiments/NAME.py
--record`` copies what its work directory holds into ``experiments/results/NAME/``.

What is copied (each file replaces the file of the same name, and nothing else is
ever deleted there, so hand-written notes such as a README stay):

    summary.md, summary.csv, significance.md, commands.txt, plots/   the report
    members/<member>/{config.json,summary.json,metrics.jsonl}     every finished member
    members/<member>/translations/                                 its outputs, if any
    plots/attention_<setting>.png       the heat maps of each setting's first member

Finished members are recorded even while the sweep is unfinished, so a sweep longer
than a session can be committed member by member; copying ``members/`` back into a
work directory makes a later run skip them (a finished member is never retrained).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from attention_research.reports import setting_name
from attention_research.workdir import read_json

REPORT_FILES = ("summary.md", "summary.csv", "significance.md", "commands.txt")
MEMBER_FILES = ("config.json", "summary.json", "metrics.jsonl")


def _copy(source: Path, destination: Path):
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, destination)


def record(workdir, destination) -> list[str]:
    """Copy a sweep's report and finished members from ``workdir`` into ``destination``;
    returns the member names recorded."""
    workdir, destination = Path(workdir), Path(destination)
    for name in REPORT_FILES:
        if (workdir / name).is_file():
            _copy(workdir / name, destination / name)
    if (workdir / "plots").is_dir():
        for plot in sorted((workdir / "plots").glob("*.png")):
            _copy(plot, destination / "plots" / plot.name)
    recorded, drawn = [], set()
    for member in sorted((workdir / "members").glob("*/")):
        if not (member / "summary.json").is_file():
            continue  # unfinished: its summary is written last
        read_json(member / "summary.json")  # refuse to record a damaged one, naming it
        for name in MEMBER_FILES:
            if (member / name).is_file():
                _copy(member / name, destination / "members" / member.name / name)
        for output in sorted((member / "translations").glob("*.txt")):
            _copy(output, destination / "members" / member.name / "translations" / output.name)
        setting = setting_name(member.name)
        heatmap = member / "plots" / "attention.png"
        if heatmap.is_file() and setting not in drawn:
            _copy(heatmap, destination / "plots" / f"attention_{setting}.png")
            drawn.add(setting)
        recorded.append(member.name)
    return recorded
