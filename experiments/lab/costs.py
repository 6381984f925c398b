"""What each recorded sweep cost, read from its record: the members and the training wall
time (summed over cohorts, each cohort's longest member) that the record's summary.md
states, grouped by the experiment file its commands.txt launched.

    python -m experiments.lab.costs            # each experiment's records and costs

An experiment file's header states these costs on its ``Cost:`` line;
tests/test_recorded_experiments.py checks that every header states what its records
hold, so a header never quotes a cost no run had.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

from experiments.lab.record import launched_experiment

RESULTS = Path(__file__).resolve().parents[1] / "results"
# The line reports/tables.py and reports/translation.py write under a sweep's table.
_COST = re.compile(r"(\d+) members, (\d+) s of training wall time")


@dataclass(frozen=True)
class Cost:
    record: str  # the folder under experiments/results/
    members: int
    seconds: int
    devices: tuple[str, ...]  # the kinds of device its members name, e.g. ("cpu",)

    def words(self) -> str:
        """How a header states it: ``results/NAME/: 360 members, 22,056 s (cpu)``."""
        where = ", ".join(self.devices) or "its members' files are not kept"
        return f"results/{self.record}/: {self.members} members, {self.seconds:,} s ({where})"


def recorded_cost(record: Path) -> Cost | None:
    """The cost ``record``/summary.md states, or None where it states none (a record
    still being filled, or one that is not a sweep's)."""
    summary = record / "summary.md"
    match = _COST.search(summary.read_text()) if summary.is_file() else None
    if not match:
        return None
    return Cost(record.name, int(match[1]), int(match[2]), _devices(record))


def _devices(record: Path) -> tuple[str, ...]:
    """The device kinds the record's members were trained on (summary.json's
    ``devices``: its ``kind``, or its platform where a member predates the kind)."""
    kinds = set()
    for summary in record.glob("members/*/summary.json"):
        devices = json.loads(summary.read_text()).get("devices") or {}
        kinds.add(devices.get("kind") or devices.get("platform") or "unknown")
    return tuple(sorted(kinds))


def costs_by_experiment(results: Path = RESULTS) -> dict[str, list[Cost]]:
    """Experiment name -> the costs of the records its file launched."""
    costs: dict[str, list[Cost]] = {}
    for record in sorted(p for p in results.iterdir() if p.is_dir()):
        launched, cost = launched_experiment(record), recorded_cost(record)
        if launched and cost:
            costs.setdefault(launched[0], []).append(cost)
    return costs


def main():
    for experiment, costs in costs_by_experiment().items():
        print(f"experiments/{experiment}.py: " + "; ".join(c.words() for c in costs))


if __name__ == "__main__":
    main()
