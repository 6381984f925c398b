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
import math
from pathlib import Path

from attention_research.reports import plotting, stats
from attention_research.running import names
from attention_research.running.workdir import WorkDir, write_atomically


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
               "step_to_0.99": entry.get("first_step_seq_acc_0.99"),
               "time_to_0.99_s": entry.get("time_to_seq_acc_0.99_s")}
        row.update({k.removeprefix("eval/"): v for k, v in entry["final"].items()})
        start = [r for r in member_records if r["step"] == 0]
        row.update({f"{k.removeprefix('eval/')}@step0": v for r in start for k, v in r.items()
                    if k.startswith("eval/attn_entropy/")})
        if seen is not None and row["status"] != "failed":
            curve = plotting.curve(member_records, f"eval/seq_acc/{seen}")
            if curve:
                row[f"auc_seq_acc/{seen}"] = stats.area_under_curve(
                    curve, summary["steps"], first_step=min(curve))
                row["auc_from_step"] = min(curve)
            if early_step is not None and early_step in curve:
                row[f"seq_acc/{seen}@step{early_step}"] = curve[early_step]
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


def interval_cell(values, digits: int = 3) -> str:
    """'0.812 ± 0.021': the mean and the half-width of its 95% t interval over seeds."""
    return stats.t_interval(values).cell(digits)


# An ablation's drop in log-probability (nats, higher: the token mattered more).
DROP = stats.NATS


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def verdict(samples: dict, higher_is_better: bool = True, digits: int = 3,
            rule: stats.Rule = stats.ANY) -> str:
    """Which setting wins on a metric, as far as a test separates them under ``rule``
    (no winner at the metric's floor or by less than its minimum effect). ``samples``:
    {setting: per-seed values}; None and NaN (failed members) are left out."""
    present = {s: stats.finite(v) for s, v in samples.items()}
    present = {s: v for s, v in present.items() if len(v)}
    if not present:
        return "none (every member failed)"
    if all(not v.any() for v in present.values()):
        return "none (every setting scored 0)"
    if len(present) == 1:
        return f"none (only {next(iter(present))} has results)"
    result = stats.separation(present, higher_is_better, rule)
    mean = present[result.leader].mean()
    if result.at_floor:
        return (f"none: every setting at the floor (best mean, {result.leader}, "
                f"{mean:.{digits}f} < {rule.floor:g})")
    if result.winner is not None:
        worst = max(c.p_holm for c in result.comparisons)
        closest = min(result.comparisons, key=lambda c: c.difference)
        gap = _difference(closest, digits)
        if len(result.comparisons) == 1:  # two settings: one test, nothing to correct
            return (f"**{result.winner}** (separated from {closest.other} by {gap}; "
                    f"p {_p(worst)})")
        return (f"**{result.winner}** (separated from every other setting; the closest, "
                f"{closest.other}, by {gap}; largest Holm-corrected p {_p(worst)})")
    failed = lambda setting: (f"; {k} of {len(samples[setting])} seeds failed"
                              if (k := failed_seeds(samples[setting], rule)) else "")
    ties = ", ".join(_tie(c, digits, failed(c.other)) for c in result.comparisons
                     if not c.separated)
    return (f"none: the best mean, {result.leader} ({mean:.{digits}f}"
            f"{failed(result.leader)}), is not separated from {ties}" + _effect_note(rule))


def _difference(comparison, digits: int) -> str:
    """'+0.042 [+0.011, +0.073]': the leader's lead with its 95% Welch interval."""
    interval = comparison.interval
    if interval is None or interval.low is None:
        return f"{comparison.difference:+.{digits}f}"
    sign = 1 if comparison.difference * interval.mean >= 0 else -1  # lower is better: flip
    low, high = sorted((sign * interval.low, sign * interval.high))
    return f"{comparison.difference:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def _tie(comparison, digits: int, failed: str = "") -> str:
    """A setting the leader is not separated from, its lead and p; ``failed``: how many
    of its seeds failed (non-finite or under the floor), which makes a tie of a spread."""
    if comparison.p_holm is None:
        return f"{comparison.other} (under 2 seeds: no test{failed})"
    small = (comparison.p_holm < stats.LEVEL and 0 < comparison.difference
             < comparison.min_effect)
    return (f"{comparison.other} ({_difference(comparison, digits)}, p "
            f"{_p(comparison.p_holm)}{', under the minimum effect' if small else ''}{failed})")


def _effect_note(rule: stats.Rule) -> str:
    return "" if rule is stats.ANY else f" ({rule.words()})"


# How a report shows a setting's parts (``display_name``): by value, or as a phrase.
_DISPLAYED_VALUES = {
    "family": {"transformer": "Transformer", "decoder_only": "decoder-only", "rnn": "RNN"},
    "positions": {"rope": "RoPE", "alibi": "ALiBi", "nope": "NoPE"},
}
_BARE_VALUES = ("score", "alignment", "normalizer", "cell", "decoder_style", "task")


def display_names(settings, config) -> dict[str, str]:
    """Each setting's short name for a person: 'family-transformer_positions-rope' ->
    'Transformer · RoPE', 'score-additive_alignment-local_m' -> 'additive · local_m',
    'pointer_generator-True' -> 'pointer-generator' (its parts by
    ``names.parser``; a name that does not parse is shown as it is). A part
    every setting of its group holds (the settings that begin with the same part, two
    or more) is left out: the Transformers of compare_attention all have scaled_dot, 4
    heads and 2 layers, and read 'Transformer · RoPE'."""
    parse = names.parser(config)
    parts = {s: parse(s) for s in settings}
    groups = {}
    for found in parts.values():
        if found:
            groups.setdefault(found[0], []).append(set(found[1:]))
    shown = {}
    for setting, found in parts.items():
        group = groups.get(found[0], []) if found else []
        shared = set.intersection(*group) if len(group) > 1 else set()
        shown[setting] = (" · ".join(_shown(*part) for part in
                                     [found[0], *(p for p in found[1:] if p not in shared)])
                          if found else setting)
    return shown


def readable_names(settings, config) -> dict[str, str]:
    """``display_names`` where they tell every setting apart (and a config is given),
    else the settings' own names: the names a report's tables and verdicts show."""
    settings = list(settings)
    shown = display_names(settings, config) if config is not None else {}
    if len(set(shown.values())) < len(settings):
        return {s: s for s in settings}
    return shown


def _shown(key: str, value: str) -> str:
    """One (short field, value) part of a setting's name, as a person reads it."""
    if key in _DISPLAYED_VALUES:
        return _DISPLAYED_VALUES[key].get(value, value)
    if key in _BARE_VALUES:
        return value
    words = key.replace("_", " ")
    if value in ("True", "False"):
        return words.replace(" ", "-") if value == "True" else f"no {words}"
    if key in ("num_heads", "num_layers"):
        return f"{value} {words.removeprefix('num ')}"
    return f"{words} {value}"


def setting_groups(settings, config) -> dict[str, list[str]]:
    """The panels of a report's small multiples (``plotting.Panels``): settings that vary
    the same thing together (scores alone; alignments; normalisers; a Transformer's
    positions), by the field of each setting's second part; groups of one go to
    'other'."""
    titles = {"alignment": "alignments", "normalizer": "normalisers"}
    parse, groups = names.parser(config), {}
    for setting in settings:
        parts = parse(setting)
        if not parts:
            title = "other"
        elif parts[0][0] == "family":
            title = _shown(*parts[0])
        elif len(parts) == 1:
            title = "scores"
        else:
            title = titles.get(parts[1][0], parts[1][0].replace("_", " "))
        groups.setdefault(title, []).append(setting)
    merged = {}
    for title, members in groups.items():
        merged.setdefault(title if len(members) > 1 else "other", []).extend(members)
    return merged


def baseline(settings, config) -> str:
    """The setting of ``settings`` (names without the task) that the others are read
    against: the one the experiment names (``config.baseline``), else the first."""
    named = config.get("baseline", "") if config is not None else ""
    return named if named in settings else settings[0]


def panels(settings, config) -> plotting.Panels:
    """Small multiples of ``settings`` (labels without the task), the ``baseline`` the
    reference drawn in grey in each."""
    return plotting.Panels(setting_groups(settings, config), baseline(settings, config),
                           display_names(settings, config))


def failed_seeds(values, rule: stats.Rule) -> int:
    """Seeds that failed: non-finite (a failed member), or under the rule's floor."""
    return sum(1 for v in values if v is None or not math.isfinite(v)
               or (rule.floor is not None and v < rule.floor))


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
    at_start = f"attn_entropy/{seen}@step0"
    with_start = any(at_start in r for r in rows)
    copy_key = f"copy_rate/{seen}"  # pointer-generators: mean 1 − p_gen
    with_copy = any(r.get(copy_key) is not None for r in rows)
    auc_key = f"auc_seq_acc/{seen}"
    auc_from = next((r["auc_from_step"] for r in rows if r.get(auc_key) is not None), None)
    auc_steps = ("" if auc_from is None
                 else f" (steps {auc_from}–{max(r['steps'] for r in rows)})")
    early = next((k for r in rows for k in r if k.startswith(f"seq_acc/{seen}@step")), None)
    early_name = early and f"seq acc {seen[3:]} at step {early.rpartition('@step')[2]}"
    any_key = f"align_acc_any/{seen}"  # any source position holding the emitted symbol
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
        reached = [r["step_to_0.99"] for r in seeds if r["step_to_0.99"] is not None]
        steps = (f"{interval_cell(reached, 0)} ({len(reached)}/{len(seeds)})" if reached
                 else f"— (0/{len(seeds)})")
        cells = [setting, seeds_cell(seeds)]
        if early:
            cells.append(interval_cell([r.get(early) for r in seeds]))
        cells += [interval_cell([r.get(f"seq_acc/{name}") for r in seeds]) for name in ranges]
        cells.append(interval_cell([r.get(f"align_acc/{seen}") for r in seeds]))
        if with_any:
            cells.append(interval_cell([r.get(any_key) for r in seeds]))
        cells += [interval_cell([r.get(auc_key) for r in seeds]), steps]
        if with_start:
            cells.append(interval_cell([r.get(at_start) for r in seeds]))
        if with_copy:
            cells.append(interval_cell([r.get(copy_key) for r in seeds]))
        table.append(cells)
    metrics = [(f"seq_acc/{ranges[-1]}", f"seq acc {ranges[-1][3:]}"),
               (f"seq_acc/{seen}", f"seq acc {seen[3:]}"),
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
            + (pivot_section(rows, f"seq_acc/{seen}", f"seq acc {seen[3:]}", config)
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
    if not any(r.get(f"ablation_drop_random/{seen}") is not None for r in rows):
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
               if any(r.get(f"{k}/{seen}") is not None for r in rows)]
    table = []
    for setting in settings:
        seeds = [r for r in finished(rows) if r["setting"] == setting]
        values = lambda key: [r.get(f"{key}/{seen}") for r in seeds]
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
