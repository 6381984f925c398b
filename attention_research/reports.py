"""The comparison a sweep ends with: summary.md, summary.csv and plots.

Members that differ only in their seed are one *setting*; the report shows each
setting's mean and spread (min–max) over its seeds, so the question "which
formulation wins where" is answered at a glance.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from attention_research import plotting, sweeps


def _setting(member) -> str:
    """The member's name without its seed: members that differ only by seed share it."""
    parts = [p for p in member.name.split("_") if not p.startswith("seed-")]
    return "_".join(parts) or "base"


def summary_buckets(summary) -> list[str]:
    """A run summary's length buckets, seen lengths first: ['len1-25', 'len26-50']."""
    names = [k.removeprefix("eval/seq_acc/") for k in summary["members"][0]["final"]
             if k.startswith("eval/seq_acc/")]
    return sorted(names, key=lambda name: int(name[3:].split("-")[0]))


def member_rows(members, summaries, records) -> list[dict]:
    """One flat row per member: what summary.csv holds. ``records``: each member's
    metrics.jsonl lines; an evaluation at step 0 adds the untrained attention entropy."""
    rows = []
    for member, summary, mine in zip(members, summaries, records):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": _setting(member), "seed": entry["seed"],
               "learning_rate": entry.get("learning_rate"), "task": summary["task"],
               "steps": summary["steps"],
               "step_to_0.99": entry["first_step_seq_acc_0.99"],
               "time_to_0.99_s": entry["time_to_seq_acc_0.99_s"]}
        row.update({k.removeprefix("eval/"): v for k, v in entry["final"].items()})
        start = [r for r in mine if r["step"] == 0]
        row.update({f"{k.removeprefix('eval/')}@step0": v for r in start for k, v in r.items()
                    if k.startswith("eval/attn_entropy/")})
        rows.append(row)
    return rows


def _mean_spread(values):
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


def training_seconds(members, summaries) -> float:
    """Wall time of the training, summed over cohorts (each cohort's longest member):
    the same whether the sweep ran in one go or was resumed."""
    by_index = {m.index: s for m, s in zip(members, summaries)}
    groups = sweeps.cohorts(members, members[0].config.max_cohort_members)
    return sum(max(by_index[m.index]["wall_time_s"] for m in group) for group in groups)


def _without_task(setting: str) -> str:
    return "_".join(p for p in setting.split("_") if not p.startswith("task-")) or "base"


def markdown(rows, buckets, elapsed_s: float) -> str:
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    at_start = f"attn_entropy/{buckets[0]}@step0"
    with_start = any(at_start in r for r in rows)
    header = (["setting", "seeds"] + [f"seq acc {b[3:]}" for b in buckets]
              + [f"align acc {buckets[0][3:]}", "steps to 0.99 (reached/seeds)"]
              + (["attention entropy at step 0 (nats)"] if with_start else []))
    table = []
    for setting in settings:
        mine = [r for r in rows if r["setting"] == setting]
        reached = [r["step_to_0.99"] for r in mine if r["step_to_0.99"] is not None]
        steps = (f"{np.mean(reached):.0f} ({len(reached)}/{len(mine)})" if reached
                 else f"— (0/{len(mine)})")
        cells = [setting, str(len(mine))]
        cells += [_mean_spread([r.get(f"seq_acc/{b}") for r in mine]) for b in buckets]
        cells += [_mean_spread([r.get(f"align_acc/{buckets[0]}") for r in mine]), steps]
        if with_start:
            cells.append(_mean_spread([r.get(at_start) for r in mine]))
        table.append(cells)
    best = []
    for task in dict.fromkeys(r["task"] for r in rows):
        mine = [s for s in settings if any(r["setting"] == s and r["task"] == task for r in rows)]
        winner = max(mine, key=lambda s: np.mean([r[f"seq_acc/{buckets[-1]}"] for r in rows
                                                  if r["setting"] == s]))
        best.append(f"{task}: **{_without_task(winner)}**")
    return ("Mean over seeds, (min–max) in brackets. Sequence accuracy: greedy exact match; "
            f"alignment accuracy: attention argmax on the right source position.\n\n"
            + markdown_table(header, table)
            + f"\n\nBest on {buckets[-1]}: " + "; ".join(best) + f". {len(rows)} members, "
              f"{elapsed_s:.0f} s of training wall time (summed over cohorts).\n")


def translation_rows(members, summaries) -> list[dict]:
    """One flat row per member of a translation sweep: final scores, BLEU by length."""
    rows = []
    for member, summary in zip(members, summaries):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": _setting(member), "seed": entry["seed"],
               "steps": summary["steps"], "wall_time_s": summary["wall_time_s"]}
        row.update({k.removeprefix("eval/"): v for k, v in entry["final"].items()})
        row.update({f"bleu_len{k}": v["bleu"] for k, v in entry["bleu_by_length"].items()})
        rows.append(row)
    return rows


def translation_markdown(rows, split: str, elapsed_s: float) -> str:
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    lengths = list(dict.fromkeys(k for r in rows for k in r if k.startswith("bleu_len")))
    header = (["setting", "seeds", f"BLEU ({split})", f"chrF ({split})", "validation loss"]
              + [f"BLEU, {k.removeprefix('bleu_len')} words" for k in lengths])
    table = []
    for setting in settings:
        mine = [r for r in rows if r["setting"] == setting]
        cells = [setting, str(len(mine))]
        cells += [_mean_spread([r.get(k) for r in mine]) for k in
                  (f"{split}/bleu", f"{split}/chrf", "loss/validation", *lengths)]
        table.append(cells)
    best = max(settings, key=lambda s: np.mean([r[f"{split}/bleu"] for r in rows
                                                if r["setting"] == s]))
    return ("Mean over seeds, (min–max) in brackets. BLEU and chrF by sacrebleu on "
            "detokenised output; source length in words.\n\n" + markdown_table(header, table)
            + f"\n\nBest BLEU: **{best}**. {len(rows)} members, {elapsed_s:.0f} s of "
              "training wall time (summed over cohorts).\n")


def write_translation_report(workdir, members, summaries, elapsed_s: float):
    workdir = Path(workdir)
    rows = translation_rows(members, summaries)
    split = summaries[0]["decoding"]["split"]
    (workdir / "summary.md").write_text(f"# {workdir.name}\n\n"
                                        + translation_markdown(rows, split, elapsed_s))
    _write_csv(workdir / "summary.csv", rows)
    plots = workdir / "plots"
    plots.mkdir(exist_ok=True)
    by_setting = {}
    for member, summary in zip(members, summaries):
        by_setting.setdefault(_setting(member), []).append(summary["members"][0]["bleu_by_length"])
    mean_by_setting = {
        setting: {bucket: {"bleu": float(np.mean([r[bucket]["bleu"] for r in runs])),
                           "count": runs[0][bucket]["count"]} for bucket in runs[0]}
        for setting, runs in by_setting.items()}
    plotting.bleu_by_length(plots / "bleu_by_length.png", mean_by_setting,
                            f"{workdir.name}: BLEU by source length ({split})")
    significance = significance_markdown(members, split)
    if significance:
        (workdir / "significance.md").write_text(f"# {workdir.name}: significance\n\n"
                                                 + significance)


def significance_markdown(members, split: str, n_samples: int = 1000) -> str | None:
    """Every member against the sweep's first (the baseline, e.g. no attention) by
    paired bootstrap resampling, on the whole split and in each BLEU-by-length bucket;
    None if a member wrote no translations (runs from before they were written)."""
    from attention_research.tasks.translation import metrics
    folders = [m.workdir / "translations" for m in members]
    if not all((f / f"{split}.hypothesis.txt").exists() for f in folders):
        return None
    read = lambda folder, kind: (folder / f"{split}.{kind}.txt").read_text().splitlines()
    sources, references = read(folders[0], "source"), read(folders[0], "reference")
    systems = {m.name: read(f, "hypothesis") for m, f in zip(members, folders)}
    buckets = {"all": np.arange(len(sources))} | metrics.bucket_rows(
        sources, members[0].config.task.bleu_length_bins)
    header = ["member"] + [f"{name} ({len(rows)})" for name, rows in buckets.items()]
    table = []
    results = {name: metrics.paired_bootstrap(
        {m: [h[i] for i in rows] for m, h in systems.items()},
        [references[i] for i in rows], n_samples) for name, rows in buckets.items()}
    for member in systems:
        cells = [member]
        for bucket in buckets:
            r = results[bucket][member]
            p = "" if r["p_value"] is None else f", p={r['p_value']:.3f}"
            cells.append(f"{r['bleu']:.2f} ± {r['ci']:.2f}{p}")
        table.append(cells)
    baseline = members[0].name
    return (f"BLEU on {split} by source length in words (sentences in brackets): corpus "
            f"BLEU ± the half-width of its 95% bootstrap interval, and the p-value of "
            f"sacrebleu's paired bootstrap test ({n_samples} resamples; Koehn 2004) against "
            f"the first member, **{baseline}**: the chance of a difference this large if the "
            f"two systems were equally good. Every system is scored on the same resamples.\n\n"
            + markdown_table(header, table) + "\n")


def _write_csv(path, rows):
    buffer = io.StringIO()
    fields = list(dict.fromkeys(k for r in rows for k in r))
    writer = csv.DictWriter(buffer, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue())


def write_sweep_report(workdir, members, summaries):
    elapsed_s = training_seconds(members, summaries)
    if summaries[0]["task"] == "translation":
        return write_translation_report(workdir, members, summaries, elapsed_s)
    workdir = Path(workdir)
    records = [[json.loads(line) for line in
                (member.workdir / "metrics.jsonl").read_text().splitlines()]
               for member in members]
    rows = member_rows(members, summaries, records)
    buckets = summary_buckets(summaries[0])
    (workdir / "summary.md").write_text(f"# {workdir.name}\n\n" + markdown(rows, buckets,
                                                                          elapsed_s))
    _write_csv(workdir / "summary.csv", rows)
    plots = workdir / "plots"
    plots.mkdir(exist_ok=True)
    tasks = list(dict.fromkeys(s["task"] for s in summaries))
    for task in tasks:  # one figure per task, so each compares like with like
        suffix = f"_{task}" if len(tasks) > 1 else ""
        by_setting, curves = {}, {}
        for member, summary, mine in zip(members, summaries, records):
            if summary["task"] != task:
                continue
            label = _without_task(_setting(member))
            by_setting.setdefault(label, []).append(
                {int(n): a for n, a in summary["members"][0]["seq_acc_by_length"].items()})
            curves.setdefault(label, []).append(mine)
        plotting.accuracy_by_length_spread(
            plots / f"seq_acc_by_length{suffix}.png", by_setting,
            members[0].config.task.train_max_length,
            f"{workdir.name} ({task}): accuracy by length")
        plotting.learning_curves_spread(plots / f"learning_curves{suffix}.png", curves,
                                        buckets[0], f"{workdir.name} ({task}): learning curves")
