"""Score a record's symbol-task members on a second held-out set, drawn from another seed.

Every member of a sweep is scored on one held-out set (``task.eval_seed``); a rule that
compares arms over seeds then sees each model's accuracy on those sequences alone, and
that set's own luck is outside the interval. This scores each member's final parameters
(its checkpoint, in the work directory it trained in) on a fresh set of the same sizes
drawn from ``--eval_seed`` (``python -m attention_research.use evaluate RUN --member M
--eval_seed N``), and writes what it gives beside the record:

    experiments/results/NAME/second_test_set.json
        {"eval_seed": N, "members": {member: {"seq_acc_by_length": {...}, "seq_acc": ...,
         "code": ..., "software": ..., "device": ...}}}

A member already in the file is skipped, so a second call adds those trained since
(``--only`` names a part of the members' names). A member whose checkpoint is not in
the work directory is one line, and the file keeps what was written.

    python -m experiments.lab.second_test_set experiments/results/hard_vs_soft_sort50 \\
        --workdir=/path/to/runs/hard_vs_soft_sort50 --eval_seed=54321
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

FILE = "second_test_set.json"


def read(record) -> dict:
    """The record's second-set scores: {member: scores} ({} if none were written)."""
    path = Path(record) / FILE
    return json.loads(path.read_text())["members"] if path.is_file() else {}


def score(record: Path, workdir: Path, eval_seed: int, only: str = "") -> list[str]:
    """Score every finished member of ``record`` not yet in its file; the members
    scored now."""
    import attention_research
    from attention_research.running.workdir import read_json, write_atomically
    from experiments.lab.members import provenance
    path = record / FILE
    saved = read_json(path) if path.is_file() else {"eval_seed": eval_seed, "members": {}}
    if saved["eval_seed"] != eval_seed:
        raise SystemExit(f"error: {path} holds scores on eval_seed {saved['eval_seed']}, "
                         f"not {eval_seed}: pass --eval_seed={saved['eval_seed']}")
    done = []
    for summary in sorted((record / "members").glob("*/summary.json")):
        member = summary.parent.name
        if member in saved["members"] or only not in member:
            continue
        if read_json(summary).get("status") != "finished":
            continue
        result = attention_research.load(workdir, member=member).evaluate(eval_seed=eval_seed)
        saved["members"][member] = {
            "seq_acc_by_length": {str(n): a for n, a in result["seq_acc_by_length"].items()},
            "seq_acc": result["seq_acc"], "token_acc": result["token_acc"], **provenance()}
        write_atomically(path, json.dumps(saved, indent=1, sort_keys=True) + "\n")
        done.append(member)
        print(f"{member}: seq acc {result['seq_acc']:.4f} on eval_seed {eval_seed}")
    return done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path, help="experiments/results/NAME")
    parser.add_argument("--workdir", type=Path, required=True,
                        help="the sweep's work directory, which holds its checkpoints")
    parser.add_argument("--eval_seed", type=int, required=True)
    parser.add_argument("--only", default="", help="score only members whose names hold this")
    args = parser.parse_args(argv)
    if not (args.record / "members").is_dir():
        raise SystemExit(f"error: {args.record} holds no recorded members (members/)")
    from attention_research.errors import InputError, RunError
    try:
        score(args.record, args.workdir, args.eval_seed, args.only)
    except (RunError, InputError) as error:  # a missing checkpoint, a wrong folder: one line
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    sys.exit(main())
