"""A length-only calibration of HOLDS_REVISED_RULE's alpha selection (the fourth audit of
2026-11-28, item 1): one first-run member's final parameters, decoded at each alpha on
validation, and on the three test sets at the alpha each target ratio chooses, reporting each split's output length over the
references' on sources of <= 10 and >= 16 words and how many outputs run past twice
their reference; BLEU on validation only (the test sets' BLEU by length is the rule's
statistic and is not computed here).

    python experiments/results/translation_length/length_calibration/calibrate.py \
        runs/translation_length MEMBER COHORT OUT.jsonl

It works on copies (the resume machinery may touch a work directory): MEMBER (a member
folder name) and COHORT (its cohort folder) are copied to a temporary folder first. A
rerun appends to OUT only what it lacks.
"""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import ml_collections
import numpy as np

from attention_research.checkpoints import Checkpoints
from attention_research.tasks.translation import metrics
from attention_research.training.loop import Cohort

ALPHAS = (0.6, 0.8, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5)
SPLITS = ("validation", "test", "test2017", "test2018")
SHORT, LONG = 10, 16
TARGETS = (1.0, 0.98, 0.95)  # the validation long-output ratios the rule may select at


def main(workdir, member, cohort, out):
    copy = Path(tempfile.mkdtemp())
    shutil.copytree(Path(workdir) / "members" / member, copy / "member")
    shutil.copytree(Path(workdir) / "cohorts" / cohort / "checkpoints", copy / "checkpoints")
    config = ml_collections.ConfigDict(json.loads((copy / "member" / "config.json").read_text()))
    config.task.data_path = str(Path("../shared/data/multi30k").resolve())
    run = Cohort([config], [copy / "member"], time.time())
    state, step = run.resume(Checkpoints(copy / "checkpoints", max_to_keep=4,
                                         regular=lambda s: False))
    params = run.selection.state["params"] if run.selection is not None else state.params
    done = {(r["split"], r["alpha"]) for r in map(json.loads, Path(out).read_text().splitlines())
            } if Path(out).is_file() else set()
    with open(out, "a") as lines:
        def measure(split, alpha):
            references = run.task.references[split]
            words = np.array([len(s.split()) for s in run.task.splits[split].source_texts])
            rows = {"short": words <= SHORT, "long": words >= LONG}
            if (split, alpha) not in done:
                hypotheses, _ = run.task.translate(params, split, beam=True, alphas=[alpha])
                stats = metrics.sentence_statistics(hypotheses[0], references)
                row = {"member": member, "step": int(step), "split": split, "alpha": alpha,
                       **{f"{name}_ratio": float(stats[m, 8].sum() / stats[m, 9].sum())
                          for name, m in rows.items()},
                       "whole_ratio": float(stats[:, 8].sum() / stats[:, 9].sum()),
                       "run_away": int((stats[:, 8] > 2 * stats[:, 9]).sum()),
                       "sentences": len(references)}
                if split == "validation":
                    row["bleu"] = metrics.corpus_scores(hypotheses[0], references)["bleu"]
                lines.write(json.dumps(row) + "\n")
                lines.flush()
                print(row, flush=True)
                done.add((split, alpha))

        # Validation at every alpha; the test sets only at the alphas the targets choose
        # (the smallest whose validation long outputs reach each target): the decision
        # reads nothing else, and each decode takes minutes on one core.
        for alpha in ALPHAS:
            measure("validation", alpha)
        rows = [json.loads(r) for r in Path(out).read_text().splitlines()]
        long = {r["alpha"]: r["long_ratio"] for r in rows if r["split"] == "validation"}
        chosen = set()
        for target in TARGETS:
            reaching = [a for a in ALPHAS if long[a] >= target]
            chosen.add(min(reaching) if reaching else max(long, key=long.get))
        for alpha in sorted(chosen):
            for split in SPLITS[1:]:
                measure(split, alpha)


if __name__ == "__main__":
    main(*sys.argv[1:])
