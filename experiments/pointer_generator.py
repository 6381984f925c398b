"""Does the pointer-generator's gate prefer copying? See, Liu & Manning 2017 (§7.2)
report p_gen ≈ 0.17 at test time on CNN/Daily Mail: the model copies far more often
than it generates. On copy, reverse and sort every target token but EOS is a source
token, so a high copy share there restates the task (issue 35). ``substitute``
(tasks/substitute.py) is copy with half the symbols written as a symbol no source holds:
copying is right for about half the target tokens and generating for the others, so the
gate can be read against a known answer.

    python launch.py --config=experiments/pointer_generator.py

The RNN with additive attention and See et al.'s pointer-generator output on copy,
reverse, sort and substitute, and plain additive attention on substitute (the task is
learnable without a pointer), 5 seeds, the defaults of compare_attention (1,500 steps,
lengths 1–25, evaluated to 50). Every evaluation reports 1 − p_gen over all real target
tokens (``eval/copy_rate``), over the tokens some source position holds
(``copy_rate_copyable``) and over the others but EOS (``copy_rate_novel``).

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/pointer_generator/: 25 members, 1,016 s
(cpu).

Result: results/pointer_generator/summary.md; its claims
(experiments/lab/claims/pointer_generator.py) are rows of experiments/FINDINGS.md.
"""

from attention_research.running import sweeps
from configs import base

SCORE = "config.model.attention.score"
POINTER = {SCORE: "additive", "config.model.pointer_generator": True}
PLAIN = {SCORE: "additive"}
TASKS = ["copy", "reverse", "sort", "substitute"]
SEEDS = [0, 1, 2, 3, 4]


def get_config(arg=None):
    config = base.get_config()
    config.name = "pointer_generator"
    config.train.eval_every = 250
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    seeds = SEEDS
    if base.replicating(arg):  # fresh seeds (issue 35)
        from experiments.lab.findings import REPLICATION_SEEDS
        seeds = list(REPLICATION_SEEDS)
    seed = sweeps.axis("config.seed", seeds)
    return (sweeps.product([POINTER], sweeps.axis("config.task.name", TASKS), seed)
            + sweeps.product([PLAIN], sweeps.axis("config.task.name", ["substitute"]), seed))


REPLICATED = ()  # its verdict is inconclusive: nothing to replicate
