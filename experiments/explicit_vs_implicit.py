"""Do attention weights explain the model? Every formulation of compare_attention on
copy, reverse and sort, 3 seeds, trained as there, with the implicit analysis
(analysis/held_out.py) on the final parameters:

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

As a script it measures what the analysis costs: the analysis of the default run's
1,600-example held-out set (configs/additive.py; and configs/transformer.py) with each
method, against one plain held-out evaluation, with freshly initialised parameters
(the cost does not depend on training), each compiled first and then timed as the
median of three calls; it writes experiments/results/implicit_cost/<device>.md:

    python experiments/explicit_vs_implicit.py --cost
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

from attention_research import models, sweeps  # noqa: E402
from attention_research.tasks import get_task  # noqa: E402
from attention_research.tasks.translation.task import Translation  # noqa: E402
from attention_research.training.mesh import Placement, make_mesh  # noqa: E402
from attention_research.training.state import create_train_state, make_optimizer  # noqa: E402
from configs import additive, base, transformer  # noqa: E402
from experiments.compare_attention import FORMULATIONS  # noqa: E402

SEEDS = [0, 1, 2]
ARGUMENTS = {"task": ["translation"]}  # '': the symbol tasks
_TRANSFORMER = transformer.get_config("task=translation").model
TRANSLATION_FORMULATIONS = [
    {"config.model.attention.score": "additive"}, {"config.model.attention.score": "dot"},
    {"config.model.family": "transformer", "config.model.attention.score": "scaled_dot",
     "config.model.attention.num_heads": _TRANSFORMER.attention.num_heads,
     "config.model.num_layers": _TRANSFORMER.num_layers,
     "config.model.ff_dim": _TRANSFORMER.ff_dim, "config.model.dropout": _TRANSFORMER.dropout}]


def _translation(arg) -> bool:
    return base.parse_argument(arg, ARGUMENTS).get("task") == "translation"


def get_config(arg=None):
    translation = _translation(arg)
    config = base.get_config("task=translation" if translation else None)
    if translation:  # recorded before translation_recipe tuned the defaults: pinned
        config = Translation.use_first_recipe(config)
    config.name = "explicit_vs_implicit" + ("_translation" if translation else "")
    # Integrated gradients (m = 16) read at 2 drawn target steps per held-out example:
    # about 40 backward passes of the held-out set, once, on the final parameters
    # (experiments/results/implicit_cost/ has what each setting costs).
    config.analysis.update(implicit="integrated_gradients", steps=16, target_steps=2)
    if base.parse_argument(arg, ARGUMENTS).get(base.TINY):
        config = base.shrink(config)
        config.analysis.update(steps=2, batch_size=4)
    return config


def get_sweep(arg=None):
    if _translation(arg):
        return sweeps.product(TRANSLATION_FORMULATIONS, sweeps.axis("config.seed", SEEDS))
    return sweeps.product(FORMULATIONS,
                          sweeps.axis("config.task.name", ["copy", "reverse", "sort"]),
                          sweeps.axis("config.seed", SEEDS))


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
    evaluate = task.make_evaluation(model, Placement(make_mesh(config.mesh), 1))
    return evaluate, getattr(task, "analyse", None), state.params


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
