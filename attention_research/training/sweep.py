"""Run a sweep: every cohort in turn, each member into its own directory, then a report.

    workdir/
      members/<name>/        one member's run (config.json, metrics.jsonl, plots, …)
      cohorts/<id>/checkpoints/   a cohort's stacked state
      summary.md, summary.csv, plots/   the comparison of all members

An interrupted sweep resumes: members that finished are not retrained, and the
interrupted cohort resumes from its checkpoint.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import jax

from attention_research import reports, sweeps
from attention_research.training.loop import train_cohort


def _finished(member: sweeps.Member):
    """The member's summary if it completed its steps, else None."""
    path = member.workdir / "summary.json"
    if not path.exists():
        return None
    summary = json.loads(path.read_text())
    return summary if summary["steps"] == member.config.train.num_steps else None


def run_sweep(base_config, sweep: list[dict], workdir, *, progress: bool = True,
              hooks=()) -> list[dict]:
    """Train every member of ``sweep`` (see ``sweeps``); returns their summaries in order."""
    workdir = Path(workdir)
    members = sweeps.expand(base_config, sweep, workdir)  # validates every member first
    groups = sweeps.cohorts(members, base_config.max_cohort_members)
    if progress:
        print(f"sweep: {len(members)} members in {len(groups)} cohort(s) -> {workdir}")
    summaries = {}
    for number, cohort in enumerate(groups, 1):
        done = [_finished(m) for m in cohort]
        if all(done):
            summaries.update({m.index: s for m, s in zip(cohort, done)})
            if progress:
                print(f"cohort {number}/{len(groups)}: finished before, not retrained")
            continue
        if progress:
            print(f"cohort {number}/{len(groups)}: {len(cohort)} member(s): "
                  + ", ".join(m.name for m in cohort))
        results = train_cohort([m.config for m in cohort], [m.workdir for m in cohort],
                               workdir / "cohorts" / sweeps.cohort_id(cohort) / "checkpoints",
                               start_time=time.time(), progress=progress, hooks=hooks)
        summaries.update({m.index: s for m, s in zip(cohort, results)})
    ordered = [summaries[m.index] for m in members]
    if jax.process_index() == 0:  # one writer; the work directory is shared
        reports.write_sweep_report(workdir, members, ordered)
    return ordered
