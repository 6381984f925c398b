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

As a script it measures what the analysis costs: the analysis of the default run's
1,600-example held-out set (configs/additive.py; and configs/transformer.py) with each
method, against one plain held-out evaluation, with freshly initialised parameters
(the cost does not depend on training), each compiled first and then timed as the
median of three calls; it writes experiments/results/implicit_cost/<device>.md:

    python experiments/explicit_vs_implicit.py --cost

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
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # configs/ and experiments/ when run as a script

import jax  # noqa: E402

from attention_research import models  # noqa: E402
from attention_research.running import sweeps  # noqa: E402
from attention_research.tasks import get_task  # noqa: E402
from attention_research.tasks.translation.task import Translation  # noqa: E402
from attention_research.training.evaluation import make_evaluation  # noqa: E402
from attention_research.training.mesh import Placement, make_mesh  # noqa: E402
from attention_research.training.state import create_train_state, make_optimizer  # noqa: E402
from configs import additive, base, transformer  # noqa: E402
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


# The cost of the analysis (run as a script) ------------------------------------------

CALLS = 3
# (method, integrated gradients' steps m, target steps K): every method at the default
# K = 1 (IG with 8 and with the default m = 32), then more steps read: K = 4 and the
# whole maps (K = 0).
RUNS = [("gradient", 32, 1), ("gradient_x_input", 32, 1), ("integrated_gradients", 8, 1),
        ("integrated_gradients", 32, 1), ("gradient_x_input", 32, 4), ("gradient_x_input", 32, 0)]


def _seconds(function, params) -> tuple[float, float]:
    """(first call, compilation included; median of the next CALLS) of ``function``."""
    started = time.perf_counter()
    jax.block_until_ready(function(params))
    first = time.perf_counter() - started
    times = []
    for _ in range(CALLS):
        started = time.perf_counter()
        jax.block_until_ready(function(params))
        times.append(time.perf_counter() - started)
    return first, statistics.median(times)


def _build(config):
    """The held-out evaluation of ``config``'s task, its analysis (when
    analysis.implicit is set) and freshly initialised parameters of one member."""
    task = get_task(config.task.name)(config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    state = create_train_state(model, make_optimizer(config.train), task.example_batch(), [0])
    evaluate = make_evaluation(task, model, Placement(make_mesh(config.mesh), 1))
    return evaluate, evaluate.analyse, state.params


def measure_cost():
    device = jax.devices()[0]
    device_name = f"{device.platform} {device.device_kind}"
    lines = [f"# Cost of the implicit analysis on {device_name}", "",
             "The analysis of the 1,600-example held-out set (lengths 1-50, 32 each), one "
             "member, against one plain held-out evaluation of it (teacher forcing and greedy "
             f"decoding). Time: median of {CALLS} calls after the first; first call: "
             "compilation included. Command: `python experiments/explicit_vs_implicit.py --cost`.", "",
             "| model | analysis.implicit | IG steps m | target steps read per example | "
             "time (s) | x plain evaluation | first call (s) |",
             "|---|---|---|---|---|---|---|"]
    for name, module in (("rnn additive", additive), ("transformer", transformer)):
        config = module.get_config()
        evaluate, _, params = _build(config)
        first, plain = _seconds(evaluate, params)
        lines.append(f"| {name} | (off: the plain evaluation) | | | {plain:.2f} | 1.0 | "
                     f"{first:.1f} |")
        print(lines[-1], flush=True)
        for method, steps, target_steps in RUNS:
            config.analysis.update(implicit=method, steps=steps, target_steps=target_steps)
            _, analyse, params = _build(config)
            first, seconds = _seconds(analyse, params)
            shown = steps if method == "integrated_gradients" else ""
            read = target_steps or "all"
            lines.append(f"| {name} | {method} | {shown} | {read} | {seconds:.2f} | "
                         f"{seconds / plain:.1f} | {first:.1f} |")
            print(lines[-1], flush=True)
    out = ROOT / "experiments" / "results" / "implicit_cost"
    out.mkdir(parents=True, exist_ok=True)
    path = out / (re.sub(r"[^A-Za-z0-9]+", "_", device_name).strip("_") + ".md")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cost", action="store_true", required=True,
                        help="time the analysis against a plain held-out evaluation")
    parser.parse_args()
    measure_cost()
