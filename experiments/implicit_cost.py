"""What the implicit analysis costs (explicit_vs_implicit's ``analysis.implicit``): the
analysis of the default run's 1,600-example held-out set (configs/additive.py; and
configs/transformer.py) with each method, against one plain held-out evaluation, with
freshly initialised parameters (the cost does not depend on training), each compiled
first and then timed as the median of three calls; it writes
experiments/results/implicit_cost/<device>.md:

    python experiments/implicit_cost.py
    python experiments/explicit_vs_implicit.py --cost   # the same

Cost: the calls the record times sum to about 1,330 s on one of this project's 2-core
CPUs (each row's first call plus its three timed calls: results/implicit_cost/cpu_cpu.md).

Result: results/implicit_cost/cpu_cpu.md.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # configs/ and experiments/ when run as a script

import jax  # noqa: E402

from attention_research import models  # noqa: E402
from attention_research.tasks import get_task  # noqa: E402
from attention_research.training.evaluation import make_evaluation  # noqa: E402
from attention_research.training.mesh import Placement, make_mesh  # noqa: E402
from attention_research.training.state import create_train_state, make_optimizer  # noqa: E402
from configs import additive, transformer  # noqa: E402

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
             "compilation included. Command: `python experiments/implicit_cost.py`.", "",
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
    measure_cost()
