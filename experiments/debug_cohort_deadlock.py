"""Reproduce the CPU deadlock of multi-member cohorts (see README, "Known issue").

    python experiments/debug_cohort_deadlock.py 8                       # hangs on a 2-core CPU
    python experiments/debug_cohort_deadlock.py 2                       # runs: ~0.9 s per call
    python experiments/debug_cohort_deadlock.py 8 train.batch_size=16   # still hangs

Builds a cohort of M members of configs/additive.py and times three train calls
(25 steps each); no orbax, no evaluation, no sweep machinery. Run it under
``timeout``: a hang is the first call never returning, with every thread idle.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402

from attention_research import models, tasks  # noqa: E402
from attention_research.training.mesh import Placement, make_mesh  # noqa: E402
from attention_research.training.state import (  # noqa: E402
    create_train_state, make_optimizer, member_hyperparams)
from attention_research.training.steps import make_train_call  # noqa: E402
from configs import additive  # noqa: E402


def main():
    members = int(sys.argv[1])
    config = additive.get_config()
    for override in sys.argv[2:]:  # e.g. train.batch_size=16
        field, value = override.split("=")
        *path, last = field.split(".")
        node = config
        for part in path:
            node = node[part]
        node[last] = type(node[last])(value)
    vocab = tasks.vocab_size(config.task.num_symbols)
    model = models.make_model(config, vocab, vocab)
    tx = make_optimizer(config.train)
    example = tasks.sample_batch(jax.random.PRNGKey(0), "reverse", 1, 50, 1, 50)
    placement = Placement(make_mesh(config.mesh), members)
    state = create_train_state(model, tx, example, list(range(members)),
                               member_hyperparams([config] * members), placement.members)
    start = time.time()
    call = make_train_call(model, tx, config, placement).lower(state).compile()
    print(f"compiled in {time.time() - start:.1f} s", flush=True)
    for i in range(3):
        start = time.time()
        state, metrics = call(state)
        jax.block_until_ready(metrics)
        print(f"{members} members, call {i}: {time.time() - start:.2f} s", flush=True)


if __name__ == "__main__":
    main()
