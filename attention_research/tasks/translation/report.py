"""The report of a translation sweep: BLEU and chrF per setting, BLEU by source length,
and every member against the first by paired bootstrap resampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attention_research import plotting
from attention_research.reports import (
    finished, markdown_table, mean_spread, seeds_cell, setting_of, status_fields, winner_text,
    write_csv)
from attention_research.workdir import write_atomically
from attention_research.tasks.translation import metrics


def member_rows(members, summaries) -> list[dict]:
    """One flat row per member of a translation sweep: final scores, BLEU by length."""
    rows = []
    for member, summary in zip(members, summaries):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": setting_of(member), "seed": entry["seed"],
               **status_fields(summary), "wall_time_s": summary["wall_time_s"]}
        row.update({k.removeprefix("eval/"): v for k, v in entry["final"].items()})
        row.update({f"bleu_len{k}": v["bleu"]
                    for k, v in entry.get("bleu_by_length", {}).items()})
        rows.append(row)
    return rows


def markdown(rows, split: str, elapsed_s: float) -> str:
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    lengths = list(dict.fromkeys(k for r in rows for k in r if k.startswith("bleu_len")))
    header = (["setting", "seeds", f"BLEU ({split})", f"chrF ({split})", "validation loss"]
              + [f"BLEU, {k.removeprefix('bleu_len')} words" for k in lengths])
    table = []
    for setting in settings:
        seeds = [r for r in rows if r["setting"] == setting]
        cells = [setting, seeds_cell(seeds)]
        cells += [mean_spread([r.get(k) for r in seeds]) for k in
                  (f"{split}/bleu", f"{split}/chrf", "loss/validation", *lengths)]
        table.append(cells)
    bleu = {s: [r[f"{split}/bleu"] for r in finished(rows) if r["setting"] == s]
            for s in settings}
    best = winner_text({s: np.mean(v) if v else None for s, v in bleu.items()})
    return ("Mean over seeds, (min–max) in brackets. BLEU and chrF by sacrebleu on "
            "detokenised output; source length in words.\n\n" + markdown_table(header, table)
            + f"\n\nBest BLEU: {best}. {len(rows)} members, {elapsed_s:.0f} s of "
              "training wall time (summed over cohorts).\n")


def write_sweep_report(workdir, members, summaries, elapsed_s: float):
    workdir = Path(workdir)
    rows = member_rows(members, summaries)
    split = next((s["decoding"]["split"] for s in summaries if "decoding" in s), "test")
    write_atomically(workdir / "summary.md", f"# {workdir.name}\n\n"
                     + markdown(rows, split, elapsed_s))
    write_csv(workdir / "summary.csv", rows)
    plots = workdir / "plots"
    plots.mkdir(exist_ok=True)
    by_setting = {}
    for member, summary in zip(members, summaries):
        if summary.get("status") != "failed":
            by_setting.setdefault(setting_of(member), []).append(
                summary["members"][0]["bleu_by_length"])
    mean_by_setting = {
        setting: {name: {"bleu": float(np.mean([r[name]["bleu"] for r in runs])),
                         "count": runs[0][name]["count"]} for name in runs[0]}
        for setting, runs in by_setting.items()}
    if mean_by_setting:  # else every member failed
        plotting.bleu_by_length(plots / "bleu_by_length.png", mean_by_setting,
                                f"{workdir.name}: BLEU by source length ({split})")
    significance = significance_markdown(
        [m for m, s in zip(members, summaries) if s.get("status") != "failed"], split)
    if significance:
        write_atomically(workdir / "significance.md",
                         f"# {workdir.name}: significance\n\n" + significance)


def significance_markdown(members, split: str, n_samples: int = 1000) -> str | None:
    """Every member against the sweep's first (the baseline, e.g. no attention) by
    paired bootstrap resampling, on the whole split and in each BLEU-by-length bin;
    None if a member wrote no translations (runs from before they were written)."""
    folders = [m.workdir / "translations" for m in members]
    if not folders or not all((f / f"{split}.hypothesis.txt").exists() for f in folders):
        return None
    read = lambda folder, kind: (folder / f"{split}.{kind}.txt").read_text().splitlines()
    sources, references = read(folders[0], "source"), read(folders[0], "reference")
    systems = {m.name: read(f, "hypothesis") for m, f in zip(members, folders)}
    bins = {"all": np.arange(len(sources))} | metrics.bin_rows(
        sources, members[0].config.task.bleu_length_bins)
    header = ["member"] + [f"{name} ({len(rows)})" for name, rows in bins.items()]
    table = []
    results = {name: metrics.paired_bootstrap(
        {m: [h[i] for i in rows] for m, h in systems.items()},
        [references[i] for i in rows], n_samples) for name, rows in bins.items()}
    for member in systems:
        cells = [member]
        for name in bins:
            r = results[name][member]
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
