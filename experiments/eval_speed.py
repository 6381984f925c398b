"""Time one whole held-out evaluation in length_generalization's regime (lengths 1-200),
untrained parameters, for one score: the first call (compiling included) and the second.

    python experiments/eval_speed.py --score=location_aware
    python experiments/eval_speed.py --score=location_aware --code=/path/to/other/checkout

``--code`` imports ``attention_research`` from another checkout (an older commit's
worktree), for side-by-side timings; the exact-match of every held-out sequence is saved
to ``--save`` so two checkouts' outputs can be compared.

Cost: `python experiments/eval_speed.py --score=location_aware` took 91.3 s of wall time
(its first evaluation 56.5 s with compiling, the second 25.8 s) on one of this project's
2-core CPUs, both cores also training a sweep, at 32a59b7 (2026-12-02).

Result: one line on stdout; it is a side-by-side tool with no record of its own
(pending: a record when a comparison needs one).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--score", default="location_aware")
    parser.add_argument("--task", default="reverse")
    parser.add_argument("--code", default=str(ROOT), help="the checkout to import")
    parser.add_argument("--save", default="", help="write the exact-match array here (.npy)")
    args = parser.parse_args()
    sys.path.insert(0, args.code)
    import numpy as np

    from attention_research.training.loop import Cohort
    spec = importlib.util.spec_from_file_location(
        "length_generalization", Path(args.code) / "experiments" / "length_generalization.py")
    experiment = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(experiment)
    config = experiment.get_config()
    config.model.attention.score, config.task.name = args.score, args.task
    try:  # a checkout since issue 70 takes the member's WorkDir, an older one its path
        from attention_research.running.workdir import WorkDir
        scratch = WorkDir(Path("/tmp") / "eval_speed")
    except ImportError:
        scratch = Path("/tmp") / "eval_speed"
    cohort = Cohort([config], [scratch], time.time())
    state = cohort.initial_state()
    start = time.time()
    first = cohort.evaluate(state.params)
    middle = time.time()
    cohort.evaluate(state.params)
    end = time.time()
    metrics = first[0]["metrics"]
    print(f"{args.code}: {args.score} on {args.task}, {len(first[0]['exact'])} held-out "
          f"sequences: first evaluation {middle - start:.1f} s (compiling included), second "
          f"{end - middle:.1f} s; " + ", ".join(f"{k}={v:.4f}" for k, v in sorted(metrics.items())
                                              if "seq_acc" in k or "token_acc" in k))
    if args.save:
        np.save(args.save, np.asarray(first[0]["exact"]))


if __name__ == "__main__":
    main()
