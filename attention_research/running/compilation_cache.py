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


# XLA compiling for speed of compilation, not of the program: the trade a smoke run
# and the tests want (issue 38: a single config's ``tiny`` run; measured in
# docs/configs.md). An unknown flag in XLA_FLAGS aborts the process, so each flag is
# added only where this jaxlib knows it (``xla_knows``).
FAST_COMPILE_FLAGS = (
    # Without LLVM's slower optimisations.
    "--xla_backend_optimization_level=0",
    # The CPU's older (elemental) fusion emitters instead of the MLIR ones: on a 2-core
    # CPU a tiny run's train step compiled in 4.7 s against 9.8 s, its whole run took
    # 24 s against 33 s (2026-11-27, docs/configs.md). CPU only; a GPU ignores it.
    "--xla_cpu_use_fusion_emitters=false",
)


def _flag_name(flag: str) -> str:
    return flag.lstrip("-").split("=")[0]


def xla_knows(flag: str) -> bool:
    """Whether this jaxlib's XLA defines ``flag``: its name is a string in the library
    that parses XLA_FLAGS (XLA offers no way to ask short of dying on an unknown one).
    False where the library is not found, so a flag is never added blindly."""
    import mmap

    import jaxlib
    needle = _flag_name(flag).encode() + b"\0"
    for library in Path(jaxlib.__file__).parent.glob("*.so"):
        try:
            if library.stat().st_size < 1 << 20:  # the small Python extension stubs
                continue
            with open(library, "rb") as f, mmap.mmap(f.fileno(), 0,
                                                     access=mmap.ACCESS_READ) as m:
                if m.find(needle) >= 0:
                    return True
        except (OSError, ValueError):  # unreadable: not known, the flag is left out
            continue
    return False


def compile_fast() -> bool:
    """Add ``FAST_COMPILE_FLAGS`` (those this XLA knows) to XLA_FLAGS, for this process
    and those it starts. XLA reads the variable when JAX creates its backends, so this
    must run before anything is computed; returns False (and changes nothing) when that
    has already happened."""
    from jax._src import xla_bridge  # no public API says whether backends exist
    initialized = getattr(xla_bridge, "backends_are_initialized", lambda: False)
    if initialized():
        return False
    flags = os.environ.get("XLA_FLAGS", "")
    for flag in FAST_COMPILE_FLAGS:
        if _flag_name(flag) not in flags and xla_knows(flag):
            flags = f"{flags} {flag}".strip()
    os.environ["XLA_FLAGS"] = flags
    return True
