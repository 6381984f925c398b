"""The peak FLOP/s of this process's devices, beside which a run reports the FLOP/s its
train step achieves (``training/flops.py`` counts them; issue 39), and the host CPU's
description every summary.json keeps.

On a CPU, measured: the best of a few float32 matrix products of 1024³ on this
process's cores (``measured_cpu_peak``), cached per machine in the compilation cache's
directory. On a GPU or TPU, the published dense peak of the chip (``PUBLISHED_PEAKS``)
at the precision XLA runs a float32 matrix product in by default: TF32 on NVIDIA since
Ampere (FP32 when ``jax_default_matmul_precision`` is ``highest``), one bfloat16 pass
on a TPU.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path

from attention_research.running import compilation_cache
from attention_research.running.workdir import write_atomically


# Dense peak TFLOP/s per chip, from the vendors' data sheets, for the precision a
# float32 matrix product runs in by default: (substring of device_kind, TF32 or one
# bf16 pass, full FP32). NVIDIA's SXM figures without sparsity; TPUs per chip.
PUBLISHED_PEAKS = (
    ("H200", 494.7, 66.9),       # NVIDIA H200 SXM data sheet (H100 SXM's tensor cores)
    ("H100 PCIe", 378.0, 51.2),  # NVIDIA H100 PCIe data sheet
    ("H100", 494.7, 66.9),       # NVIDIA H100 SXM data sheet
    ("A100", 156.0, 19.5),       # NVIDIA A100 data sheet
    ("L4", 60.0, 30.3),          # NVIDIA L4 data sheet
    ("A10G", 35.0, 31.2),        # NVIDIA A10G (AWS) data sheet
    ("V100", 15.7, 15.7),        # Volta: no TF32; FP32 on CUDA cores
    ("T4", 8.1, 8.1),            # Turing: no TF32
    ("TPU v6", 918.0, None),     # Trillium (v6e), bf16
    ("TPU v5p", 459.0, None),
    ("TPU v5", 197.0, None),     # v5e ("TPU v5 lite"), bf16
    ("TPU v4", 275.0, None),
    ("TPU v3", 123.0, None),
)


def published_peak(device_kind: str, highest_precision: bool) -> tuple[float, str] | None:
    """(peak FLOP/s, where it comes from) for a known GPU or TPU, else None."""
    for name, default, full in PUBLISHED_PEAKS:
        if name.lower() in device_kind.lower():
            if highest_precision and full is not None:
                return full * 1e12, f"published dense FP32 peak of {name}"
            precision = "bfloat16" if name.startswith("TPU") else "TF32"
            return default * 1e12, f"published dense {precision} peak of {name}"
    return None


def _peak_cache() -> Path | None:
    directory = compilation_cache.default_directory()
    if directory.strip().lower() in compilation_cache.OFF:
        return None
    return Path(directory) / "peak_flops.json"  # JAX's cache reads only its *-cache files


def measured_cpu_peak(size: int = 1024, repeats: int = 5) -> tuple[float, str]:
    """The best float32 matrix-product FLOP/s of ``repeats`` products of ``size``³ on
    the cores this process may use; cached per CPU model, core count and JAX version
    in the compilation cache's directory, so only a machine's first run pays (about 0.3 s)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    key = f"{_cpu_model()}|{cores} cores|jax {jax.__version__}|{size}"
    cache = _peak_cache()
    try:
        cached = json.loads(cache.read_text()) if cache and cache.is_file() else {}
    except (OSError, ValueError):
        cached = {}  # a damaged cache file is measured again, and rewritten
    source = f"measured float32 matrix product {size}³ ({cores} cores)"
    if key in cached:
        return cached[key], source
    a = jnp.asarray(np.random.default_rng(0).standard_normal((size, size)), jnp.float32)
    product = jax.jit(lambda x: x @ x)
    product(a).block_until_ready()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        product(a).block_until_ready()
        best = min(best, time.perf_counter() - start)
    peak = 2.0 * size ** 3 / best
    if cache is not None:
        try:  # atomically: two runs may race
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(cache, json.dumps({**cached, key: peak}, indent=1))
        except OSError:
            pass  # an unwritable cache: measured again next time
    return peak, source


VECTOR_EXTENSIONS = ("avx512f", "avx2", "avx", "sse4_2")  # widest first


@functools.cache
def cpu_description() -> dict:
    """The host CPU's model and widest vector extension (/proc/cpuinfo's flags), kept in
    every summary.json. XLA compiles other CPU code for AVX than for AVX-512, and the
    last bits of a float differ with it, so a run reproduces its logs exactly only on
    the kind of CPU (and the software) it ran on (docs/experiments.md)."""
    flags = set(_cpuinfo("flags").split())
    return {"model": _cpu_model(),
            "vector": next((f for f in VECTOR_EXTENSIONS if f in flags), None)}


def _cpuinfo(field: str) -> str:
    """The first value of ``field`` in /proc/cpuinfo; '' where there is none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(field):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return ""


def _cpu_model() -> str:
    import platform
    return _cpuinfo("model name") or platform.processor() or platform.machine()


@functools.lru_cache(maxsize=None)
def device_peak() -> tuple[float, str] | None:
    """The peak FLOP/s of one of this process's devices, and its source; None for an
    accelerator not in ``PUBLISHED_PEAKS``."""
    import jax
    device = jax.devices()[0]
    if device.platform == "cpu":
        return measured_cpu_peak()
    highest = str(jax.config.jax_default_matmul_precision or "").lower() in (
        "highest", "float32", "fp32")
    return published_peak(device.device_kind, highest)
