"""The train step's FLOPs (issue 39); the device's peak to compare them with is
``running/peaks.py``'s.

``matmul_flops`` counts a program's matrix FLOPs from its jaxpr: every
``dot_general`` is 2 × (batch dims) × (contracted dims) × (free dims), times the length
of each enclosing ``scan``. XLA's own cost analysis of the compiled program
(``xla_flops``, logged beside it) counts the body of a loop once however often it runs
— an RNN's time loop and the ``train.steps_per_call`` scan are both loops — so for
this project's train calls it undercounts by one to three orders of magnitude; it
agrees with ``matmul_flops`` on loop-free programs (``tests/test_timing.py``).
Element-wise work (activations, softmax, the optimiser) is left out, as in the usual
model-FLOPs utilisation (PaLM, Chowdhery et al. 2022, App. B; MaxText's MFU).
``throughput`` sets the count against the training time and the device's peak.
"""

from __future__ import annotations


def _subjaxprs(eqn):
    """The jaxprs inside an equation (pjit, custom_vjp, remat, cond branches...)."""
    for value in eqn.params.values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            inner = getattr(item, "jaxpr", item)  # a ClosedJaxpr holds a Jaxpr
            if hasattr(inner, "eqns"):
                yield inner


def matmul_flops(jaxpr) -> float:
    """2·M·N·K summed over every dot_general, times each enclosing scan's length; a
    ``cond`` counts its costlier branch; a ``while`` of unknown length is refused."""
    total = 0.0
    for eqn in getattr(jaxpr, "jaxpr", jaxpr).eqns:
        name = eqn.primitive.name
        if name == "dot_general":
            (contract, _), _ = eqn.params["dimension_numbers"]
            lhs = eqn.invars[0].aval.shape
            contracted = 1
            for axis in contract:
                contracted *= lhs[axis]
            size = 1
            for dim in eqn.outvars[0].aval.shape:  # batch dims and both sides' free dims
                size *= dim
            total += 2.0 * size * contracted
        elif name == "while":
            raise ValueError("a while loop of unknown trip count in the step: FLOPs "
                             "cannot be counted from the jaxpr")
        elif name == "cond":  # the costlier branch: an upper bound
            total += max(matmul_flops(b.jaxpr) for b in eqn.params["branches"])
        else:
            inner = sum(matmul_flops(j) for j in _subjaxprs(eqn))
            total += inner * (eqn.params["length"] if name == "scan" else 1)
    return total


def xla_flops(compiled) -> float | None:
    """XLA's cost analysis of a compiled program (each loop body counted once), or
    None where the backend gives none."""
    try:
        analysis = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 — not every backend implements it
        return None
    if isinstance(analysis, (list, tuple)):  # older JAX: one dict per program
        analysis = analysis[0] if analysis else None
    return float(analysis["flops"]) if analysis and "flops" in analysis else None


def throughput(program, calls: int, members: int, steps_per_call: int, seconds: float,
               exact: bool, peak) -> dict:
    """Achieved matrix FLOP/s of ``calls`` calls of the train ``program``
    (compile_ahead.TrainProgram, its FLOPs counted) over ``seconds`` of training, per
    device and per member, beside the device's ``peak`` (FLOP/s, its source; None where
    unknown). Host batches vary in width: their count is the first width's (``exact``
    False), so it is marked approximate. {} before any call was timed."""
    import jax
    per_call = program.matmul_flops_per_call
    if not per_call or not calls or seconds <= 0:
        return {}
    devices = jax.device_count()
    achieved = per_call * calls / seconds
    xla = program.xla_flops_per_call
    result = {"matmul_gflop_per_member_step": per_call / members / steps_per_call / 1e9,
              "xla_cost_analysis_gflop_per_call": None if xla is None else xla / 1e9,
              "gflop_per_s_per_device": achieved / devices / 1e9,
              "gflop_per_s_per_member": achieved / members / 1e9,
              "counted": ("exact" if exact
                          else "approximate: the first batch width's FLOPs per step")}
    peak = peak()
    if peak is not None:
        result.update(peak_gflop_per_s_per_device=peak[0] / 1e9, peak_source=peak[1],
                      fraction_of_peak=achieved / devices / peak[0])
    return result
