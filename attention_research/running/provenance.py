"""What a summary names of the code and software that made it: the commit (and whether
the checkout had changes) and the versions of the packages that can change a run's
numbers."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

@functools.cache
def code_version() -> dict | None:
    """The commit of the code that trains, and whether its checkout had changes: kept in
    every summary.json, so that a replication can show it ran the first run's code (an
    audit, issue 35). None outside a git checkout (an installed package, CI's copy)."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=10)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                 "--untracked-files=no", "--", "attention_research"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if commit.returncode or status.returncode:
        return None
    return {"commit": commit.stdout.strip(), "changed": bool(status.stdout.strip())}


# The packages whose versions can change a run's numbers: the GPU's image had jax 0.11.2
# and SentencePiece 0.2.2 where this project's CPU machine has 0.10.2 and 0.2.3, and the
# two SentencePiece versions learn different subword models from the same small corpus.
VERSIONED_PACKAGES = ("jax", "jaxlib", "flax", "optax", "numpy", "sentencepiece", "sacrebleu")


@functools.cache
def software_versions() -> dict:
    """Python's and ``VERSIONED_PACKAGES``' versions (None where one is not installed),
    kept in every summary.json beside the commit."""
    import platform
    from importlib import metadata

    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None
    return {"python": platform.python_version(),
            **{package: version(package) for package in VERSIONED_PACKAGES}}
