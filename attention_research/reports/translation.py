"""The report of a translation sweep: BLEU and chrF per setting (mean and 95% t interval
over seeds, and which settings Welch's t separates), with analysis.implicit the
explicit-vs-implicit agreement and ablation drops, BLEU by source length with
intervals, and every member against the first by paired bootstrap resampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attention_research.metric_names import as_column, column, final_key
from attention_research.reports import bleu_tests, plotting, stats
from attention_research.reports.setting_names import readable_names, setting_of
from attention_research.reports.tables import (
    SEPARATION_NOTE, analysis_section, finished, interval_cell, markdown_table, pivot_section,
    seeds_cell, status_fields, write_csv)
from attention_research.reports.verdicts import verdict
from attention_research.running.workdir import write_atomically
from attention_research.tasks.translation import metrics


def member_rows(members, summaries) -> list[dict]:
    """One flat row per member of a translation sweep: final scores, BLEU by length."""
    rows = []
    for member, summary in zip(members, summaries):
        entry = summary["members"][0]
        row = {"member": member.name, "setting": setting_of(member), "seed": entry["seed"],
               **status_fields(summary), "wall_time_s": summary["wall_time_s"]}
        row.update({as_column(k): v for k, v in entry["final"].items()})
        row.update({f"bleu_len{k}": v["bleu"]
                    for k, v in entry.get("bleu_by_length", {}).items()})
        rows.append(row)
    return rows


def markdown(rows, split: str, elapsed_s: float, config=None) -> str:
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    lengths = list(dict.fromkeys(k for r in rows for k in r if k.startswith("bleu_len")))
    # Lowercased BLEU (the Multi30k tutorials' score) where the runs report it.
    lowercased = ([final_key(split, "bleu_lc")]
                  if any(final_key(split, "bleu_lc") in r for r in rows) else [])
    header = (["setting", "seeds", f"BLEU ({split})"]
              + [f"lowercased BLEU ({split})"] * len(lowercased)
              + [f"chrF ({split})", "validation loss"]
              + [f"BLEU, {k.removeprefix('bleu_len')} words" for k in lengths])
    table = []
    for setting in settings:
        seeds = [r for r in rows if r["setting"] == setting]
        cells = [setting, seeds_cell(seeds)]
        cells += [interval_cell([r.get(k) for r in seeds]) for k in
                  (final_key(split, "bleu"), *lowercased, final_key(split, "chrf"),
                   column("loss", "validation"), *lengths)]
        table.append(cells)
    shown = readable_names(settings, config)  # verdicts by display names (issue 38)
    verdicts = [[name, verdict({shown[s]: [r.get(key) for r in finished(rows)
                                           if r["setting"] == s]
                               for s in settings}, digits=2, rule=rule)]
                for key, name, rule in (
                    (final_key(split, "bleu"), f"BLEU ({split})", stats.BLEU),
                    (final_key(split, "chrf"), f"chrF ({split})", stats.CHRF))]
    return ("Mean ± the half-width of its 95% t interval over seeds (no interval for one "
            "seed). BLEU and chrF by sacrebleu on detokenised output (lowercased BLEU: "
            "sacrebleu's with lowercase=True, as the Multi30k tutorials score); source "
            "length in words.\n\n" + markdown_table(header, table)
            # The same by display names, each setting against the baseline (issue 38).
            + (pivot_section([{**r, "task": split} for r in rows], final_key(split, "bleu"),
                             f"BLEU ({split})", config, stats.BLEU) if config else "")
            + "\n\n## Which settings a test separates\n\n" + SEPARATION_NOTE
            + " With one seed per setting, significance.md compares the systems sentence "
              "by sentence instead (paired bootstrap).\n\n"
            + markdown_table(["metric", "winner"], verdicts)
            + analysis_section(rows, settings, split, label=f"({split})")
            + f"\n\n{len(rows)} members, {elapsed_s:.0f} s of training wall time (summed "
              "over cohorts).\n")


def bleu_by_length_intervals(members, summaries, bootstrap) -> dict:
    """{setting: {bucket: {'bleu', 'count', 'low', 'high'}}} for the plot: the mean over
    seeds with its t interval, or for a setting of one seed the 95% bootstrap interval
    of its corpus BLEU over the test sentences (``bootstrap``: ``bootstrap_by_length``'s
    results, or None when no translations were written: then one seed has none)."""
    runs = {}
    for member, summary in zip(members, summaries):
        if summary.get("status") != "failed":
            runs.setdefault(setting_of(member), []).append(
                (member.name, summary["members"][0]["bleu_by_length"]))
    result = {}
    for setting, seeds in runs.items():
        buckets = {}
        for bucket, first in seeds[0][1].items():
            interval = stats.t_interval([by_length[bucket]["bleu"] for _, by_length in seeds])
            cell = {"bleu": interval.mean, "count": first["count"]}
            if interval.low is not None:
                cell.update(low=interval.low, high=interval.high)
            elif bootstrap is not None and bucket in bootstrap:
                half = bootstrap[bucket][seeds[0][0]]["ci"]
                cell.update(low=interval.mean - half, high=interval.mean + half)
            buckets[bucket] = cell
        result[setting] = buckets
    return result


def write_sweep_report(workdir, members, summaries, elapsed_s: float):
    workdir = Path(workdir)
    title = members[0].config.name
    rows = member_rows(members, summaries)
    split = next((s["decoding"]["split"] for s in summaries if "decoding" in s), "test")
    write_atomically(workdir / "summary.md", f"# {title}\n\n"
                     + markdown(rows, split, elapsed_s, members[0].config))
    write_csv(workdir / "summary.csv", rows)
    healthy = [m for m, s in zip(members, summaries) if s.get("status") != "failed"]
    bootstrap = bootstrap_by_length(healthy, split)
    if bootstrap is not None:
        write_atomically(workdir / "significance.md", f"# {title}: significance\n\n"
                         + significance_markdown(healthy, split, bootstrap))
    intervals = bleu_by_length_intervals(members, summaries, bootstrap)
    if intervals:  # else every member failed
        plots = workdir / "plots"
        plots.mkdir(exist_ok=True)
        plotting.bleu_by_length(plots / "bleu_by_length.png", intervals,
                                f"{title}: BLEU by source length ({split}), 95% intervals")


BOOTSTRAP_SAMPLES = 1000


def bootstrap_by_length(members, split: str,
                        n_samples: int = BOOTSTRAP_SAMPLES) -> dict | None:
    """Every member against the sweep's first (the baseline, e.g. no attention) by
    paired bootstrap resampling, on the whole split ('all') and in each BLEU-by-length
    bin: {bin: {'count': sentences, member: {'bleu', 'mean', 'ci', 'p_value'}}}; None if
    a member wrote no translations (runs from before they were written), or in a record
    of a corpus whose texts are not committed (record.py: its first report stays)."""
    folders = [m.workdir / "translations" for m in members]
    if not folders or not all((f / f"{split}.hypothesis.txt").exists() for f in folders):
        return None
    if not all((folders[0] / f"{split}.{kind}.txt").exists() for kind in ("source", "reference")):
        return None
    read = lambda folder, kind: (folder / f"{split}.{kind}.txt").read_text().splitlines()
    sources, references = read(folders[0], "source"), read(folders[0], "reference")
    systems = {m.name: read(f, "hypothesis") for m, f in zip(members, folders)}
    bins = {"all": np.arange(len(sources))} | metrics.bin_rows(
        sources, members[0].config.task.bleu_length_bins)
    return {name: {"count": len(rows)} | bleu_tests.paired_bootstrap(
        {m: [h[i] for i in rows] for m, h in systems.items()},
        [references[i] for i in rows], n_samples) for name, rows in bins.items()}


def significance_markdown(members, split: str, results: dict,
                          n_samples: int = BOOTSTRAP_SAMPLES) -> str:
    """``bootstrap_by_length``'s results as a table: BLEU ± interval and p per bin."""
    header = ["member"] + [f"{name} ({r['count']})" for name, r in results.items()]
    table = []
    for member in members:
        cells = [member.name]
        for name in results:
            r = results[name][member.name]
            p = "" if r["p_value"] is None else f", p={r['p_value']:.3f}"
            cells.append(f"{r['bleu']:.2f} ± {r['ci']:.2f}{p}")
        table.append(cells)
    return (f"BLEU on {split} by source length in words (sentences in brackets): corpus "
            f"BLEU ± the half-width of its 95% bootstrap interval, and the p-value of "
            f"sacrebleu's paired bootstrap test ({n_samples} resamples; Koehn 2004) "
            f"against the first member, **{members[0].name}**: the chance of a difference "
            f"this large if the two systems were equally good. Every system is scored on the "
            f"same resamples.\n\n" + markdown_table(header, table) + "\n")
