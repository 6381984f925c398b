"""A size guard: refuse a run whose memory cannot fit, before it tries.

A typo in a length or a width (``task.eval_max_length=100000``, ``train.batch_size=1e7``,
``model.hidden_size=100000``) used to reach XLA's out-of-memory error only after a long
wait, or to fill a shared machine's RAM within seconds. Three checks, each before the
memory is taken, each refusing with one line that names the field to lower:

1. ``check_config``, before the task is built, from the config alone: the symbol
   tasks' held-out set (every length 1 … ``eval_max_length``, padded to the longest),
   and the attention weights of one training batch and one evaluation chunk, the
   largest tensors of any attention model (members x batch x heads x target x source
   floats). These are lower bounds: a run needs more, never less.
2. ``check_state``, before the parameters are initialised: the train state's exact
   size (parameters, optimiser moments), from ``jax.eval_shape``.
3. ``check_compiled``, before the compiled train step first runs: what XLA says the
   program needs (its arguments, outputs and temporaries).

The budget is what is free: the device's memory limit less what it holds already on a
GPU or TPU, and on a CPU (where the device is the host) the RAM the kernel can give
without swapping (``MemAvailable``). A lower bound above three quarters of it is refused
too, since the run needs more beside it; above half a warning is printed. (It
was the total RAM: a 17.2 GiB evaluation chunk on a 23.5 GiB machine with 8-13 GiB
free was only warned about, and the run grew to 6 GiB before it failed; issue 72.)
"""

from __future__ import annotations

import os
import sys

import jax
import numpy as np

from attention_research.errors import ConfigError

GIB = 2**30


def host_bytes() -> int:
    """The host's memory free for this run: /proc/meminfo's MemAvailable (what can be
    taken without swapping), or all its physical memory where that is not known."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def device_bytes() -> int:
    """What one device can still take: its memory limit less what it holds, or the
    host's free memory on CPU."""
    stats = jax.local_devices()[0].memory_stats() or {}
    if stats.get("bytes_limit"):
        return int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0))
    return host_bytes()


# A lower bound (``at_least``) above this share of the free memory is refused: the run
# needs the rest of its arrays beside it (a 17.2 GiB bound with 21 GiB free grew past
# 9.8 GiB of RSS, still climbing, before it was killed).
LOWER_BOUND_SHARE = 0.75


def _refuse_or_warn(what: str, needed: int, budget: int, where: str, lower: str,
                    at_least: bool = False):
    if needed > (LOWER_BOUND_SHARE if at_least else 1.0) * budget:
        share = "" if needed > budget or not at_least else "three quarters of "
        raise ConfigError(f"{what} needs {'at least ' if at_least else ''}"
                          f"{needed / GIB:.1f} GiB, more than {share}the {budget / GIB:.1f} "
                          f"GiB free of {where}: lower {lower}")
    if needed > budget / 2:
        print(f"warning: {what} needs {needed / GIB:.1f} GiB, more than half of the "
              f"{budget / GIB:.1f} GiB free of {where} ({lower} sets it)", file=sys.stderr)


def config_estimates(config, members: int) -> list[tuple[str, int, str, str]]:
    """(what, bytes, 'host' or 'device', the fields that set it) for what the config
    alone tells: lower bounds of the largest arrays a run makes."""
    task, train = config.task, config.train
    heads = max(int(config.model.get("num_heads", 1) or 1),
                int(config.model.attention.get("num_heads", 1) or 1))
    estimates = []
    longest = int(task.get("eval_max_length", 0) or 0)
    per_length = int(task.get("eval_examples_per_length", 0) or 0)
    if longest and per_length:  # the symbol tasks: every length, padded to the longest
        examples = longest * per_length
        estimates.append(("the held-out set", examples * (longest + 2) * 4 * 3, "host",
                          "task.eval_max_length or task.eval_examples_per_length"))
        chunk = min(int(task.get("eval_batch_size", examples) or examples), examples)
        estimates.append(("one evaluation chunk's attention weights",
                          members * chunk * heads * (longest + 2) ** 2 * 4, "device",
                          "task.eval_max_length or task.eval_batch_size"))
    train_length = int(task.get("train_max_length", 0) or 0)
    if train_length:
        estimates.append(("one training batch's attention weights and their gradient",
                          2 * members * train.batch_size * heads * (train_length + 2) ** 2 * 4,
                          "device", "train.batch_size or task.train_max_length"))
    return estimates


def _device() -> str:
    return f"one {jax.devices()[0].platform.upper()} device"


def check_config(config, members: int = 1):
    """Refuse (or warn about) a config whose largest arrays cannot fit (check 1). A
    device's share is counted as if the arrays were split evenly over every device."""
    budgets = {"host": (host_bytes(), 1, "this machine's memory"),
               "device": (device_bytes(), jax.device_count(), _device())}
    for what, needed, kind, fields in config_estimates(config, members):
        budget, share, where = budgets[kind]
        _refuse_or_warn(what, needed // share, budget, where, fields, at_least=True)


def tree_bytes(tree) -> int:
    """Bytes of every array (or ShapeDtypeStruct) in a pytree."""
    return sum(int(np.prod(leaf.shape)) * np.dtype(leaf.dtype).itemsize
               for leaf in jax.tree_util.tree_leaves(tree))


def check_state(abstract_state):
    """Refuse a train state (``jax.eval_shape`` of it) that cannot fit (check 2)."""
    _refuse_or_warn("the train state (parameters and optimiser moments)",
                    tree_bytes(abstract_state) // jax.device_count(), device_bytes(),
                    _device(), "model.hidden_size, model.embed_dim or model.num_layers",
                    at_least=jax.device_count() > 1)


def check_compiled(compiled, members: int):
    """Refuse a compiled train step that cannot fit (check 3). A backend without a
    memory analysis checks nothing here."""
    try:
        analysis = compiled.memory_analysis()
        needed = (analysis.argument_size_in_bytes + analysis.output_size_in_bytes
                  + analysis.temp_size_in_bytes - analysis.alias_size_in_bytes)
    except Exception:  # noqa: BLE001 — not every backend (or version) reports it
        return
    _refuse_or_warn(f"the train step of {members} member(s)", needed, device_bytes(), _device(),
                    "train.batch_size, task.train_max_length or the model's width "
                    "(or max_cohort_members)")
