"""What a member's summary.json says of its run, beside its final metrics: its name and
status, where its time went (timing.py) and its FLOP/s (flops.py), its peak memory,
the code, software and devices that trained it, and its warnings (docs/runs.md lists
every field)."""

from __future__ import annotations

import resource

import jax

from attention_research import models
from attention_research.training import flops


def describe(config) -> str:
    """A short name for titles: the config's name, then the family's description."""
    return f"{config.name}: {models.FAMILIES[config.model.family].describe(config)}"


def peak_memory() -> dict:
    """Peak host RSS and, where the backend reports it, peak device memory, in MiB."""
    memory = {"host_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    stats = jax.local_devices()[0].memory_stats() or {}
    if "peak_bytes_in_use" in stats:
        memory["device_peak_mib"] = stats["peak_bytes_in_use"] / 2**20
    return memory


def member_summary(cohort, member: int, step: int, status: str, final=None,
                   result=None) -> dict:
    """Member ``member`` of ``cohort`` (training/loop.py) at ``step``; ``final`` (the
    task's final evaluation) and ``result`` (its held-out results) for a finished one."""
    config = cohort.configs[member]
    entry = {"member": member, "seed": config.seed,
             "learning_rate": config.train.learning_rate, "final": {}}
    if final is not None:
        entry.update(final=({**final.log, **result["metrics"]}), **final.member,
                     **cohort.final_choice[member])
    report = cohort.stopwatch.report()
    wall_time_s = cohort.elapsed()  # read with the phases: they add up to it
    throughput = flops.throughput(
        cohort.train_program, cohort.train_calls, len(cohort.configs),
        cohort.config.train.steps_per_call, report["phases_s"]["training"],
        exact=cohort.task.sample_batch is not None, peak=cohort.environment.device_peak)
    timed = {**report, "throughput": throughput,
             **({"resumed_at_step": cohort.resumed_at_step} if cohort.resumed_at_step else {})}
    return {
        "name": config.name, "description": describe(config), "task": cohort.task.name,
        "status": status, **({"failure": cohort.failures[member]} if status == "failed"
                             else {}),
        "steps": step, "wall_time_s": wall_time_s, "time": timed,
        "memory": peak_memory(),
        "code": cohort.environment.code(), "software": cohort.environment.software(),
        "devices": {"count": jax.device_count(), "platform": jax.devices()[0].platform,
                    "kind": jax.devices()[0].device_kind,
                    # A GPU's "default" runs float32 matrix products in TF32; set
                    # by JAX_DEFAULT_MATMUL_PRECISION (docs/speed.md).
                    "matmul_precision": jax.config.jax_default_matmul_precision
                    or "default",
                    "processes": jax.process_count(),
                    "mesh": dict(cohort.placement.mesh.shape),
                    "members_sharded": cohort.placement.member_axis is not None,
                    **({"cpu": cohort.environment.cpu()}
                       if jax.devices()[0].platform == "cpu" else {})},
        # Every process that trained a part of the run, with what it ran on
        # (running/segments.py); "code" and "devices" above are the last one's.
        **({"segments": segments.until(step)}
           if (segments := getattr(cohort.environment, "segments", None)) else {}),
        "warnings": cohort.monitors[member].warnings,
        **({"stopped_early": step < config.train.num_steps and status == "finished"}
           if config.train.patience else {}),
        **(final.summary if final is not None else {}),
        **({"config_history": history}
           if (history := cohort.workdirs[member].config_history()) else {}),
        **({"adopted_from": adopted}
           if (adopted := cohort.environment.adopted_from(cohort.workdirs[member].path,
                                                        entry["final"])) else {}),
        "members": [entry]}
