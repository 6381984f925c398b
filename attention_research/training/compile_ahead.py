"""Compiling a cohort's programs ahead of the moment they run (issue 39).

A cold run on a small CPU spends most of its first seconds in XLA. Two programs are
compiled beside other work, each in a thread of its own (Python's tracing cannot
overlap, the GIL; XLA's compiling can, each on its own core):

* the train call, from the initial state's shapes (``TrainProgram.start_early``), while
  the main thread makes the initial state or restores a checkpoint; it is used only if
  the real state fits it (``fits``), else compiled again. A cold tiny run is about 3 s
  shorter (docs/configs.md);
* the evaluation (``EvaluationPrecompile``), while the first train calls run: a cold
  run's first evaluation stalled training 5-8 s to compile it.

``TrainProgram`` also counts the train call's matrix FLOPs from the trace it compiles
(``flops.py``), once.
"""

from __future__ import annotations

import threading
import time

import jax

from attention_research.training import flops, memory


def state_spec(shapes, sharding):
    """``jax.eval_shape``'s shapes of a state, placed as ``sharding`` (eval_shape drops
    the placement), to compile the train call for before the state exists."""
    return jax.tree_util.tree_map(
        lambda s: jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sharding,
                                       weak_type=s.weak_type), shapes)


def fits(state, spec) -> bool:
    """Whether every array of ``state`` has the shape, type and placement ``spec`` says:
    a program compiled for ``spec`` then runs on ``state`` unchanged."""
    leaves, tree = jax.tree_util.tree_flatten(state)
    specs, spec_tree = jax.tree_util.tree_flatten(spec)
    return tree == spec_tree and all(
        isinstance(x, jax.Array) and x.shape == s.shape and x.dtype == s.dtype
        and x.weak_type == s.weak_type and x.sharding == s.sharding
        for x, s in zip(leaves, specs))


class TrainProgram:
    """The jitted train call of a cohort of ``members``, compiled ahead of time for the
    inputs' shapes, and its FLOPs per call (counted from the first program compiled:
    host batches vary in width, so theirs is the first width's)."""

    def __init__(self, train_call, members: int):
        self.train_call = train_call
        self.members = members
        self.matmul_flops_per_call = None
        self.xla_flops_per_call = None
        self.early = None  # (thread, spec, outcome) of start_early

    def compile(self, state, inputs=()):
        traced = self.train_call.trace(state, *inputs)
        compiled = traced.lower().compile()
        memory.check_compiled(compiled, self.members)  # before it first runs
        if self.matmul_flops_per_call is None:
            self.matmul_flops_per_call = flops.matmul_flops(traced.jaxpr)
            self.xla_flops_per_call = flops.xla_flops(compiled)
        return compiled

    def start_early(self, shapes, sharding):
        """Compile, in a background thread, for a state of ``shapes`` placed as
        ``sharding`` that takes no other input (a task that samples its batches on the
        device). An error there is dropped: the main thread compiles again and raises it
        where it belongs (the memory guard included)."""
        if self.early is not None:
            return
        spec = state_spec(shapes, sharding)
        outcome = {}

        def work():
            start = time.time()
            try:
                outcome["compiled"] = self.compile(spec)
                outcome["seconds"] = time.time() - start
            except Exception:  # noqa: BLE001 — compiled again in the main thread
                pass
        thread = threading.Thread(target=work, name="train-compile", daemon=True)
        thread.start()
        self.early = (thread, spec, outcome)

    def take_early(self, state):
        """(program, seconds) that ``start_early`` compiled, once it is done, if it was
        compiled for this state's shapes, types and placement (a restored checkpoint's
        state might differ); else None, and the caller compiles."""
        if self.early is None:
            return None
        thread, spec, outcome = self.early
        self.early = None
        thread.join()
        if "compiled" not in outcome or not fits(state, spec):
            return None
        return outcome["compiled"], outcome["seconds"]


class EvaluationPrecompile:
    """The evaluation's programs compiled in a background thread while training runs:
    on this CPU a small model's train step keeps one core busy, so the other compiles;
    nothing is run, so no evaluation memory is taken beside training's. An evaluation
    without ``precompile`` compiles at its first call."""

    def __init__(self, evaluate):
        self.precompile = getattr(evaluate, "precompile", None)
        self.thread = None

    def start(self, params):
        if self.precompile is None or self.thread is not None:
            return

        def work():
            try:
                self.precompile(params)
            except Exception:  # noqa: BLE001 — the evaluation compiles (and reports) itself
                pass
        self.thread = threading.Thread(target=work, name="precompile", daemon=True)
        self.thread.start()

    def wait(self):
        if self.thread is not None:
            self.thread.join()
