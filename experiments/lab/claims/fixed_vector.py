"""The claims experiments/fixed_vector.py's record decides (rows of experiments/FINDINGS.md):
Bahdanau et al.'s fixed vector, not capacity, by its rule. Issue 73: fixed_vector_capacity
decides this row again off the floor, by a rule written before its runs; once its record
is complete, its row replaces this one (its ``SUPERSEDES``).
"""

from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.fixed_vector import (  # noqa: F401
    HIDDEN, MODELS, REPLICATED, SCORE, SEEDS)


def findings(results):
    """Attention at 64 against the fixed vector at 64, 128 and 256, on lengths 26-50."""
    from experiments.lab import findings as f
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    paper = ("Bahdanau et al. 2015, Figure 2 and Table 1: RNNencdec-50's BLEU falls as "
             "sentences grow, RNNsearch-50's does not (all sentences: 17.82 vs 26.75)")
    names = {(m[SCORE], m[HIDDEN]): sweeps.member_name(m) for m in MODELS}
    long = {key: [f.mean_accuracy(final["seq_acc_by_length"], 26, 50)
                  for final in f.member_finals(results, name)] for key, name in names.items()}
    complete = sum(min(len(v), len(SEEDS)) for v in long.values())
    if complete < len(MODELS) * len(SEEDS):
        return [f.pending("fixed-vector-not-capacity", "The fixed vector, not capacity, "
                          "collapses long sources", paper,
                          f"reverse, train 1-50, none at 64/128/256 vs additive at 64, 3 "
                          f"seeds: {complete} of {len(MODELS) * len(SEEDS)} members")]
    attention = long[("additive", 64)]
    # One family, Holm-corrected: attention against none at each size, and none's growth.
    sizes = (64, 128, 256)
    pairs = [(attention, long[("none", size)]) for size in sizes]
    pairs.append((long[("none", 256)], long[("none", 64)]))
    found = stats.contrasts(pairs, stats.ACCURACY)
    tests = [(c.above, c.words(corrected=True)) for c in found[:3]]
    above = [c.below for c in found[:3]]
    grows, growth = found[3].above, found[3].words(corrected=True)
    ours = (f"mean sequence accuracy on lengths 26-50: additive at 64 {cell(attention)}; none "
            + ", ".join(f"at {size} {cell(long[('none', size)])}" for size in (64, 128, 256))
            + f"; none at 256 above none at 64: {'yes' if grows else 'no'} ({growth})")
    return [f.Finding(
        "fixed-vector-not-capacity", "The fixed vector, not capacity, collapses long sources",
        paper, ours,
        "reproduced" if all(t for t, _ in tests) else
        "not reproduced" if any(above) else "inconclusive",
        "attention at hidden 64 above none at every hidden size by Welch's t (Holm over "
        "these 3 and none's growth from 64 to 256, accuracy rule) (reproduced), none at "
        "some size above it (not reproduced), else inconclusive: "
        + "; ".join(text for _, text in tests),
        "results/fixed_vector/plots/seq_acc_by_length.png")]
