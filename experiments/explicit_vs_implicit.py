"""Do attention weights explain the model? Every formulation of compare_attention on
copy, reverse and sort, 3 seeds, trained as there, with the implicit analysis
(training/held_out.py) on the final parameters:

    python launch.py --config=experiments/explicit_vs_implicit.py

Copy, reverse and sort know the true alignment, so both kinds of attention can be
scored against it: the explicit weights' alignment accuracy beside the implicit map's
(integrated gradients of an output's log-probability with respect to the source
embeddings, at 2 drawn steps per held-out example), and, for ``none``, whether a
model without attention aligns implicitly.
Kendall τ_b between the two maps is Jain & Wallace's (2019) agreement measure; the
ablation drops (the output's log-probability lost when the source token the weights
rank highest, the one the implicit map ranks highest, or a random one is zeroed) are
the faithfulness test Wiegreffe & Pinter (2019) ask for. summary.md gives each with
its 95% interval over seeds.

Translation (ding_de_en, the first translation recipe's 3000 steps) has no known
alignment; its sweep, additive, dot and the Transformer, 3 seeds, gives τ and the
ablation drops on the test split, with the maps over subword pieces:

    python launch.py --config=experiments/explicit_vs_implicit.py:task=translation

``:task=translation,replicate`` trains its ``additive`` on fresh seeds alone, the first
default's side of translation_recipe's tuned-default row.

The same three settings on Multi30k (issue 36), at today's translation defaults (the
RNNs of multi30k_recipe, 8,000 pieces, the parameters of best lowercased validation
BLEU; the Transformer of ``configs/transformer.py:task=translation``), the maps read on
test_2016_flickr; 9 members of about 40-80 CPU-minutes each here. Other sweeps have
trained them: luong_table4's Multi30k ``score-additive`` and ``score-dot`` (kept by cased
BLEU, adopted where their log shows lowercased BLEU keeps the same step) and
translation_length's Transformer (its RNN decoder field, which a Transformer ignores,
and its extra test sets aside). ``--adopt_from`` starts from their checkpoints and runs
only each member's final evaluation and analysis (running/adopt.py; one member a
cohort, as there); a member no run matches trains:

    python launch.py --config=experiments/explicit_vs_implicit.py:task=translation,corpus=multi30k \
        --config.task.data_path=../shared/data/multi30k --config.max_cohort_members=1 \
        --adopt_from=runs/luong_table4_multi30k,runs/translation_length

``:task=translation,corpus=multi30k,replicate`` trains the three on fresh seeds, the
replication of the row that holds; translation_length's replication has trained its
additive and Transformer members (add ``--adopt_from=runs/translation_length_replication``
and ``--workdir=runs/explicit_vs_implicit_translation_multi30k_replication``).

As a script (``--cost``) it runs experiments/implicit_cost.py, which measures what the
analysis costs.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/explicit_vs_implicit/: 198 members,
27,878 s (cpu); results/explicit_vs_implicit_replication/: 9 members, 446 s (cpu);
results/explicit_vs_implicit_translation/: 9 members, 7,126 s (cpu);
results/explicit_vs_implicit_translation_multi30k/: 9 members, 34,080 s (cpu);
results/explicit_vs_implicit_translation_multi30k_replication/: 9 members, 36,100 s
(cpu); results/explicit_vs_implicit_translation_replication/: 3 members, 2,016 s (cpu).

Result: results/explicit_vs_implicit/summary.md; its claims
(experiments/lab/claims/explicit_vs_implicit.py) are rows of experiments/FINDINGS.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # configs/ and experiments/ when run as a script

from attention_research.running import sweeps  # noqa: E402
from attention_research.tasks.translation.task import Translation  # noqa: E402
from configs import base, transformer  # noqa: E402
from experiments.compare_attention import FORMULATIONS  # noqa: E402
from experiments.lab import recipes  # noqa: E402

SEEDS = [0, 1, 2]
# '': the symbol tasks; task=translation: ding_de_en, the first regime;
# task=translation,corpus=multi30k: the second (issue 36).
ARGUMENTS = {"task": ["translation"], "corpus": ["multi30k"]}
TRANSLATION_SCORES = [{"config.model.attention.score": "additive"},
                      {"config.model.attention.score": "dot"}]
# The Transformer of its day, pinned as its recipe is.
TRANSLATION_FORMULATIONS = TRANSLATION_SCORES + [
    transformer.translation_overrides(recipes.pinned("translation_recipe"))]


def _translation(arg) -> bool:
    return base.parse_argument(arg, ARGUMENTS).get("task") == "translation"


def _multi30k(arg) -> bool:
    """Whether ``arg`` asks for the Multi30k regime; a corpus needs the translation task."""
    choices = base.parse_argument(arg, ARGUMENTS)
    if "corpus" in choices and choices.get("task") != "translation":
        raise ValueError(f"bad config argument {arg!r}: corpus={choices['corpus']} is a "
                         "translation corpus; ask for task=translation,corpus="
                         f"{choices['corpus']}")
    return choices.get("corpus") == "multi30k"


def _multi30k_formulations() -> list[dict]:
    """additive, dot and the Transformer, each at today's translation defaults (the
    Transformer's built when asked, so that it follows a change of the defaults)."""
    return TRANSLATION_SCORES + [transformer.translation_overrides()]


def get_config(arg=None):
    translation, multi30k = _translation(arg), _multi30k(arg)
    config = base.get_config("task=translation" if translation else None)
    if translation and not multi30k:  # recorded on ding_de_en before translation_recipe
        # tuned the defaults and before multi30k became the default corpus: both pinned
        config = recipes.use_first_recipe(Translation.use_corpus(config, "ding_de_en"))
    config.name = "explicit_vs_implicit" + ("_translation" if translation else "") + (
        "_multi30k" if multi30k else "")
    # Integrated gradients (m = 16) read at 2 drawn target steps per held-out example:
    # about 40 backward passes of the held-out set, once, on the final parameters
    # (experiments/results/implicit_cost/ has what each setting costs).
    config.analysis.update(implicit="integrated_gradients", steps=16, target_steps=2)
    if base.replicating(arg):
        config.name += "_replication"
    if base.parse_argument(arg, ARGUMENTS).get(base.TINY):
        config = base.shrink(config)
        config.analysis.update(steps=2, batch_size=4)
    return config


def get_sweep(arg=None):
    if _multi30k(arg):
        # The replication: all three settings on fresh seeds, since the row that holds
        # (translation-weights-faithful-multi30k) needs each of them to hold.
        seeds = SEEDS
        if base.replicating(arg):
            from experiments.lab.findings import REPLICATION_SEEDS
            seeds = list(REPLICATION_SEEDS)
        return sweeps.product(_multi30k_formulations(), sweeps.axis("config.seed", seeds))
    if _translation(arg) and base.replicating(arg):
        # `additive` on fresh seeds: the first translation default's side of
        # translation_recipe's "tuned-translation-default" row (issue 35).
        from experiments.lab.findings import REPLICATION_SEEDS
        return sweeps.product(TRANSLATION_FORMULATIONS[:1],
                              sweeps.axis("config.seed", list(REPLICATION_SEEDS)))
    if _translation(arg):
        return sweeps.product(TRANSLATION_FORMULATIONS, sweeps.axis("config.seed", SEEDS))
    if base.replicating(arg):  # `none` on the three tasks, on fresh seeds (issue 35)
        from experiments.lab.findings import REPLICATION_SEEDS
        return sweeps.product([{"config.model.attention.score": "none"}],
                              sweeps.axis("config.task.name", ["copy", "reverse", "sort"]),
                              sweeps.axis("config.seed", list(REPLICATION_SEEDS)))
    return sweeps.product(FORMULATIONS,
                          sweeps.axis("config.task.name", ["copy", "reverse", "sort"]),
                          sweeps.axis("config.seed", SEEDS))


REPLICATED = ("gradients-find-the-token-without-attention",
              "translation-weights-faithful-multi30k",
              "translation-weights-beat-diagonal-multi30k")


if __name__ == "__main__":  # the documented --cost, which experiments/implicit_cost.py runs
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cost", action="store_true", required=True,
                        help="time the analysis against a plain held-out evaluation "
                             "(experiments/implicit_cost.py)")
    parser.parse_args()
    from experiments.implicit_cost import measure_cost
    measure_cost()
