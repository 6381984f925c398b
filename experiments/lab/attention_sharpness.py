"""How sharp a sweep's translation members' attention is: the entropy of each target
token's attention weights and their largest weight, teacher-forced on the validation
split with the parameters the member's final evaluation uses (its best by validation
BLEU), beside the same tokens' negative log-likelihood. For a row that must say whether
an estimator learned focused attention at all (hard_vs_soft_multi30k: an audit read as
Xu asked for it beside the BLEU, read by no rule).

A hard-attention member is applied without a sampling key, so it attends as at test
(its ``hard.test_context``), and its weights are α, the distribution it samples from.
The figures are means over the split's real target tokens (EOS included, padding not).
Writes in each member's folder of the work directory:

    attention.json   {"split", "tokens", "entropy" (nats), "max_weight",
                      "nll_per_token", "parameters", "code", "software", "device"}

and recording the member (``--only=<member> --record``) copies it into its record. A
member already measured is skipped; a wrong folder is one line, and nothing written is
lost.

    python -m experiments.lab.attention_sharpness /path/to/runs/NAME [--only=TEXT]
"""

from __future__ import annotations

from pathlib import Path

from experiments.lab import members

FILE = "attention.json"
SPLIT = "validation"
BATCH = 128


def measure(run) -> dict:
    """{'tokens', 'entropy', 'max_weight', 'nll_per_token'} of a loaded translation
    member (``attention_research.load``) on the validation split, teacher-forced."""
    import jax
    import numpy as np

    from attention_research.attention.attention import entropy
    from attention_research.tasks.translation.pipeline import eval_batches
    from attention_research.training.steps import teacher_forced
    model, params = run.restored.model, run.restored.member_params
    forced = jax.jit(lambda p, batch: teacher_forced(model, p, batch))
    sums = dict.fromkeys(("entropy", "max_weight", "nll", "tokens"), 0.0)
    for indices, batch in eval_batches(run.task.splits[SPLIT], BATCH,
                                       run.config.task.length_buckets):
        stats, weights = forced(params, batch)
        kept = len(indices)  # the last batch is padded with repeated examples
        weights = np.asarray(weights)[:kept]  # [B, T, S]
        real = np.asarray(batch.targets)[:kept] != 0
        sums["entropy"] += float(np.sum(np.asarray(entropy(weights)) * real))
        sums["max_weight"] += float(np.sum(weights.max(-1) * real))
        sums["nll"] += float(np.sum(np.asarray(stats["nll"])[:kept]))
        sums["tokens"] += float(real.sum())
    tokens = sums["tokens"]
    return {"tokens": int(tokens), "entropy": sums["entropy"] / tokens,
            "max_weight": sums["max_weight"] / tokens, "nll_per_token": sums["nll"] / tokens}


def score(workdir: Path, only: str = "") -> list[str]:
    """Measure every finished member of ``workdir`` (a sweep's) whose name holds
    ``only`` and that has no ``FILE`` yet; the members measured now."""
    done = []
    for member, run in members.each_translation_run(
            workdir, only=only, status="finished", written=FILE,
            why="a symbol task's attention is in its evaluation by length"):
        figures = measure(run)
        members.write_with_provenance(member / FILE, {
            "split": SPLIT, **figures, "parameters": run.restored.used})
        done.append(member.name)
        print(f"{member.name}: attention entropy {figures['entropy']:.3f} nats, mean largest "
              f"weight {figures['max_weight']:.3f} ({run.restored.used})")
    return done


def main(argv=None):
    members.main(score, __doc__, "measure", argv)


if __name__ == "__main__":
    main()
