"""Many devices: a cohort on an 8-device CPU mesh gives the 1-device results.

XLA fixes the device count when it starts, so each device count runs in its own
process with --xla_force_host_platform_device_count, and each process trains every
run of the module that needs its device count, one after another (a process's
imports and start cost as much as a tiny sweep's training). The module's processes
start together (``runs``) and each test waits for its own: a process spends most of
its time compiling on one core, so side by side they finish in about half the time of
one after another on a 2-core machine.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # every test here starts processes or many devices
ROOT = Path(__file__).resolve().parents[1]
# Each job: (task, mesh member, mesh data, output folder); member 0 keeps the config's
# mesh (every device to members). A copy sweep has 8 seeds, a translation sweep 4.
SCRIPT = """
import json, sys
sys.path.insert(0, {root!r})
{distributed}
from tests.conftest import tiny_config, tiny_translation_config
from attention_research.running import sweeps
from attention_research.api import run_sweep
for task, member, data, out in {jobs!r}:
    if task == "copy":
        config, seeds = tiny_config(), 8
        config.train.num_heatmaps = 0  # the layouts' numbers are compared, not their figures
    else:
        config, seeds = tiny_translation_config({data_dir!r}), 4
    if member:
        config.mesh.member, config.mesh.data = member, data
    out = {root_out!r} + "/" + out
    summaries = run_sweep(config, sweeps.axis("config.seed", range(seeds)), out, progress=False)
    json.dump([dict(s["members"][0]["final"], **s["devices"]) for s in summaries],
              open(out + "/finals_{process}.json", "w"))
"""
DISTRIBUTED = ("from attention_research.training.mesh import initialize_distributed\n"
               "initialize_distributed({address!r}, {processes}, {process})")

# The 8-device (member, data) layouts of the copy sweep: members alone, then members
# and rows both split.
LAYOUTS = [(8, 1), (4, 2)]
# Each process group: (processes, devices in all, its jobs).
GROUPS = {
    "one": (1, 1, [("copy", 1, 1, "copy_one"), ("translation", 1, 1, "translation_one")]),
    "eight": (1, 8, [("copy", m, d, f"copy_{m}x{d}") for m, d in LAYOUTS]),
    # Two processes of 2 CPU devices each: one 4-device mesh over gloo.
    "two": (2, 4, [("copy", 0, 0, "copy_two"), ("translation", 4, 1, "translation_two")]),
    "grid": (1, 4, [("translation", 2, 2, "translation_2x2")]),
}


def _environment(devices: int) -> dict:
    """A CPU process of ``devices`` devices, keeping the suite's XLA flags (the fast
    compilation tests/conftest.py sets)."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}"
    return dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=flags.strip())


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(root, data_dir, processes, devices, jobs):
    """Start one group's processes (``_finals`` waits for them)."""
    address = f"127.0.0.1:{_free_port()}"
    env = _environment(devices // processes)
    started = []
    for process in range(processes):
        distributed = (DISTRIBUTED.format(address=address, processes=processes, process=process)
                       if processes > 1 else "")
        code = SCRIPT.format(root=str(ROOT), distributed=distributed, jobs=jobs,
                             data_dir=str(data_dir), root_out=str(root), process=process)
        started.append(subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT))
    return started


@pytest.fixture(scope="module")
def translation_data(tmp_path_factory):
    """A small ding_de_en, prepared and with its subwords, shared by the processes."""
    from attention_research.tasks.translation import datasets, subwords
    from tests.test_translation_data import _write_ding_file
    root = tmp_path_factory.mktemp("translation")
    corpus = datasets.load("ding_de_en", data_dir=str(root / "tfds"),
                           data_path=str(_write_ding_file(root / "de-en", count=400)))
    subwords.train_or_load(corpus.texts("train", "de") + corpus.texts("train", "en"),
                           corpus.data_dir, 100)
    return root / "tfds"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, translation_data):
    """Every process group of the module, started at once: (output root, {group:
    processes})."""
    root = tmp_path_factory.mktemp("layouts")
    started = {name: _start(root, translation_data, *group) for name, group in GROUPS.items()}
    yield root, started
    for processes in started.values():  # a test that failed early leaves none behind
        for process in processes:
            process.kill()
            process.wait()


def _finals(runs, group, out):
    """Wait for ``group``'s processes; the finals each wrote to ``out``, a list per process."""
    root, started = runs
    assert [process.wait(timeout=600) for process in started[group]] == [0] * len(started[group])
    return [json.loads((root / out / f"finals_{i}.json").read_text())
            for i in range(len(started[group]))]


def _metrics(finals):
    keys = sorted(k for k in finals[0] if k.startswith("eval/"))
    return np.array([[f[k] for k in keys] for f in finals])


@pytest.fixture(scope="module")
def one_device(runs):
    return _finals(runs, "one", "copy_one")[0]


@pytest.mark.parametrize("member, data", LAYOUTS)
def test_an_8_device_mesh_matches_one_device(runs, one_device, member, data):
    finals = _finals(runs, "eight", f"copy_{member}x{data}")[0]
    assert finals[0]["count"] == 8
    assert finals[0]["mesh"] == {"member": member, "data": data}
    assert finals[0]["members_sharded"]
    np.testing.assert_allclose(_metrics(finals), _metrics(one_device), rtol=2e-4, atol=1e-6)
    assert len({f["eval/loss/len1-4"] for f in finals}) == 8  # eight different seeds


def test_two_processes_over_localhost_match_one_process(runs, one_device):
    """Two processes of 2 CPU devices each form one 4-device mesh over gloo; they share
    the work directory, only process 0 writes, and the results equal one process's."""
    out = runs[0] / "copy_two"
    finals = _finals(runs, "two", "copy_two")
    assert finals[0][0]["processes"] == 2 and finals[0][0]["count"] == 4
    assert finals[0][0]["mesh"] == {"member": 4, "data": 1}
    np.testing.assert_allclose(_metrics(finals[0]), _metrics(one_device), rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(_metrics(finals[1]), _metrics(finals[0]))
    assert (out / "summary.md").exists()
    lines = (out / "members" / "seed-0" / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines))  # one writer: no line twice


def test_translation_batches_shard_over_devices_and_processes(runs):
    """Pipeline batches placed on a 2x2 mesh (members and rows split), and two processes
    that each build only their members' batches, give the one-device results."""
    def values(finals):
        keys = sorted(k for k in finals[0] if "loss" in k or "bleu" in k)
        return np.array([[f[k] for k in keys] for f in finals])
    (one,) = _finals(runs, "one", "translation_one")
    (grid,) = _finals(runs, "grid", "translation_2x2")
    two = _finals(runs, "two", "translation_two")
    assert grid[0]["mesh"] == {"member": 2, "data": 2} and two[0][0]["processes"] == 2
    np.testing.assert_allclose(values(grid), values(one), rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(values(two[0]), values(one), rtol=2e-4, atol=1e-5)
    assert len({f["eval/loss/validation"] for f in one}) == 4  # four different seeds
