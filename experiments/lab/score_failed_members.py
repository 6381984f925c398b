"""Score a sweep's failed translation members with the parameters they kept before the
failure, so that a rule which scores a failed member rather than dropping it can read
them (hard_vs_soft_multi30k's amendment (d)).

A member whose loss, gradient or parameters turned non-finite stops at its last finite
state (training/loop.py) and writes no final evaluation. With ``train.best_metric`` set,
its last checkpoint still holds the parameters of its best validation score so far
(training/selection.py); without it, that checkpoint's own. This translates the run's
test split with those, as a finished member's final evaluation does (the same beam and
length penalty: ``attention_research.use``'s evaluate), and writes in the member's
folder of the work directory:

    translations/<split>.{source,reference,hypothesis}.txt   as a finished member's
    rescored.json   {"parameters": which ones, "bleu", "bleu_lc", "chrf", "code",
                     "software", "device"}

Recording the member then (``python launch.py --config=experiments/NAME.py
--only=<member> --record``) copies them into its record, with the sentence table of a
corpus whose texts are not committed, as for any member. A member already scored is
skipped; one whose checkpoint is missing is one line, and nothing written is lost.

    python -m experiments.lab.score_failed_members /path/to/runs/NAME [--only=TEXT]
"""

from __future__ import annotations

from pathlib import Path

from experiments.lab import members

FILE = "rescored.json"


def score(workdir: Path, only: str = "") -> list[str]:
    """Score every failed member of ``workdir`` (a sweep's) whose name holds ``only``
    and that has no ``FILE`` yet; the members scored now."""
    from attention_research.running.workdir import write_atomically
    done = []
    for member, run in members.each_translation_run(
            workdir, only=only, status="failed", written=FILE,
            why="a symbol task's failed member scores 0 by the rules that read one"):
        result = run.evaluate()
        split = run.task.splits[result["data"]]
        folder = member / "translations"
        folder.mkdir(exist_ok=True)
        for kind, lines in (("source", split.source_texts), ("reference", split.target_texts),
                            ("hypothesis", result["hypotheses"])):
            write_atomically(folder / f"{result['data']}.{kind}.txt",
                             "".join(f"{line}\n" for line in lines))
        members.write_with_provenance(member / FILE, {
            "parameters": run.restored.used, "split": result["data"],
            "beam_size": result["beam_size"], "length_penalty": result["length_penalty"],
            **{k: result[k] for k in ("bleu", "bleu_lc", "chrf")}})
        done.append(member.name)
        print(f"{member.name}: {result['data']} BLEU {result['bleu']:.2f} with "
              f"{run.restored.used}")
    return done


def main(argv=None):
    members.main(score, __doc__, "score", argv)


if __name__ == "__main__":
    main()
