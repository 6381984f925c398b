"""JAX's persistent compilation cache in a per-user directory, so that a second run of
the same config (and the tests' subprocess runs) load their compiled programs from disk
instead of compiling them again.

The directory is, in order: the ``--compilation_cache`` flag of ``launch.py``, the
environment variable ``ATTENTION_RESEARCH_COMPILATION_CACHE``, or
``$XDG_CACHE_HOME/attention_research/jax`` (``~/.cache/attention_research/jax``).
``off`` (or an empty value) turns the cache off. JAX keys each entry by the program,
the JAX and XLA versions and the device, so a stale entry is never used.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax

ENVIRONMENT_VARIABLE = "ATTENTION_RESEARCH_COMPILATION_CACHE"
OFF = ("", "off", "none", "0")


def default_directory() -> str:
    """The environment variable's value if set, else the per-user cache directory."""
    if ENVIRONMENT_VARIABLE in os.environ:
        return os.environ[ENVIRONMENT_VARIABLE]
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return str(Path(cache_home) / "attention_research" / "jax")


def enable(directory: str | None) -> str | None:
    """Turn the cache on in ``directory`` (None: ``default_directory()``); returns the
    directory, or None when it is turned off. Call before anything is compiled."""
    directory = default_directory() if directory is None else directory
    if directory.strip().lower() in OFF:
        return None
    jax.config.update("jax_compilation_cache_dir", directory)
    # Every program counts: the default (1 s) would skip the evaluation and decoding
    # programs of a small model, which are most of a short run's compile time.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return directory


# XLA without its slower LLVM optimisations: programs compile about a third faster and
# run slower, the trade a smoke run and the tests want (issue 38: a single config's
# ``tiny`` run; measured in docs/configs.md). One flag, present in XLA for years: an
# unknown flag in XLA_FLAGS aborts the process.
FAST_COMPILE_FLAG = "--xla_backend_optimization_level=0"


def compile_fast() -> bool:
    """Add ``FAST_COMPILE_FLAG`` to XLA_FLAGS (this process and those it starts). XLA
    reads the variable when JAX creates its backends, so this must run before anything
    is computed; returns False (and changes nothing) when that has already happened."""
    from jax._src import xla_bridge  # no public API says whether backends exist
    initialized = getattr(xla_bridge, "backends_are_initialized", lambda: False)
    if initialized():
        return False
    flags = os.environ.get("XLA_FLAGS", "")
    if FAST_COMPILE_FLAG.split("=")[0] not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {FAST_COMPILE_FLAG}".strip()
    return True
