"""The comparison a sweep ends with: summary.md, summary.csv and plots.

Members that differ only in their seed are one *setting*; the report shows each
setting's n seeds, mean and 95% t interval, and answers "which formulation wins
where" only as far as a test over seeds separates the settings (``stats.separation``:
Welch's t, Holm-corrected): a winner is named when it is separated from every other
setting, and otherwise the report names the settings it is not separated from. Each
kind of task has its report (``figures.SWEEP_REPORTS``): here the one of tasks scored
by sequence accuracy per held-out length range, and the helpers every report shares.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from attention_research.metric_names import (AUC_FROM_STEP, FIRST_STEP_SOLVED,
                                             STEP_TO_SOLVED_COLUMN, TIME_TO_SOLVED,
                                             TIME_TO_SOLVED_COLUMN, as_column, at_step, auc,
                                             column, eval_key, split_of)
from attention_research.reports import plotting, stats
from attention_research.reports.setting_names import (baseline, display_names, panels,
                                                      readable_names, setting_of)
from attention_research.reports.verdicts import failed_seeds, verdict
from attention_research.running import names
from attention_research.running.workdir import WorkDir, write_atomically


def summary_ranges(summaries) -> list[str]:
    """The held-out length ranges of a sweep's finished members, seen lengths first:
    ['len1-25', 'len26-50']."""
    names = dict.fromkeys(split for s in summaries for k in s["members"][0]["final"]
                          if (split := split_of(k, "seq_acc")) is not None)
    return sorted(names, key=lambda name: int(name[3:].split("-")[0]))


def early_budget(config) -> int | None:
    """The step of the short budget a report reads beside the final accuracy: a third of
    the run, on the grid of ``train.curve_eval_every`` (None when it is off): 500 of
    compare_attention's 1,500 steps, where formulations that all end at the ceiling can
    still be apart."""
    every = config.train.get("curve_eval_every", 0)
    return (config.train.num_steps // 3) // every * every if every else None


def member_rows(members, summaries, records, seen: str | None = None,
                early_step: int | None = None) -> list[dict]:
    """One flat row per member: what summary.csv holds. ``records``: each member's
    metrics.jsonl lines; an evaluation at step 0 adds the untrained attention entropy,
    ``seen`` (the seen-length range) the area under the accuracy curve, and
    ``early_step`` the seen-length accuracy at that step (``early_budget``)."""
    rows = []
    for member, summary, member_records in zip(members, summaries, records):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": setting_of(member), "seed": entry["seed"],
               "learning_rate": entry.get("learning_rate"), "task": summary["task"],
               **status_fields(summary),
               STEP_TO_SOLVED_COLUMN: entry.get(FIRST_STEP_SOLVED),
               TIME_TO_SOLVED_COLUMN: entry.get(TIME_TO_SOLVED)}
        row.update({as_column(k): v for k, v in entry["final"].items()})
        start = [r for r in member_records if r["step"] == 0]
        row.update({at_step(as_column(k), 0): v for r in start for k, v in r.items()
                    if split_of(k, "attn_entropy") is not None})
        if seen is not None and row["status"] != "failed":
            curve = plotting.curve(member_records, eval_key("seq_acc", seen))
            if curve:
                row[auc(column("seq_acc", seen))] = stats.area_under_curve(
                    curve, summary["steps"], first_step=min(curve))
                row[AUC_FROM_STEP] = min(curve)
            if early_step is not None and early_step in curve:
                row[at_step(column("seq_acc", seen), early_step)] = curve[early_step]
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
    """How many seeds a setting has; how many failed (and when) or warned (a diverging
    loss, or one that never fell: summary.json's warnings say which)."""
    failed = [r for r in seeds if r["status"] == "failed"]
    warned = [r for r in seeds if r.get("warnings")]
    notes = []
    if failed:
        steps = ", ".join(str(r["failed_at_step"]) for r in failed)
        notes.append(f"{len(failed)} failed: non-finite at step {steps}")
    if warned:
        notes.append(f"{len(warned)} with a warning: see summary.json warnings")
    return f"{len(seeds)} ({'; '.join(notes)})" if notes else str(len(seeds))


def interval_cell(values, digits: int = 3) -> str:
    """'0.812 ± 0.021': the mean and the half-width of its 95% t interval over seeds."""
    return stats.t_interval(values).cell(digits)


# An ablation's drop in log-probability (nats, higher: the token mattered more).
DROP = stats.NATS


def pivot_section(rows, key: str, name: str, config, rule: stats.Rule = stats.ACCURACY) -> str:
    """Settings × tasks for one metric, each setting by its ``display_names``: the mean ±
    95% t interval and, against the ``baseline`` (the experiment's ``config.baseline``,
    else the sweep's first setting), the difference with its 95% Welch interval. '' for
    a sweep of one setting on one task."""
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    settings = list(dict.fromkeys(names.compared_setting(r["setting"]) for r in rows))
    if len(settings) * len(tasks) < 2:
        return ""
    values = lambda setting, task: [r.get(key) for r in rows if r["task"] == task
                                    and names.compared_setting(r["setting"]) == setting]
    shown = display_names(settings, config)

    def cell(setting, task):
        found = values(setting, task)
        if not found:
            return ""
        failed = failed_seeds(found, rule)
        return interval_cell(found) + (f" ({failed} of {len(found)} failed)" if failed else "")
    table = markdown_table(["setting", *tasks], [[shown[s], *(cell(s, t) for t in tasks)]
                                                 for s in settings])
    text = (f"\n\n## At a glance: {name}\n\nMean ± 95% t interval over seeds; a seed "
            f"failed if it is non-finite or under the floor ({rule.floor:g}).\n\n{table}")
    reference = baseline(settings, config)
    others = [s for s in settings if s != reference]
    if not others:
        return text
    named = ("the experiment's `config.baseline`" if reference == config.get("baseline", "")
             else "the sweep's first setting; an experiment names another with "
             "`config.baseline`")

    def difference(setting, task):
        interval = stats.difference_interval(values(setting, task), values(reference, task))
        if interval is None:
            return "" if not values(setting, task) else "— (under 2 seeds a side)"
        return (f"{interval.mean:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}]"
                if interval.low is not None else f"{interval.mean:+.3f}")
    against = markdown_table(["setting", *tasks], [[shown[s], *(difference(s, t) for t in tasks)]
                                                   for s in others])
    return (text + f"\n\nAgainst the baseline, **{shown[reference]}** ({named}): the "
            "difference in means with its 95% Welch interval (positive: "
            f"higher than the baseline). An interval that excludes 0 is one test at the 5% "
            f"level, not corrected for the {len(others) * len(tasks)} made here; the "
            f"separation table below corrects.\n\n{against}")


def markdown_table(header, rows) -> str:
    """A Markdown table: the header, its rule, then one line per row of cells."""
    row = lambda cells: "| " + " | ".join(cells) + " |"
    return "\n".join([row(header), "|" + "---|" * len(header), *map(row, rows)])


SEPARATION_NOTE = (
    "Per task and metric, the setting with the best mean is tested against every other "
    "setting: Welch's t-test over seeds, Holm-corrected over those comparisons (5% "
    "family-wise level). A winner is named only when it is separated from all of them "
    "by at least the metric's minimum effect, and never when the best mean is below the "
    "metric's floor (stats.Rule: accuracy and area floor 0.05, minimum effect 0.02; BLEU "
    "1.0 and 0.5; chrF 5 and 1; ablation drops 0.1 nats). Leads are given with their 95% "
    "Welch interval.")


def markdown(rows, ranges, elapsed_s: float, eval_every: int | None = None,
             curve_eval_every: int = 0, config=None) -> str:
    """The report's text; ``config`` (a member's) lets it name settings for a person
    and pivot them against the tasks (``pivot_section``)."""
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    seen = ranges[0]
    at_start = at_step(column("attn_entropy", seen), 0)
    with_start = any(at_start in r for r in rows)
    copy_key = column("copy_rate", seen)  # pointer-generators: mean 1 − p_gen
    with_copy = any(r.get(copy_key) is not None for r in rows)
    auc_key = auc(column("seq_acc", seen))
    auc_from = next((r[AUC_FROM_STEP] for r in rows if r.get(auc_key) is not None), None)
    auc_steps = ("" if auc_from is None
                 else f" (steps {auc_from}–{max(r['steps'] for r in rows)})")
    early = next((k for r in rows for k in r if k.startswith(at_step(column("seq_acc", seen)))),
                 None)
    early_name = early and f"seq acc {seen[3:]} at step {early.rpartition('@step')[2]}"
    any_key = column("align_acc_any", seen)  # any source position holding the emitted symbol
    with_any = any(r.get(any_key) is not None for r in rows)
    header = (["setting", "seeds"] + ([early_name] if early else [])
              + [f"seq acc {r[3:]}" for r in ranges]
              + [f"align acc {seen[3:]}"]
              + ([f"align acc {seen[3:]}, any position with the symbol"] if with_any else [])
              + [f"area under seq acc {seen[3:]}{auc_steps}", "steps to 0.99 (reached/seeds)"]
              + (["attention entropy at step 0 (nats)"] if with_start else [])
              + ([f"share copied {seen[3:]} (mean 1 − p_gen)"] if with_copy else []))
    table = []
    for setting in settings:
        seeds = [r for r in rows if r["setting"] == setting]
        reached = [r[STEP_TO_SOLVED_COLUMN] for r in seeds
                   if r[STEP_TO_SOLVED_COLUMN] is not None]
        steps = (f"{interval_cell(reached, 0)} ({len(reached)}/{len(seeds)})" if reached
                 else f"— (0/{len(seeds)})")
        cells = [setting, seeds_cell(seeds)]
        if early:
            cells.append(interval_cell([r.get(early) for r in seeds]))
        cells += [interval_cell([r.get(column("seq_acc", name)) for r in seeds])
                  for name in ranges]
        cells.append(interval_cell([r.get(column("align_acc", seen)) for r in seeds]))
        if with_any:
            cells.append(interval_cell([r.get(any_key) for r in seeds]))
        cells += [interval_cell([r.get(auc_key) for r in seeds]), steps]
        if with_start:
            cells.append(interval_cell([r.get(at_start) for r in seeds]))
        if with_copy:
            cells.append(interval_cell([r.get(copy_key) for r in seeds]))
        table.append(cells)
    metrics = [(column("seq_acc", ranges[-1]), f"seq acc {ranges[-1][3:]}"),
               (column("seq_acc", seen), f"seq acc {seen[3:]}"),
               (auc_key, f"area under seq acc {seen[3:]}")]
    metrics += [(early, early_name)] if early else []
    metrics = [(key, name) for key, name in metrics if any(r.get(key) is not None for r in rows)]
    verdicts = []
    # Verdicts name settings as a person reads them ('Transformer · RoPE', issue 38).
    shown = readable_names(dict.fromkeys(map(names.compared_setting, settings)), config)
    for task in dict.fromkeys(r["task"] for r in rows):
        of_task = [s for s in settings if any(r["setting"] == s and r["task"] == task
                                              for r in rows)]
        for key, name in dict.fromkeys(metrics):
            # Failed members count as failed seeds (None), and are left out of the test.
            samples = {shown[names.compared_setting(s)]: [r.get(key) for r in rows
                                                 if r["setting"] == s] for s in of_task}
            verdicts.append([task, name, verdict(samples, rule=stats.ACCURACY)])
    explained = analysis_section(rows, settings, seen)
    grid = f" Held-out evaluation every {eval_every} steps" if eval_every else ""
    if grid and curve_eval_every:
        grid += (f"; the lengths seen in training alone every {curve_eval_every} (the grid "
                 f"of steps to 0.99 and of the area)")
    grid += "." if grid else ""
    if early:
        grid += (f" {early_name[0].upper()}{early_name[1:]}: a third of the training "
                 "budget: a short budget, at which settings that all end at the ceiling "
                 "can still differ.")
    return ("Mean ± the half-width of its 95% t interval over seeds (no interval for one "
            "seed). Sequence accuracy: greedy exact match; alignment accuracy: attention "
            "argmax on the right source position; area under seq acc: the held-out "
            "accuracy curve's mean over training (trapezoids), a speed measure with no "
            f"ceiling.{grid}"
            + (pivot_section(rows, column("seq_acc", seen), f"seq acc {seen[3:]}", config)
               if config is not None else "")
            + ("\n\n## Every setting\n\n" if config is not None else "\n\n")
            + markdown_table(header, table)
            + "\n\n## Which settings a test separates\n\n" + SEPARATION_NOTE + "\n\n"
            + markdown_table(["task", "metric", "winner"], verdicts)
            + explained
            + f"\n\n{len(rows)} members, {elapsed_s:.0f} s of training wall time (summed "
              "over cohorts).\n")


def analysis_section(rows, settings, seen: str, label: str | None = None) -> str:
    """With analysis.implicit (training/held_out.py): explicit and implicit alignment
    (where the true alignment is known), their agreement, and the ablation drops, on
    the held-out range (or split) ``seen``, named ``label`` in the header (default: its
    lengths); per setting, whether zeroing the token the weights rank highest costs
    more than zeroing a random one. '' without it."""
    if not any(r.get(column("ablation_drop_random", seen)) is not None for r in rows):
        return ""
    label = seen.removeprefix("len") if label is None else label
    columns = [("align_acc", "explicit align acc"), ("implicit_align_acc", "implicit align acc"),
               ("rollout_align_acc", "rollout align acc"),
               ("align_acc_any", "explicit align acc, any position with the symbol"),
               ("implicit_align_acc_any", "implicit align acc, any"),
               ("rollout_align_acc_any", "rollout align acc, any"),
               ("implicit_align_acc_gradient", "gradient align acc"),
               ("implicit_align_acc_gradient_x_input", "gradient × input align acc"),
               ("implicit_tau", "Kendall τ explicit vs implicit"),
               ("ablation_drop_explicit", "drop: explicit argmax zeroed"),
               ("ablation_drop_implicit", "drop: implicit argmax zeroed"),
               ("ablation_drop_random", "drop: random token zeroed"),
               ("ablation_drop_other", "drop: random token but the explicit argmax zeroed"),
               ("ablation_drop_diagonal", "drop: diagonal token zeroed"),
               ("ablation_drop_diagonal_other",
                "drop: diagonal token zeroed, where it is not the explicit argmax"),
               ("overlap_diagonal", "share: diagonal token is the explicit argmax"),
               ("overlap_implicit", "share: implicit argmax is the explicit argmax"),
               ("overlap_random", "share: random token is the explicit argmax")]
    columns = [(k, name) for k, name in columns
               if any(r.get(column(k, seen)) is not None for r in rows)]
    table = []
    for setting in settings:
        seeds = [r for r in finished(rows) if r["setting"] == setting]
        values = lambda key: [r.get(column(key, seen)) for r in seeds]
        cells = [setting, str(len(seeds))] + [interval_cell(values(k)) for k, _ in columns]
        if any(v is not None for v in values("ablation_drop_explicit")):
            cells.append(verdict({"explicit argmax": values("ablation_drop_explicit"),
                                  "random": values("ablation_drop_random")}, rule=DROP))
        else:
            cells.append("— (no weights)")
        table.append(cells)
    header = (["setting", "seeds"] + [f"{name} {label}" for _, name in columns]
              + ["larger drop (explicit argmax vs random)"])
    return ("\n\n## Explicit and implicit attention\n\n"
            "Implicit map: the |attribution| of an output's log-probability to each source "
            "token (analysis.implicit), read at drawn target steps; align acc: the map's "
            "argmax on the true source position; τ: Kendall τ_b between the weights and the "
            "implicit map; drop: the output's log-probability lost (nats) when one source "
            "token's embedding is zeroed — the zero embedding is also integrated gradients' "
            "baseline, so a comparison of drops favours that method by construction; the "
            "last column tests the weights' token against a random one (which is the "
            "weights' own with probability 1/L); the controls 'random but the explicit "
            "argmax' and 'diagonal' (round((t + ½)·L/T − ½), content-blind), where given, "
            "are tabled but not tested here. 'Any': any source position "
            "holding the emitted symbol counts (where a symbol repeats, the one true "
            "position is a convention). Last column: Welch's t-test over seeds, as "
            "above.\n\n"
            + markdown_table(header, table))


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
    ranges = summary_ranges(summaries)
    rows = member_rows(members, summaries, records, ranges[0] if ranges else None,
                       early_budget(members[0].config))
    if not ranges:  # no member finished: there is nothing to compare
        table = markdown_table(["setting", "seeds"], [
            [s, seeds_cell([r for r in rows if r["setting"] == s])]
            for s in dict.fromkeys(r["setting"] for r in rows)])
        write_atomically(workdir / "summary.md", f"# {members[0].config.name}\n\nEvery member failed; "
                         f"nothing to compare.\n\n{table}\n")
        write_csv(workdir / "summary.csv", rows)
        return
    title = members[0].config.name
    write_atomically(workdir / "summary.md", f"# {title}\n\n"
                     + markdown(rows, ranges, elapsed_s, members[0].config.train.eval_every,
                                members[0].config.train.get("curve_eval_every", 0),
                                members[0].config))
    write_csv(workdir / "summary.csv", rows)
    plots = workdir / "plots"
    plots.mkdir(exist_ok=True)
    tasks = list(dict.fromkeys(s["task"] for s in summaries))
    for task in tasks:  # one figure per task, so each compares like with like
        suffix = f"_{task}" if len(tasks) > 1 else ""
        by_setting, tokens_by_setting, positions_by_setting, curves = {}, {}, {}, {}
        for member, summary, member_records in zip(members, summaries, records):
            if summary["task"] != task or summary.get("status") == "failed":
                continue
            label = names.compared_setting(setting_of(member))
            final = summary["members"][0]
            by_setting.setdefault(label, []).append(
                {int(n): a for n, a in final["seq_acc_by_length"].items()})
            if "token_acc_by_length" in final:  # runs recorded before it have none
                tokens_by_setting.setdefault(label, []).append(
                    {int(n): a for n, a in final["token_acc_by_length"].items()})
            if "token_acc_by_position" in final:  # issue 35; absent from older runs
                positions_by_setting.setdefault(label, []).append(
                    {int(n): a for n, a in final["token_acc_by_position"].items()})
            curves.setdefault(label, []).append(member_records)
        if not by_setting:
            continue  # every member of this task failed
        layout = panels(list(by_setting), members[0].config)
        plotting.accuracy_by_length_spread(
            plots / f"seq_acc_by_length{suffix}.png", by_setting,
            members[0].config.task.train_max_length,
            f"{title} ({task}): accuracy by length", panels=layout)
        if tokens_by_setting and len(tokens_by_setting) == len(by_setting):
            plotting.accuracy_by_length_spread(
                plots / f"token_acc_by_length{suffix}.png", tokens_by_setting,
                members[0].config.task.train_max_length,
                f"{title} ({task}): token accuracy by length", "teacher-forced token accuracy",
                panels=layout)
        if positions_by_setting:  # the settings whose runs record it
            plotting.accuracy_by_length_spread(
                plots / f"token_acc_by_position{suffix}.png", positions_by_setting,
                members[0].config.task.train_max_length,
                f"{title} ({task}): token accuracy by target position",
                "teacher-forced token accuracy", "target position (all held-out lengths)",
                panels=layout)
        plotting.learning_curves_spread(plots / f"learning_curves{suffix}.png", curves,
                                        ranges[0], f"{title} ({task}): learning curves",
                                        panels=layout)
