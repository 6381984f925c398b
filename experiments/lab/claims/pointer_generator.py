"""The claims experiments/pointer_generator.py's record decides (rows of
experiments/FINDINGS.md): See et al.'s gate that prefers copying, by its rules.
"""

from attention_research.metric_names import length_range
from attention_research.running import sweeps
# What this module reads of the experiment file, and (re-exported) what the findings
# page and its tests read of it through this module.
from experiments.pointer_generator import (  # noqa: F401
    PLAIN, POINTER, REPLICATED, SEEDS, TASKS)


SEEN = length_range(1, 25)

# The decision rule, written before the run.
RULE = (
    "on substitute, 5 seeds, lengths 1-25, the gate's copy share 1 − p_gen on the target "
    "tokens no source holds (novel: only generation writes them) and on the ones a source "
    "holds (copyable): reproduced (the gate prefers copying, as a property of the "
    "mechanism) if the novel tokens' share has its 95% interval above 0.5; not reproduced "
    "(the gate follows what each token needs, so a high copy share reflects the data) if "
    "the novel tokens' interval lies below 0.5 and the copyable tokens' above it; else "
    "inconclusive. On copy, reverse and sort, 1 − p_gen on non-EOS tokens is shown beside "
    "(every one is copyable there); plain additive attention's sequence accuracy on "
    "substitute too (the task needs no pointer). CNN/Daily Mail is not run here")
# Why REVISED_RULE replaced RULE after the run: results/pointer_generator/README.md,
# "Decision log".
REVISED_RULE = (
    "revised after the run: See et al.'s claim (p_gen skewed to copying at test time, "
    "against about 0.53 in training) needs a task the model does not solve exactly, "
    "where greedy decoding and teacher forcing differ; substitute is solved (seq acc "
    "1.000), so the claim is not tested here and the verdict is inconclusive whatever the "
    "gate does. The numbers describe the gate: it copies where a source holds the token "
    "(consistent with a preference for copying) and generates where it must. The first "
    "rule, written before the run: " + RULE)
SEE = ("See, Liu & Manning 2017, §7.2: at test time p_gen averages 0.17 on CNN/Daily Mail, "
       "so the model copies far more often than it generates")


def _setting(overrides: dict, task: str) -> str:
    return sweeps.member_name({**overrides, "config.task.name": task})


def findings(results):
    from experiments.lab import findings as f
    from attention_research.reports import stats
    from attention_research.reports.tables import interval_cell as cell
    # Titled by See et al.'s claim (a shift toward copying from training to test), which
    # the row cannot test here; the first title named the registered rule's reading.
    key = "pointer-generator-prefers-copying"
    title = "The pointer-generator copies more at test time than in training"
    rows = f.report_rows(results)
    settings = [_setting(POINTER, t) for t in TASKS] + [_setting(PLAIN, "substitute")]
    complete = f.finished_members(rows, settings, len(SEEDS))
    if complete < len(settings) * len(SEEDS):
        return [f.pending(key, title, SEE, f"{complete} of {len(settings) * len(SEEDS)} "
                          "members")]
    column = lambda metric, overrides, task: f.column(  # noqa: E731
        rows, f"{metric}/{SEEN}", setting=_setting(overrides, task))
    novel = stats.t_interval(column("copy_rate_novel", POINTER, "substitute"))
    copyable = stats.t_interval(column("copy_rate_copyable", POINTER, "substitute"))
    ours = (f"substitute (half the symbols written as one no source holds): 1 − p_gen "
            f"{copyable.cell()} on copyable tokens, {novel.cell()} on novel ones (only "
            f"generation can write them); seq acc {cell(column('seq_acc', POINTER, 'substitute'))}"
            f" (plain additive {cell(column('seq_acc', PLAIN, 'substitute'))}). On copy, "
            "reverse and sort, where every token but EOS is copyable, 1 − p_gen on them: "
            + ", ".join(f"{t} {cell(column('copy_rate_copyable', POINTER, t))}"
                        for t in TASKS[:3]))
    # What the registered rule gives, said on the page (REVISED_RULE says why it tests
    # nothing of See et al.'s claim).
    first = ("reproduced" if novel.low is not None and novel.low > 0.5 else
             "not reproduced" if (novel.high is not None and novel.high < 0.5
                                  and copyable.low is not None and copyable.low > 0.5)
             else "inconclusive")
    why = (REVISED_RULE + f". By that first rule the row would read {first}: the gate "
           "follows what each token needs, which says nothing of a shift at test time. What "
           "would decide See et al.'s claim: p_gen under teacher forcing against greedy "
           "decoding, on a task the model does not solve exactly (CNN/Daily Mail's regime)")
    return [f.Finding(key, title, SEE, ours, "inconclusive", why,
                      "results/pointer_generator/plots/learning_curves_substitute.png",
                      power="no seeds decide it: the task is solved; an unsolved one would")]
