"""Shared fixtures: tiny configs, and one compilation cache for the whole session.

Tests that train the same tiny config lower to the same XLA program; JAX's
persistent cache (threshold 0 s) lets them compile it once.
"""

import atexit
import shutil
import tempfile

import jax
import pytest

from configs import base

# A cache of this session only: shared between tests, never between CI runs.
_CACHE_DIR = tempfile.mkdtemp(prefix="attention_research_jax_cache_")
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)
jax.config.update("jax_compilation_cache_dir", _CACHE_DIR)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def tiny_config(score="additive", task="copy", **choices):
    """A config that trains in a second or two on one CPU core."""
    arg = ",".join([f"task={task}"] + [f"{k}={v}" for k, v in choices.items()])
    config = shrink(base.get_config(arg))
    config.name = f"tiny-{score}"
    config.model.attention.score = score
    return config


def shrink(config):
    """Tiny sizes, lengths and step counts for any config; its formulation is kept."""
    config.task.num_symbols = 6
    config.task.train_max_length = 4
    config.task.eval_max_length = 6
    config.task.eval_examples_per_length = 2
    config.model.embed_dim = 8
    config.model.hidden_size = 8
    config.model.attention.dim = 8
    config.train.batch_size = 8
    config.train.num_steps = 20
    config.train.warmup_steps = 2
    config.train.steps_per_call = 5
    config.train.log_every = 5
    config.train.eval_every = 10
    config.train.checkpoint_every = 10
    config.train.num_heatmaps = 2
    return config


@pytest.fixture
def tiny():
    return tiny_config


def tiny_translation_config(data_dir, score="additive"):
    """A translation config over a small prepared ding_de_en (see test_translation_data)."""
    config = base.get_config("task=translation")
    config.name = f"tiny-translation-{score}"
    config.model.attention.score = score
    config.task.data_dir = str(data_dir)
    config.task.vocab_size = 100
    config.task.length_buckets = (12, 24)
    config.task.eval_max_length = 32
    config.task.eval_batch_size = 32
    config.task.beam_size = 2
    config.task.num_samples = 4
    config.model.update(embed_dim=8, hidden_size=16, dropout=0.0)
    config.model.attention.dim = 8
    config.train.update(batch_size=8, num_steps=20, warmup_steps=2, steps_per_call=5,
                        log_every=5, eval_every=10, checkpoint_every=10)
    return config
