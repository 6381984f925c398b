"""Many devices: a cohort on an 8-device CPU mesh gives the 1-device results.

XLA fixes the device count when it starts, so each layout runs in its own
process with --xla_force_host_platform_device_count. The processes of the module's
layouts start together (``layouts``) and each test waits for its own: a process
spends most of its time importing and compiling on one core, so side by side they
finish in about half the time of one after another on a 2-core machine.
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
SCRIPT = """
import json, sys
sys.path.insert(0, {root!r})
from tests.conftest import tiny_config
from attention_research import sweeps
from attention_research.training.sweep import run_sweep
config = tiny_config()
config.mesh.member, config.mesh.data = {member}, {data}
config.train.num_heatmaps = 0  # the layouts' numbers are compared, not their figures
summaries = run_sweep(config, sweeps.axis("config.seed", range(8)), {out!r}, progress=False)
json.dump([dict(s["members"][0]["final"], **s["devices"]) for s in summaries],
          open({out!r} + "/finals_0.json", "w"))
"""


# (member, data) on 8 devices: members alone, then members and rows both split
LAYOUTS = [(8, 1), (4, 2)]


def _environment(devices: int) -> dict:
    """A CPU process of ``devices`` devices, keeping the suite's XLA flags (the fast
    compilation tests/conftest.py sets)."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}"
    return dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=flags.strip())


def _start_layout(tmp_path, devices, member, data):
    out = tmp_path / f"d{devices}_m{member}_x{data}"
    env = _environment(devices)
    code = SCRIPT.format(root=str(ROOT), member=member, data=data, out=str(out))
    return out, [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT)]


def _finals(started):
    """Wait for a started run's processes; the finals each wrote, a list per process."""
    out, runs = started
    assert [run.wait(timeout=600) for run in runs] == [0] * len(runs)
    return [json.loads((out / f"finals_{i}.json").read_text()) for i in range(len(runs))]


def _metrics(finals):
    keys = sorted(k for k in finals[0] if k.startswith("eval/"))
    return np.array([[f[k] for k in keys] for f in finals])


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    """Every run of this module's tiny cohort, started at once: 'one' device, each
    8-device (member, data) layout, and 'two' processes over localhost."""
    root = tmp_path_factory.mktemp("layouts")
    started = {"one": _start_layout(root, 1, 1, 1), "two": _start_two_processes(root)}
    started |= {layout: _start_layout(root, 8, *layout) for layout in LAYOUTS}
    yield started
    for _, runs in started.values():  # a test that failed early leaves none behind
        for run in runs:
            run.kill()
            run.wait()


@pytest.fixture(scope="module")
def one_device(layouts):
    return _finals(layouts["one"])[0]


@pytest.mark.parametrize("member, data", LAYOUTS)
def test_an_8_device_mesh_matches_one_device(layouts, one_device, member, data):
    finals = _finals(layouts[member, data])[0]
    assert finals[0]["count"] == 8
    assert finals[0]["mesh"] == {"member": member, "data": data}
    assert finals[0]["members_sharded"]
    np.testing.assert_allclose(_metrics(finals), _metrics(one_device), rtol=2e-4, atol=1e-6)
    assert len({f["eval/loss/len1-4"] for f in finals}) == 8  # eight different seeds


TWO_PROCESS_SCRIPT = """
import json, sys
sys.path.insert(0, {root!r})
from attention_research.training.mesh import initialize_distributed
initialize_distributed({address!r}, 2, {process})
import jax
from tests.conftest import tiny_config
from attention_research import sweeps
from attention_research.training.sweep import run_sweep
config = tiny_config()
config.train.num_heatmaps = 0  # as SCRIPT's runs, which these are compared with
summaries = run_sweep(config, sweeps.axis("config.seed", range(8)), {out!r}, progress=False)
json.dump([dict(s["members"][0]["final"], **s["devices"]) for s in summaries],
          open({out!r} + "/finals_{process}.json", "w"))
"""


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_two_processes(tmp_path):
    out, address = tmp_path / "two", f"127.0.0.1:{_free_port()}"
    env = _environment(2)
    return out, [subprocess.Popen(
        [sys.executable, "-c", TWO_PROCESS_SCRIPT.format(root=str(ROOT), address=address,
                                                         process=i, out=str(out))],
        env=env, cwd=ROOT) for i in range(2)]


def test_two_processes_over_localhost_match_one_process(layouts, one_device):
    """Two processes of 2 CPU devices each form one 4-device mesh over gloo; they share
    the work directory, only process 0 writes, and the results equal one process's."""
    out = layouts["two"][0]
    finals = _finals(layouts["two"])
    assert finals[0][0]["processes"] == 2 and finals[0][0]["count"] == 4
    assert finals[0][0]["mesh"] == {"member": 4, "data": 1}
    np.testing.assert_allclose(_metrics(finals[0]), _metrics(one_device), rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(_metrics(finals[1]), _metrics(finals[0]))
    assert (out / "summary.md").exists()
    lines = (out / "members" / "seed-0" / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines))  # one writer: no line twice


TRANSLATION_SCRIPT = """
import json, sys
sys.path.insert(0, {root!r})
{distributed}
from tests.conftest import tiny_translation_config
from attention_research import sweeps
from attention_research.training.sweep import run_sweep
config = tiny_translation_config({data_dir!r})
config.mesh.member, config.mesh.data = {member}, {data}
summaries = run_sweep(config, sweeps.axis("config.seed", range(4)), {out!r}, progress=False)
json.dump([dict(s["members"][0]["final"]) for s in summaries],
          open({out!r} + "/finals_{process}.json", "w"))
"""


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


def _start_translation(tmp_path, data_dir, devices, member, data, processes=1):
    """Start the processes of one tiny translation sweep (``_finals`` waits for them),
    so that independent layouts run side by side."""
    out, address = tmp_path / f"t{devices}_{member}x{data}_{processes}", f"127.0.0.1:{_free_port()}"
    env = _environment(devices // processes)
    runs = []
    for process in range(processes):
        distributed = ("from attention_research.training.mesh import initialize_distributed\n"
                       f"initialize_distributed({address!r}, {processes}, {process})"
                       if processes > 1 else "")
        code = TRANSLATION_SCRIPT.format(root=str(ROOT), distributed=distributed,
                                         data_dir=str(data_dir), member=member, data=data,
                                         out=str(out), process=process)
        runs.append(subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT))
    return out, runs


def test_translation_batches_shard_over_devices_and_processes(translation_data, tmp_path):
    """Pipeline batches placed on a 2x2 mesh (members and rows split), and two processes
    that each build only their members' batches, give the one-device results."""
    def values(finals):
        keys = sorted(k for k in finals[0] if "loss" in k or "bleu" in k)
        return np.array([[f[k] for k in keys] for f in finals])
    started = [_start_translation(tmp_path, translation_data, 1, 1, 1),
               _start_translation(tmp_path, translation_data, 4, 2, 2),
               _start_translation(tmp_path, translation_data, 4, 4, 1, processes=2)]
    (one,), (grid,), two = (_finals(run) for run in started)
    np.testing.assert_allclose(values(grid), values(one), rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(values(two[0]), values(one), rtol=2e-4, atol=1e-5)
    assert len({f["eval/loss/validation"] for f in one}) == 4  # four different seeds
