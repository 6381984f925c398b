"""The comparison a sweep ends with: summary.md, summary.csv and plots.

Members that differ only in their seed are one *setting*; the report shows each
setting's mean and spread (min–max) over its seeds, so the question "which
formulation wins where" is answered at a glance. Each task names the report it
writes (``Task.write_sweep_report``): here the one of tasks scored by sequence
accuracy per held-out length range, and the helpers every report shares.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from attention_research import plotting
from attention_research.workdir import WorkDir, write_atomically


def setting_name(member_name: str) -> str:
    """A member's name without its seed: members that differ only by seed share it."""
    parts = [p for p in member_name.split("_") if not p.startswith("seed-")]
    return "_".join(parts) or "base"


def setting_of(member) -> str:
    return setting_name(member.name)


def summary_ranges(summaries) -> list[str]:
    """The held-out length ranges of a sweep's finished members, seen lengths first:
    ['len1-25', 'len26-50']."""
    names = dict.fromkeys(k.removeprefix("eval/seq_acc/") for s in summaries
                          for k in s["members"][0]["final"] if k.startswith("eval/seq_acc/"))
    return sorted(names, key=lambda name: int(name[3:].split("-")[0]))


def member_rows(members, summaries, records) -> list[dict]:
    """One flat row per member: what summary.csv holds. ``records``: each member's
    metrics.jsonl lines; an evaluation at step 0 adds the untrained attention entropy."""
    rows = []
    for member, summary, member_records in zip(members, summaries, records):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": setting_of(member), "seed": entry["seed"],
               "learning_rate": entry.get("learning_rate"), "task": summary["task"],
               **status_fields(summary),
               "step_to_0.99": entry.get("first_step_seq_acc_0.99"),
               "time_to_0.99_s": entry.get("time_to_seq_acc_0.99_s")}
        row.update({k.removeprefix("eval/"): v for k, v in entry["final"].items()})
        start = [r for r in member_records if r["step"] == 0]
        row.update({f"{k.removeprefix('eval/')}@step0": v for r in start for k, v in r.items()
                    if k.startswith("eval/attn_entropy/")})
        rows.append(row)
    return rows


def status_fields(summary) -> dict:
    """A member's steps and status: "finished", or "failed" (non-finite) at a step."""
    status = summary.get("status", "finished")
    return {"steps": summary["steps"], "status": status,
            "failed_at_step": summary["failure"]["step"] if status == "failed" else None,
            "warnings": len(summary.get("warnings", []))}


def finished(rows) -> list[dict]:
    return [r for r in rows if r["status"] != "failed"]


def seeds_cell(seeds) -> str:
    """How many seeds a setting has; how many failed (and when) or warned of divergence."""
    failed = [r for r in seeds if r["status"] == "failed"]
    warned = [r for r in seeds if r.get("warnings")]
    notes = []
    if failed:
        steps = ", ".join(str(r["failed_at_step"]) for r in failed)
        notes.append(f"{len(failed)} failed: non-finite at step {steps}")
    if warned:
        notes.append(f"{len(warned)} diverging: see summary.json warnings")
    return f"{len(seeds)} ({'; '.join(notes)})" if notes else str(len(seeds))


def best_setting(means: dict) -> str | None:
    """The setting with the highest mean, or None where none stands out: when the
    highest value is shared, or every value is 0 (nothing was learnt)."""
    means = {s: v for s, v in means.items() if v is not None and np.isfinite(v)}
    if not means:
        return None
    top = max(means.values())
    leaders = [s for s, v in means.items() if v == top]
    return leaders[0] if len(leaders) == 1 and top != 0 else None


def winner_text(means: dict) -> str:
    best = best_setting(means)
    if best is not None:
        return f"**{best}**"
    if not [v for v in means.values() if v is not None]:
        return "none (every member failed)"
    top = max(v for v in means.values() if v is not None)
    return "none (every setting scored 0)" if top == 0 else f"none (a tie at {top:.3f})"


def mean_spread(values):
    values = [v for v in values if v is not None and np.isfinite(v)]
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{np.mean(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def markdown_table(header, rows) -> str:
    """A Markdown table: the header, its rule, then one line per row of cells."""
    row = lambda cells: "| " + " | ".join(cells) + " |"
    return "\n".join([row(header), "|" + "---|" * len(header), *map(row, rows)])


def _without_task(setting: str) -> str:
    return "_".join(p for p in setting.split("_") if not p.startswith("task-")) or "base"


def markdown(rows, ranges, elapsed_s: float) -> str:
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    at_start = f"attn_entropy/{ranges[0]}@step0"
    with_start = any(at_start in r for r in rows)
    header = (["setting", "seeds"] + [f"seq acc {r[3:]}" for r in ranges]
              + [f"align acc {ranges[0][3:]}", "steps to 0.99 (reached/seeds)"]
              + (["attention entropy at step 0 (nats)"] if with_start else []))
    table = []
    for setting in settings:
        seeds = [r for r in rows if r["setting"] == setting]
        reached = [r["step_to_0.99"] for r in seeds if r["step_to_0.99"] is not None]
        steps = (f"{np.mean(reached):.0f} ({len(reached)}/{len(seeds)})" if reached
                 else f"— (0/{len(seeds)})")
        cells = [setting, seeds_cell(seeds)]
        cells += [mean_spread([r.get(f"seq_acc/{name}") for r in seeds]) for name in ranges]
        cells += [mean_spread([r.get(f"align_acc/{ranges[0]}") for r in seeds]), steps]
        if with_start:
            cells.append(mean_spread([r.get(at_start) for r in seeds]))
        table.append(cells)
    best = []
    for task in dict.fromkeys(r["task"] for r in rows):
        of_task = [s for s in settings if any(r["setting"] == s and r["task"] == task
                                              for r in rows)]
        scores = {_without_task(s): [r[f"seq_acc/{ranges[-1]}"] for r in finished(rows)
                                     if r["setting"] == s] for s in of_task}
        best.append(f"{task}: " + winner_text({s: np.mean(v) if v else None
                                              for s, v in scores.items()}))
    return ("Mean over seeds, (min–max) in brackets. Sequence accuracy: greedy exact match; "
            f"alignment accuracy: attention argmax on the right source position.\n\n"
            + markdown_table(header, table)
            + f"\n\nBest on {ranges[-1]}: " + "; ".join(best) + f". {len(rows)} members, "
              f"{elapsed_s:.0f} s of training wall time (summed over cohorts).\n")


def write_csv(path, rows):
    buffer = io.StringIO()
    fields = list(dict.fromkeys(k for r in rows for k in r))
    writer = csv.DictWriter(buffer, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, buffer.getvalue())


def write_accuracy_report(workdir, members, summaries, elapsed_s: float):
    """The sweep report of tasks scored by sequence accuracy per length range: a table of
    every setting, and per task the accuracy by length and the learning curves."""
    workdir = Path(workdir)
    records = [WorkDir(member.workdir).read_metrics() for member in members]
    rows = member_rows(members, summaries, records)
    ranges = summary_ranges(summaries)
    if not ranges:  # no member finished: there is nothing to compare
        table = markdown_table(["setting", "seeds"], [
            [s, seeds_cell([r for r in rows if r["setting"] == s])]
            for s in dict.fromkeys(r["setting"] for r in rows)])
        write_atomically(workdir / "summary.md", f"# {workdir.name}\n\nEvery member failed; "
                         f"nothing to compare.\n\n{table}\n")
        write_csv(workdir / "summary.csv", rows)
        return
    write_atomically(workdir / "summary.md", f"# {workdir.name}\n\n"
                     + markdown(rows, ranges, elapsed_s))
    write_csv(workdir / "summary.csv", rows)
    plots = workdir / "plots"
    plots.mkdir(exist_ok=True)
    tasks = list(dict.fromkeys(s["task"] for s in summaries))
    for task in tasks:  # one figure per task, so each compares like with like
        suffix = f"_{task}" if len(tasks) > 1 else ""
        by_setting, curves = {}, {}
        for member, summary, member_records in zip(members, summaries, records):
            if summary["task"] != task or summary.get("status") == "failed":
                continue
            label = _without_task(setting_of(member))
            by_setting.setdefault(label, []).append(
                {int(n): a for n, a in summary["members"][0]["seq_acc_by_length"].items()})
            curves.setdefault(label, []).append(member_records)
        if not by_setting:
            continue  # every member of this task failed
        plotting.accuracy_by_length_spread(
            plots / f"seq_acc_by_length{suffix}.png", by_setting,
            members[0].config.task.train_max_length,
            f"{workdir.name} ({task}): accuracy by length")
        plotting.learning_curves_spread(plots / f"learning_curves{suffix}.png", curves,
                                        ranges[0], f"{workdir.name} ({task}): learning curves")
