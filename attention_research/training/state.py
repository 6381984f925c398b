"""The train state, with a leading *member* axis on every leaf.

A member is one setting of the numeric hyperparameters (seed, learning rate, …).
A single run is one member; a sweep cohort stacks many, and one compiled
``jit(vmap(step))`` trains them all. Everything random derives from the member's
seed and the step, so a run is reproducible and resumable from the step alone.
"""

from __future__ import annotations

from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
import optax

OPTIMIZERS = ("adam", "adamw", "sgd")
SCHEDULES = ("constant", "cosine", "linear")

# Streams of randomness a member draws, each folded with the step.
(PARAMS_STREAM, BATCH_STREAM, DROPOUT_STREAM, SAMPLE_STREAM, SOFT_CHOICE_STREAM,
 GRADIENT_STREAM) = range(6)


@flax.struct.dataclass
class TrainState:
    step: jnp.ndarray  # int32; steps taken
    seed: jnp.ndarray  # int32; the member's seed, fixed
    params: Any
    opt_state: Any
    # What the alignment's training signal carries between steps (hard attention:
    # REINFORCE's moving-average reward baseline); {} for every other alignment.
    signal_state: Any
    # Health (training/health.py): the step at which a loss, gradient norm or
    # parameter first became non-finite (0 while all are finite), and what did.
    # From then on the member keeps its last finite state.
    failed_step: jnp.ndarray  # int32
    failure: jnp.ndarray  # int32 bits: health.LOSS | GRADIENT | PARAMETERS


def member_key(seed, stream: int, step=0):
    """The key of one random stream of a member at a step (jit- and vmap-friendly)."""
    return jax.random.fold_in(jax.random.fold_in(jax.random.PRNGKey(seed), stream), step)


def schedule_shape(train_config):
    """Learning-rate multiplier in [0, 1]: linear warm-up, then constant or decay to 0."""
    warmup = train_config.warmup_steps
    decay_steps = max(train_config.num_steps - warmup, 1)
    if train_config.schedule == "constant":
        decay = optax.constant_schedule(1.0)
    elif train_config.schedule == "cosine":
        decay = optax.cosine_decay_schedule(1.0, decay_steps)
    elif train_config.schedule == "linear":
        decay = optax.linear_schedule(1.0, 0.0, decay_steps)
    else:
        raise ValueError(f"unknown schedule {train_config.schedule!r}; "
                         f"valid choices: {', '.join(SCHEDULES)}")
    if warmup == 0:
        return decay
    return optax.join_schedules([optax.linear_schedule(0.0, 1.0, warmup), decay], [warmup])


def make_optimizer(train_config) -> optax.GradientTransformation:
    """Clip, then the optimiser, then the schedule's multiplier.

    The peak learning rate (and weight decay) live in the optimiser state through
    ``optax.inject_hyperparams``, so each member of a cohort can hold its own.
    """
    name = train_config.optimizer
    if name == "adam":
        inner = optax.inject_hyperparams(optax.adam)(learning_rate=train_config.learning_rate)
    elif name == "adamw":
        inner = optax.inject_hyperparams(optax.adamw)(
            learning_rate=train_config.learning_rate, weight_decay=train_config.weight_decay)
    elif name == "sgd":
        inner = optax.inject_hyperparams(optax.sgd)(learning_rate=train_config.learning_rate,
                                                    momentum=0.9)
    else:
        raise ValueError(f"unknown optimizer {name!r}; valid choices: {', '.join(OPTIMIZERS)}")
    return optax.chain(optax.clip_by_global_norm(train_config.grad_clip_norm), inner,
                       optax.scale_by_schedule(schedule_shape(train_config)))


def init_member(model, tx, example_batch, seed, signal_state=None) -> TrainState:
    """One member's initial state; ``signal_state`` is the training signal's
    ``init_state()`` (see ``attention.training_signal``)."""
    variables = model.init(member_key(seed, PARAMS_STREAM), example_batch.source,
                           example_batch.target_inputs)
    params = variables["params"]
    return TrainState(step=jnp.zeros((), jnp.int32), seed=jnp.asarray(seed, jnp.int32),
                      params=params, opt_state=tx.init(params),
                      signal_state={} if signal_state is None else signal_state,
                      failed_step=jnp.zeros((), jnp.int32), failure=jnp.zeros((), jnp.int32))


def member_hyperparams(configs) -> dict:
    """The optimiser hyperparameters each member holds: {name: [one value per member]}."""
    values = {"learning_rate": [c.train.learning_rate for c in configs]}
    if configs[0].train.optimizer == "adamw":
        values["weight_decay"] = [c.train.weight_decay for c in configs]
    return values


def with_member_hyperparams(state, hyperparams: dict):
    """The stacked ``state`` with each member's optimiser hyperparameters set from
    ``hyperparams`` ({name: [value per member]}, ``member_hyperparams``), each placed as
    the value it replaces: a resumed run trains with its config's rates, not the ones
    its checkpoint was saved with (they differ only where ``--resume_with`` says)."""
    placed = lambda value, old: jax.device_put(np.asarray(value, old.dtype), old.sharding)
    return state.replace(opt_state=_set_hyperparams(state.opt_state, hyperparams, placed))


def _set_hyperparams(opt_state, values: dict,
                     convert=lambda value, old: jnp.asarray(value, old.dtype)):
    """Replace the injected hyperparameters wherever they sit in the chain (one
    member's, or a stacked state's with ``convert`` placing each)."""
    def visit(node):
        if hasattr(node, "hyperparams") and hasattr(node, "_replace"):
            merged = dict(node.hyperparams)
            merged.update({k: convert(v, merged[k]) for k, v in values.items()
                           if k in merged})
            return node._replace(hyperparams=merged)
        if isinstance(node, tuple) and not hasattr(node, "_fields"):
            return tuple(visit(child) for child in node)
        return node
    return visit(opt_state)


def create_train_state(model, tx, example_batch, seeds, hyperparams=None,
                       sharding=None, signal=None) -> TrainState:
    """Stacked initial states, one per seed: every leaf gets a leading member axis.

    ``hyperparams`` ({name: [value per member]}, see ``member_hyperparams``)
    replaces the values the optimiser was built with, member by member;
    ``sharding`` places the stacked state (default: the default device);
    ``signal`` is the alignment's training signal, whose state each member carries.
    """
    return make_initializer(model, tx, example_batch, sharding, signal)(seeds, hyperparams)


def make_initializer(model, tx, example_batch, sharding=None, signal=None):
    """``create_train_state`` as one function of (seeds, hyperparams), jitted once: a
    caller that asks for the state's shapes (``jax.eval_shape``) and then the state
    traces the model's initialisation once, not twice (about a second a run)."""

    def init(seed, member_hyperparams):
        state = init_member(model, tx, example_batch, seed,
                            None if signal is None else signal.init_state())
        return state.replace(opt_state=_set_hyperparams(state.opt_state, member_hyperparams))

    # Members are initialised one after another (lax.map), not with vmap: vmap
    # turns the orthogonal initialiser's QR into a batched LAPACK call, and on a
    # small CPU jaxlib's batched QR (ParallelBatchMap inside XLA's intra-op
    # pool) deadlocks once a cohort has about five members. Initialisation is a
    # negligible share of a run, so the serial loop costs nothing measurable.
    def init_all(seeds, hyperparams):
        return jax.lax.map(lambda args: init(*args), (seeds, hyperparams))

    jitted = jax.jit(init_all, out_shardings=sharding)

    def initialize(seeds, hyperparams=None) -> TrainState:
        seeds = np.asarray(seeds, np.int32)
        hyperparams = {k: np.asarray(v, np.float32) for k, v in (hyperparams or {}).items()}
        return jitted(seeds, hyperparams)

    return initialize
