"""Shared fixtures: tiny configs, and one compilation cache for the whole session.

Tests that train the same tiny config lower to the same XLA program; JAX's
persistent cache lets them compile it once, in this process and in the ``launch.py``
subprocesses the tests start (they inherit the environment variable).
"""

import atexit
import os
import shutil
import tempfile

import pytest

from attention_research import compilation_cache
from configs import base

# A cache of this session only: shared between tests, never between CI runs.
_CACHE_DIR = tempfile.mkdtemp(prefix="attention_research_jax_cache_")
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)
os.environ[compilation_cache.ENVIRONMENT_VARIABLE] = _CACHE_DIR
compilation_cache.enable(_CACHE_DIR)


def tiny_config(score="additive", task="copy", **choices):
    """A config that trains in a second or two on one CPU core: the ``tiny`` argument."""
    arg = ",".join([f"task={task}", "tiny"] + [f"{k}={v}" for k, v in choices.items()])
    config = base.get_config(arg)
    config.name = f"tiny-{score}"
    config.model.attention.score = score
    return config


@pytest.fixture
def tiny():
    return tiny_config


def tiny_translation_config(data_dir, score="additive"):
    """A translation config over a small prepared ding_de_en (see test_translation_data)."""
    config = base.get_config("task=translation,tiny")
    config.name = f"tiny-translation-{score}"
    config.model.attention.score = score
    config.model.dropout = 0.0
    config.task.data_dir = str(data_dir)
    return config
