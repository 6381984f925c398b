"""Rescore recorded translations from their files alone, as the task now scores them.

Records written before issue 35 scored hypotheses made of NFKC-normalised pieces against
raw references: a reference holding "…" (U+2026) could never be matched, since the model
writes "...". The task now writes such forms back in its hypotheses before scoring
(``subwords.restoration`` of the training targets: "..." -> "…" on ding_de_en). This
reads each member's committed ``translations/<split>.{source,reference,hypothesis}.txt``,
restores the hypotheses with the mapping given (``--restore FORM=CHARACTER``, the
training targets' mapping, which the record's files alone cannot give), and rewrites:

- ``summary.json``: the member's ``<split>/bleu`` and ``<split>/chrf``, its BLEU by
  source length and its sample rows' translations; the first scores it replaced are
  kept under ``rescored`` with the reason and the command;
- ``translations/<split>.hypothesis.txt``: the restored hypotheses.

``metrics.jsonl`` stays as the run wrote it: a log of what was measured then. The
validation BLEU that chose a best checkpoint during training cannot be rescored (no
hypotheses of those checkpoints are kept); ``selection_margins`` says how close each
choice was. Rescoring twice changes nothing.

    python -m experiments.lab.rescore --restore=...=… \
        experiments/results/luong_table4
    python -m experiments.lab.findings --redraw   # then the reports and FINDINGS.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attention_research.metric_names import eval_key
from attention_research.tasks.translation import metrics, subwords
from attention_research.running.workdir import read_json, write_atomically

WHY = ("hypotheses restored to the training targets' characters (SentencePiece's NFKC "
       "wrote '…' as '...'), scored against the raw references; before, a reference "
       "holding '…' could never be matched (issue 35)")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def rescore_member(member: Path, command: str, mapping: dict[str, str]) -> dict | None:
    """Rescore one member folder; {key: (before, after)} of what changed, or None when
    it holds no translations or nothing changed."""
    folder, summary_path = member / "translations", member / "summary.json"
    if not folder.is_dir() or not summary_path.is_file():
        return None
    summary, config = read_json(summary_path), read_json(member / "config.json")
    split = summary["decoding"]["split"]
    hypotheses = subwords.restore(_lines(folder / f"{split}.hypothesis.txt"), mapping)
    references = _lines(folder / f"{split}.reference.txt")
    sources = _lines(folder / f"{split}.source.txt")
    entry = summary["members"][0]
    scores = metrics.corpus_scores(hypotheses, references)
    changed = {f"{split}/{name}": (entry["final"][f"{split}/{name}"], scores[name])
               for name in ("bleu", "chrf")}
    if all(abs(old - new) < 1e-9 for old, new in changed.values()):
        return None
    for key, (_, new) in changed.items():
        entry["final"][key] = new
    entry["bleu_by_length"] = metrics.bleu_by_length(
        hypotheses, references, sources, config["task"]["bleu_length_bins"])
    for row in entry.get("samples", []):
        row["translation"] = subwords.restore([row["translation"]], mapping)[0]
    record = summary.setdefault("rescored", {"before": {}})
    record.update(why=WHY, command=command, restored=mapping)
    for key, (old, _) in changed.items():
        record["before"].setdefault(key, old)  # the run's own first scores stay
    write_atomically(folder / f"{split}.hypothesis.txt", "".join(f"{h}\n" for h in hypotheses))
    write_atomically(summary_path, json.dumps(summary, indent=2) + "\n")
    return changed


def selection_margins(member: Path, metric: str = eval_key("bleu", "validation")) -> dict | None:
    """How close a best-checkpoint choice was: the selected evaluation's ``metric`` and
    the runner-up's (from metrics.jsonl), or None for a member that kept its last
    parameters. A choice whose margin is below the normalisation's shift between
    checkpoints could have gone the other way."""
    config = read_json(member / "config.json")
    if config["train"].get("best_metric") != metric:
        return None
    values = {}
    for line in (member / "metrics.jsonl").read_text().splitlines():
        record = json.loads(line)
        if metric in record:
            values[record["step"]] = record[metric]
    ranked = sorted(values.items(), key=lambda item: -item[1])
    if len(ranked) < 2:
        return None
    return {"best_step": ranked[0][0], "best": ranked[0][1], "runner_up_step": ranked[1][0],
            "runner_up": ranked[1][1], "margin": ranked[0][1] - ranked[1][1]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", nargs="+", type=Path,
                        help="experiments/results/NAME folders (their members/ are rescored)")
    parser.add_argument("--restore", action="append", default=[], metavar="FORM=CHARACTER",
                        help="a normalised form to write back, e.g. ...=… (repeatable)")
    args = parser.parse_args(argv)
    try:
        mapping = dict(item.split("=", 1) for item in args.restore)
    except ValueError:
        sys.exit(f"--restore takes FORM=CHARACTER, got {args.restore}")
    command = ("python -m experiments.lab.rescore "
               + " ".join(f"--restore={k}={v}" for k, v in mapping.items()) + " "
               + " ".join(str(r) for r in args.records))
    for record in args.records:
        members = sorted((record / "members").glob("*/"))
        if not members:
            sys.exit(f"{record}: no members/ to rescore (expected experiments/results/NAME)")
        for member in members:
            changed = rescore_member(member, command, mapping)
            if changed:
                moves = ", ".join(f"{k} {old:.2f} -> {new:.2f}" for k, (old, new)
                                  in changed.items())
                print(f"{member.relative_to(record.parent)}: {moves}")
            margin = selection_margins(member)
            if margin is not None:
                print(f"  best validation BLEU {margin['best']:.2f} at step "
                      f"{margin['best_step']}, next {margin['runner_up']:.2f} at "
                      f"{margin['runner_up_step']} (margin {margin['margin']:.2f})")


if __name__ == "__main__":
    main()
