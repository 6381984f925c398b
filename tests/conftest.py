"""Shared fixtures: tiny configs, and one compilation cache for the whole session.

Tests that train the same tiny config lower to the same XLA program; JAX's
persistent cache lets them compile it once, in this process and in the ``launch.py``
subprocesses the tests start (they inherit the environment variable).
"""

import atexit
import os
import shutil
import tempfile

import jax
import pytest

from attention_research.running import compilation_cache
from configs import base

# Two pytest-xdist workers may share one accelerator: neither may take 75% of its
# memory up front (JAX's default).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

# Float32 matrix products in float32 on every backend. On a GPU, XLA's default runs
# them in TF32 (about 1e-3 relative error), which the runs keep for speed; the tests
# check identities (incremental decoding is teacher forcing, padding changes nothing,
# a score is its NumPy formula) to float32 tolerances that TF32 rounding breaks. The
# variable carries it to the launch.py processes the tests start.
os.environ.setdefault("JAX_DEFAULT_MATMUL_PRECISION", "highest")
jax.config.update("jax_default_matmul_precision", "highest")

# The tests compile many tiny programs and run each briefly: XLA compiling for speed of
# compilation (compilation_cache.compile_fast: on a CPU about half the time) suits them.
# The flags reach the processes the tests start through XLA_FLAGS.
compilation_cache.compile_fast()

# A cache of this session only: shared between tests, never between CI runs. Under
# pytest-xdist the controller makes it before it starts its workers, which inherit the
# variable and share it; only the process that made it removes it.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(compilation_cache.ENVIRONMENT_VARIABLE):
    _CACHE_DIR = os.environ[compilation_cache.ENVIRONMENT_VARIABLE]
else:
    _CACHE_DIR = tempfile.mkdtemp(prefix="attention_research_jax_cache_")
    atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)
    os.environ[compilation_cache.ENVIRONMENT_VARIABLE] = _CACHE_DIR
compilation_cache.enable(_CACHE_DIR)


# The files whose tests mostly wait on processes they start (several devices, launch.py
# runs), handed to the xdist workers first (pyproject.toml: --no-loadscope-reorder keeps
# this order): their processes then run beside the rest of the suite, not after it at
# its end, where a process that trains several runs one after another is the longest
# chain (docs/testing.md). The other files follow, those with the most tests first
# (xdist's own order).
FIRST_FILES = ("test_devices.py", "test_step_speed.py", "test_gpu_sweep.py")


def pytest_collection_modifyitems(config, items):
    files = {}
    for item in items:
        files.setdefault(item.path.name, []).append(item)
    first = [name for name in FIRST_FILES if name in files]
    rest = sorted((name for name in files if name not in first), key=lambda n: -len(files[n]))
    items[:] = [item for name in first + rest for item in files[name]]


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


# The tests' small corpora hold few characters: 100 pieces, the models their fixtures
# train (a real corpus's :tiny takes 128, Translation.shrink).
TINY_TEST_VOCAB = 100


def tiny_translation_config(data_dir, score="additive"):
    """A translation config over a small prepared ding_de_en (see test_translation_data)."""
    config = base.get_config("task=translation,tiny")
    config.task.vocab_size = TINY_TEST_VOCAB
    config.name = f"tiny-translation-{score}"
    config.model.attention.score = score
    config.model.dropout = 0.0
    config.task.data_dir = str(data_dir)
    config.task.dataset = "ding_de_en"  # the tiny sizes of ``tiny`` kept (not use_corpus's)
    return config


def tensorboard_events(workdir) -> list[tuple[int, str, str, object]]:
    """Every value in a work directory's TensorBoard event files, as (step, tag, kind,
    value): kind 'simple_value' (a scalar), 'image', 'tensor' (text) or 'metadata'
    (hparams, whose summaries hold metadata alone), read
    from the TFRecord framing with tensorboardX's Event proto (no TensorFlow)."""
    import struct
    from pathlib import Path

    from tensorboardX.proto import event_pb2
    events = []
    for path in sorted(Path(workdir).glob("events.out.tfevents.*")):
        data, offset = path.read_bytes(), 0
        while offset < len(data):
            (length,) = struct.unpack_from("<Q", data, offset)
            event = event_pb2.Event.FromString(data[offset + 12:offset + 12 + length])
            offset += 12 + length + 4  # length, its crc, the record, its crc
            for value in event.summary.value:
                kind = value.WhichOneof("value")  # None: metadata alone (hparams)
                events.append((event.step, value.tag, kind or "metadata",
                               getattr(value, kind) if kind else value.metadata))
    return events


def tensorboard_scalars(workdir) -> list[tuple[int, str, float]]:
    """Every scalar in a work directory's TensorBoard event files, as (step, tag, value)."""
    return [(step, tag, value) for step, tag, kind, value in tensorboard_events(workdir)
            if kind == "simple_value"]


def metrics_scalars(workdir) -> list[tuple[int, str, float]]:
    """What metrics.jsonl holds, in the shape of ``tensorboard_scalars``."""
    import json
    from pathlib import Path
    rows = [json.loads(line) for line in
            Path(workdir, "metrics.jsonl").read_text().splitlines() if line]
    return [(r["step"], k, v) for r in rows for k, v in r.items()
            if k not in ("step", "member") and v is not None]
