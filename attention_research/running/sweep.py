"""Run a sweep: every cohort in turn, each member into its own directory, then a report.

    workdir/
      members/<name>/        one member's run (config.json, metrics.jsonl, plots, …)
      cohorts/<id>/checkpoints/   a cohort's stacked state
      commands.txt           every command line that ran the sweep (launch.py)
      summary.md, summary.csv, plots/   the comparison of all members

An interrupted sweep resumes: members that finished are not retrained, and the
interrupted cohort resumes from its checkpoint. A member another sweep has already
trained (``adopt_from``, ``adopt.py``) starts from that run's last checkpoint.

A sweep can also be split between independent jobs on one shared work directory
(``part=(k, n)``: job k of n trains cohorts k, k + n, k + 2n, …), for a job array or
for two single-core processes on a small CPU. Jobs write disjoint directories; the
report is written by a job that finds every member finished, or by running the
sweep again without a part, which retrains nothing.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import jax

from attention_research.errors import ConfigError
from attention_research.running import adopt, preemption, sweeps
from attention_research.running.names import compared_setting
from attention_research.running.run import check_lost_configs, train_cohort
from attention_research.running.config_changes import ConfigMismatchError
from attention_research.running.lock import DirectoryLock
from attention_research.running.workdir import WorkDir, read_json, write_atomically
from attention_research.tasks import get_task
from attention_research.training import timing


def cohort_checkpoints(workdir: Path, cohort: list[sweeps.Member],
                       resume_with=frozenset()) -> Path:
    """Where a cohort keeps its checkpoints: ``cohorts/<cohort_id>/checkpoints``, or the
    directory it began in under the older naming (``sweeps.legacy_cohort_ids``), so that
    a cohort half-trained before a config field was added resumes instead of restarting.
    With ``resume_with`` (fields the id digests, changed on purpose) the cohort's
    directory under its first config (the one with its index, if only one has)."""
    root = workdir / "cohorts"
    current = root / sweeps.cohort_id(cohort)
    if not current.exists() and resume_with and (cohort[0].workdir / "config.json").exists():
        began = [p for p in root.glob(f"cohort-{cohort[0].index:03d}-*/checkpoints")]
        if len(began) == 1:  # the checkpoint's own config is checked before it resumes
            return began[0]
    if not current.exists():
        saved_path = cohort[0].workdir / "config.json"
        saved = read_json(saved_path) if saved_path.exists() else None
        for name in sweeps.legacy_cohort_ids(cohort, saved):
            if (root / name / "checkpoints").exists():
                return root / name / "checkpoints"
    return current / "checkpoints"


def _finished(member: sweeps.Member):
    """The member's summary if it completed its steps or failed (non-finite: a rerun
    would fail the same way), else None."""
    path = member.workdir / "summary.json"
    if not path.exists():
        return None
    summary = read_json(path)
    done = (summary.get("status") == "failed"
            or summary["steps"] == member.config.train.num_steps)
    return summary if done else None


def plan(base_config, sweep: list[dict], workdir, part: tuple[int, int] = (1, 1),
         only: str = "", record: Path | None = None, adopt_from=()) -> str:
    """What ``run_sweep`` would do, compiling and writing nothing (``launch.py
    --dry_run``): each cohort with its members, the part that trains it, whether it is
    finished in ``workdir`` or would be adopted from a sweep in ``adopt_from``, and its cost: steps
    x members, and the cohort's measured wall time where a finished member of it is in
    the work directory or in ``record`` (the sweep's committed results)."""
    k, n = part
    members = sweeps.expand(base_config, sweep, workdir)
    groups = sweeps.cohorts(members, base_config.max_cohort_members)

    def wall_time(path: Path, steps: int) -> float | None:
        # Only a member of the same length measures this one (a tiny run's 20 steps
        # are not the record's 1500).
        summary = read_json(path) if path.is_file() else {}
        return summary.get("wall_time_s") if summary.get("steps") == steps else None

    lines, pending, pending_members, measured, adopted = [], 0, 0, 0.0, 0
    for number, cohort in enumerate(groups, 1):
        done = all(_finished(m) for m in cohort)
        selected = _trains(number, cohort, part, only)
        donor = (_adoptable(cohort, cohort_checkpoints(Path(workdir), cohort), adopt_from)
                 if selected and not done else None)
        if donor is not None:  # trains nothing: its final evaluation only
            adopted, selected = adopted + 1, False
        steps = cohort[0].config.train.num_steps
        paths = [m.workdir / "summary.json" for m in cohort] + (
            [record / "members" / m.name / "summary.json" for m in cohort] if record else [])
        found = [t for t in (wall_time(p, steps) for p in paths) if t is not None]
        took = f", measured {max(found) / 60:.0f} min" if found else ""
        if not done and selected:
            pending += 1
            pending_members += len(cohort)
            measured += max(found) if found else 0.0
        state = "finished" if done else "to train" if selected else "another part's/--only"
        if donor is not None:
            state = f"to adopt from {donor.member} (its step {donor.step}; final evaluation only)"
        lines.append(f"cohort {number} (part {(number - 1) % n + 1}/{n}), {state}: "
                     f"{len(cohort)} member(s) x {steps} steps{took}")
        lines += [f"  {m.name}" for m in cohort]
    head = (f"{len(members)} members in {len(groups)} cohort(s); this command "
            f"(part {k}/{n}{f', --only={only}' if only else ''}) would train "
            f"{pending_members} of them in {pending} cohort(s)"
            + (f" and adopt {adopted} from {', '.join(map(str, adopt_from))}"
               if adopted else ""))
    if measured:
        head += f" (measured before: {measured / 3600:.1f} h of cohort wall time at least)"
    baseline = base_config.get("baseline", "") or (
        f"{compared_setting(members[0].name)} (the first setting)")
    return "\n".join([head, f"its report's baseline: {baseline}", *lines])


def _adoptable(cohort, checkpoint_dir: Path, adopt_from=()):
    """The finished run of a sweep in ``adopt_from`` (work directories, searched in
    order) that the cohort starts from (``adopt.py``), or None: with no such run, for a
    cohort of several members, or one with a checkpoint of its own (it resumes from
    that)."""
    if not adopt_from or len(cohort) != 1 or any(Path(checkpoint_dir).glob("[0-9]*")):
        return None
    return next((donor for source in adopt_from
                 if (donor := adopt.find_donor(cohort[0].config, source)) is not None), None)


def _trains(number: int, cohort, part: tuple[int, int], only: str) -> bool:
    """Whether cohort ``number`` (from 1) is this command's: its part's (``--part=K/N``
    takes cohorts K, K+N, …) and holding a member ``--only`` names."""
    k, n = part
    return not (number - k) % n and any(only in m.name for m in cohort)


def training_seconds(members, summaries, max_cohort_members: int) -> float:
    """Wall time of the training, summed over cohorts (each cohort's longest member):
    the same whether the sweep ran in one go or was resumed."""
    by_index = {m.index: s for m, s in zip(members, summaries)}
    groups = sweeps.cohorts(members, max_cohort_members)
    return sum(max(by_index[m.index]["wall_time_s"] for m in group) for group in groups)


def time_section(members, summaries, max_cohort_members: int) -> str:
    """The report's "Where the time went": each phase (training/timing.py) summed over
    the cohorts. A cohort's members share one timeline, so each cohort counts once (its
    last summary written); members recorded before issue 39 have no phases."""
    by_index = {m.index: s for m, s in zip(members, summaries)}
    groups = sweeps.cohorts(members, max_cohort_members)
    reports = [max((by_index[m.index].get("time") or {"total_s": -1} for m in group),
                   key=lambda t: t["total_s"]) for group in groups]
    reports = [r for r in reports if "phases_s" in r]
    if not reports:
        return ""
    total = timing.sum_reports(reports)
    rows = [f"| {phase} | {seconds:.1f} | {100 * seconds / max(total['total_s'], 1e-9):.1f}% "
            f"| {timing.compilation_words(total['compilation'].get(phase))} |"
            for phase, seconds in total["phases_s"].items()]
    background = timing.compilation_words(total["compilation"].get(timing.BACKGROUND))
    if background:  # beside training: no wall time of its own
        rows.append(f"| {timing.BACKGROUND} (beside training) | | | {background} |")
    return "\n".join([
        "## Where the time went", "",
        f"Summed over {len(reports)} of {len(groups)} cohort(s) (their processes' phases, "
        f"training/timing.py; {total['evaluations']} evaluations took "
        f"{total['evaluation_s']:.1f} s):", "",
        "| phase | seconds | share | of which compiling |", "|---|---|---|---|", *rows, ""])


def _report_only(workdir, members, summaries, only, write_report, max_cohort_members,
                 progress):
    """While the sweep is unfinished, the report of the members ``only`` names, once they
    are all finished, in ``only/<only>/`` (a big sweep's table, a task or a setting at a
    time)."""
    chosen = [m for m in members if only and only in m.name]
    if not chosen or any(m.index not in summaries for m in chosen) or jax.process_index():
        return
    folder = workdir / "only" / re.sub(r"[^A-Za-z0-9_.=-]", "_", only)
    folder.mkdir(parents=True, exist_ok=True)
    ordered = [summaries[m.index] for m in chosen]
    write_report(folder, chosen, ordered, max_cohort_members)
    if progress:
        print(f"the report of the {len(chosen)} member(s) --only={only!r} names: "
              f"{folder / 'summary.md'}")


def report_writer(members, sweep_report=None):
    """``write(folder, members, summaries, max_cohort_members)``: the report of every
    member's task (``sweep_report(task class)``, reports/figures.py's
    ``sweep_report_for``; a sweep's tasks must share one), then "Where the time went"
    appended to its summary.md. Without ``sweep_report`` no report is written."""
    if sweep_report is None:
        return lambda folder, members, summaries, max_cohort_members: None
    writers = {sweep_report(get_task(m.config.task.name)) for m in members}
    if len(writers) > 1:
        names = sorted({m.config.task.name for m in members})
        raise ConfigError(f"the tasks of one sweep must share a report; {', '.join(names)} "
                          "do not: run them as separate sweeps")
    write_task_report = writers.pop()

    def write(folder, members, summaries, max_cohort_members: int):
        write_task_report(folder, members, summaries,
                          training_seconds(members, summaries, max_cohort_members))
        section = time_section(members, summaries, max_cohort_members)
        report = Path(folder) / "summary.md"
        if section and report.is_file():
            write_atomically(report, report.read_text().rstrip("\n") + "\n\n" + section)
    return write


def failure_line(workdir) -> str | None:
    """One line naming the failed members of a sweep's work directory (every part's),
    or None: a sweep with a failed member exits non-zero, as a failed single run does."""
    failed = [folder.name for folder in sorted(Path(workdir, "members").glob("*/"))
              if WorkDir(folder).failed()]
    if not failed:
        return None
    return (f"{len(failed)} sweep member(s) failed (non-finite; summary.json of each says "
            f"where): {', '.join(failed[:5])}{' …' if len(failed) > 5 else ''}")


def run_sweep(base_config, sweep: list[dict], workdir, *, progress: bool = True,
              hooks=(), part: tuple[int, int] = (1, 1), only: str = "",
              command: str | None = None, resume_with=frozenset(),
              adopt_from=(), figures=None, sweep_report=None,
              overrides=()) -> list[dict] | None:
    """Train every member of ``sweep`` (see ``sweeps``), or only part k of n of its
    cohorts, or (``only``) the cohorts with a member whose name contains that text;
    returns every member's summary in order, or None while other members are
    unfinished (the report waits for them). ``command``, the command line that runs
    the sweep, is appended to the work directory's commands.txt once every member is
    validated. ``resume_with``: training fields that may change on resume
    (``run.train_cohort``). ``adopt_from``: the work directories of other sweeps
    whose finished members this one's may start from instead of training (``adopt.py``).
    ``figures`` (``run.train_cohort``) and ``sweep_report`` (``report_writer``): what
    draws and reports, handed in from above (``attention_research.api``). ``overrides``:
    the fields the command line set (``run.train_cohort``)."""
    k, n = part
    if not 1 <= k <= n:
        raise ConfigError(f"part {k}/{n}: need 1 <= k <= n")
    workdir = Path(workdir)
    members = sweeps.expand(base_config, sweep, workdir)  # validates every member first
    write_report = report_writer(members, sweep_report)
    # A member directory copied from another version of the sweep (e.g. a record made
    # before a config change) must not pass for this member: refused before anything
    # trains, and left as it is.
    for member in members:
        try:
            WorkDir(member.workdir).check_config(member.config, resume_with)
        except ConfigMismatchError as error:
            raise ConfigMismatchError(
                f"{error}\nIn a sweep: move {member.workdir} away to train this member "
                f"({member.name}) again with the sweep's config.") from None
    groups = sweeps.cohorts(members, base_config.max_cohort_members)
    # Where each cohort keeps its checkpoints, found once: the checks below and training
    # all read it. A finished member whose config.json is lost is checked by its checkpoint.
    places = [cohort_checkpoints(workdir, cohort, resume_with) for cohort in groups]
    for cohort, place in zip(groups, places):
        check_lost_configs([m.config for m in cohort], [m.workdir for m in cohort], place,
                           resume_with)
    if only and not any(only in m.name for m in members):  # before anything is written
        raise ConfigError(f"--only={only!r} is in no member's name; the members are: "
                          + ", ".join(m.name for m in members))
    if jax.process_index() == 0:
        # A cohort another run trains now refuses the command here, as it would when
        # reached, but before its line is logged: commands.txt lists the commands that
        # ran the sweep, not the refused ones.
        for number, (cohort, place) in enumerate(zip(groups, places), 1):
            if (_trains(number, cohort, part, only)
                    and not all(_finished(member) for member in cohort)):
                DirectoryLock(place.parent).check_free()
    if command and jax.process_index() == 0:
        workdir.mkdir(parents=True, exist_ok=True)
        with open(workdir / "commands.txt", "a") as commands:
            commands.write(command + "\n")
    if progress:
        share = "" if n == 1 else f", part {k}/{n}: cohorts {k}, {k}+{n}, …"
        print(f"sweep: {len(members)} members in {len(groups)} cohort(s){share} -> {workdir}")
    summaries = {}
    with preemption.stop_on_signals():  # a signal between cohorts stops there too
        for number, (cohort, checkpoint_dir) in enumerate(zip(groups, places), 1):
            if preemption.requested():
                raise preemption.Preempted(preemption.requested(), None,
                                           (number, len(groups)))
            done = [_finished(m) for m in cohort]
            if all(done):
                summaries.update({m.index: s for m, s in zip(cohort, done)})
                if progress:
                    print(f"cohort {number}/{len(groups)}: finished before, not retrained")
                continue
            if not _trains(number, cohort, part, only):
                continue  # another part's cohort, or one --only leaves out
            if progress:
                print(f"cohort {number}/{len(groups)}: {len(cohort)} member(s): "
                      + ", ".join(m.name for m in cohort))
            if jax.process_index() == 0:  # its settings, as TensorBoard's hparams
                for member in cohort:
                    member.workdir.mkdir(parents=True, exist_ok=True)
                    write_atomically(member.workdir / "hparams.json", json.dumps(
                        member.settings(), indent=2, default=repr) + "\n")
            donor = _adoptable(cohort, checkpoint_dir, adopt_from)
            if donor is not None and progress:
                print(f"  adopting {donor.member} (its checkpoint of step {donor.step} "
                      f"in {donor.checkpoints}): final evaluation only")
            try:
                results = train_cohort([m.config for m in cohort],
                                       [m.workdir for m in cohort], checkpoint_dir,
                                       start_time=time.time(), progress=progress, hooks=hooks,
                                       resume_with=resume_with, adopt_from=donor,
                                       figures=figures, overrides=overrides)
            except preemption.Preempted as stop:  # said of the sweep, not of one cohort
                raise preemption.Preempted(stop.signum, stop.step,
                                           (number, len(groups))) from None
            summaries.update({m.index: s for m, s in zip(cohort, results)})
    # Another part may have finished its cohorts while this one trained.
    summaries.update({m.index: s for m in members if m.index not in summaries
                      and (s := _finished(m)) is not None})
    if len(summaries) < len(members):
        _report_only(workdir, members, summaries, only, write_report,
                     base_config.max_cohort_members, progress)
        if progress:
            print(f"part {k}/{n}{f', only {only!r},' if only else ''} done; "
                  f"{len(members) - len(summaries)} other member(s) unfinished: the report "
                  "is written when they are")
        return None
    ordered = [summaries[m.index] for m in members]
    failed = [(m, s) for m, s in zip(members, ordered) if s.get("status") == "failed"]
    if progress and failed:
        print(f"{len(failed)} of {len(members)} member(s) failed; the report marks them:")
        for member, summary in failed:
            print(f"  {member.name}: {summary['failure']['message']}")
    if jax.process_index() == 0:  # one writer; the work directory is shared
        write_report(workdir, members, ordered, base_config.max_cohort_members)
    return ordered
