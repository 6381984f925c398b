"""Run a sweep: every cohort in turn, each member into its own directory, then a report.

    workdir/
      members/<name>/        one member's run (config.json, metrics.jsonl, plots, …)
      cohorts/<id>/checkpoints/   a cohort's stacked state
      summary.md, summary.csv, plots/   the comparison of all members

An interrupted sweep resumes: members that finished are not retrained, and the
interrupted cohort resumes from its checkpoint.

A sweep can also be split between independent jobs on one shared work directory
(``part=(k, n)``: job k of n trains cohorts k, k + n, k + 2n, …), for a job array or
for two single-core processes on a small CPU. Jobs write disjoint directories; the
report is written by a job that finds every member finished, or by running the
sweep again without a part, which retrains nothing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import jax

from attention_research import reports, sweeps
from attention_research.config_checks import ConfigError
from attention_research.training.loop import train_cohort


def _finished(member: sweeps.Member):
    """The member's summary if it completed its steps, else None."""
    path = member.workdir / "summary.json"
    if not path.exists():
        return None
    summary = json.loads(path.read_text())
    return summary if summary["steps"] == member.config.train.num_steps else None


def run_sweep(base_config, sweep: list[dict], workdir, *, progress: bool = True,
              hooks=(), part: tuple[int, int] = (1, 1)) -> list[dict] | None:
    """Train every member of ``sweep`` (see ``sweeps``), or only part k of n of its
    cohorts; returns every member's summary in order, or None while members of
    other parts are unfinished (the report waits for them)."""
    k, n = part
    if not 1 <= k <= n:
        raise ConfigError(f"part {k}/{n}: need 1 <= k <= n")
    workdir = Path(workdir)
    members = sweeps.expand(base_config, sweep, workdir)  # validates every member first
    groups = sweeps.cohorts(members, base_config.max_cohort_members)
    if progress:
        share = "" if n == 1 else f", part {k}/{n}: cohorts {k}, {k}+{n}, …"
        print(f"sweep: {len(members)} members in {len(groups)} cohort(s){share} -> {workdir}")
    summaries = {}
    for number, cohort in enumerate(groups, 1):
        done = [_finished(m) for m in cohort]
        if all(done):
            summaries.update({m.index: s for m, s in zip(cohort, done)})
            if progress:
                print(f"cohort {number}/{len(groups)}: finished before, not retrained")
            continue
        if (number - k) % n:
            continue  # another part's cohort
        if progress:
            print(f"cohort {number}/{len(groups)}: {len(cohort)} member(s): "
                  + ", ".join(m.name for m in cohort))
        results = train_cohort([m.config for m in cohort], [m.workdir for m in cohort],
                               workdir / "cohorts" / sweeps.cohort_id(cohort) / "checkpoints",
                               start_time=time.time(), progress=progress, hooks=hooks)
        summaries.update({m.index: s for m, s in zip(cohort, results)})
    # Another part may have finished its cohorts while this one trained.
    summaries.update({m.index: s for m in members if m.index not in summaries
                      and (s := _finished(m)) is not None})
    if len(summaries) < len(members):
        if progress:
            print(f"part {k}/{n} done; {len(members) - len(summaries)} member(s) of other "
                  "parts unfinished: the report is written when they are")
        return None
    ordered = [summaries[m.index] for m in members]
    if jax.process_index() == 0:  # one writer; the work directory is shared
        reports.write_sweep_report(workdir, members, ordered)
    return ordered
