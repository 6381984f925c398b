"""The segments of a run: each process that trained part of it, with the steps and the
wall time it trained and what it ran on (the code's commit and whether the checkout had
changes, the software, the devices and their mesh, the host). A checkpoint keeps the
segments that led to it, so summary.json names every segment of a resumed run, not only
the last (issue 72: a run begun on 4 devices and resumed on 1 said "1 device"; one
resumed after a commit named only the new commit).

A resume under another commit, another JAX or jaxlib, other devices or other XLA flags
(``train.fast_compile`` sets some) is announced in one line. Under another mesh it is refused unless ``--resume_with=mesh`` accepts it: a
batch split over other devices sums its gradients in another order, so the run would not
be the one it resumes (docs/scaling.md).
"""

from __future__ import annotations

import os
import socket
import time

import jax

from attention_research.errors import RunError
from attention_research.running import peaks
from attention_research.running.provenance import code_version, software_versions

MESH = "mesh"  # the --resume_with word that accepts another mesh


class MeshChangedError(RunError):
    """A resume on another mesh than the one the checkpoint was trained on."""


def environment(mesh_shape: dict) -> dict:
    """What this process trains on: code, software, devices and mesh, host."""
    device = jax.devices()[0]
    return {"code": code_version(), "software": software_versions(),
            # XLA's own settings (train.fast_compile's flags among them) compile another
            # program, whose floats part as another mesh's do (results/device_parity).
            "xla_flags": os.environ.get("XLA_FLAGS", ""),
            "devices": {"count": jax.device_count(), "platform": device.platform,
                        "kind": device.device_kind, "processes": jax.process_count(),
                        "mesh": {str(k): int(v) for k, v in mesh_shape.items()}},
            "host": {"name": socket.gethostname(),
                     **({"cpu": peaks.cpu_description()} if device.platform == "cpu" else {})}}


def _words(value) -> str:
    return "x".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) \
        else str(value)


def differences(was: dict, now: dict) -> list[tuple[str, object, object]]:
    """(what, was, now) for each way ``now``'s environment differs from ``was``'s that
    can change a run's numbers: the commit, changes in the checkout, JAX and jaxlib,
    the devices, the mesh, XLA's flags."""
    def get(entry, *path):
        for key in path:
            entry = (entry or {}).get(key)
        return entry
    fields = [("commit", ("code", "commit")), ("changed checkout", ("code", "changed")),
              ("jax", ("software", "jax")), ("jaxlib", ("software", "jaxlib")),
              ("devices", ("devices", "count")), ("platform", ("devices", "platform")),
              ("device kind", ("devices", "kind")), ("processes", ("devices", "processes")),
              (MESH, ("devices", "mesh")), ("XLA_FLAGS", ("xla_flags",))]
    recorded = [(name, path) for name, path in fields  # a field the segment before
                if path[0] in was]                         # lacks was not kept then
    found = [(name, get(was, *path), get(now, *path)) for name, path in recorded
             if get(was, *path) != get(now, *path)]
    return [(name, *(v[:7] if name == "commit" and isinstance(v, str) else v for v in pair))
            for name, *pair in found]


class Segments:
    """A cohort's segments: those its checkpoint recorded, and this process's."""

    def __init__(self):
        self.earlier: list[dict] = []
        self.current: dict | None = None
        self.started = time.time()

    def begin(self, step: int, earlier: list[dict] | None, mesh_shape: dict,
              accept_mesh: bool = False) -> str | None:
        """Start this process's segment at ``step`` after ``earlier`` (the checkpoint's;
        None: a checkpoint from before segments were kept). Returns the line to print
        when it runs on anything that differs from the segment before; raises
        MeshChangedError on another mesh, unless ``accept_mesh``."""
        self.current = {"from_step": int(step), **environment(mesh_shape)}
        self.started = time.time()
        self.earlier = list(earlier or [])
        if step and earlier is None:  # trained before segments were kept
            self.earlier = [{"from_step": 0, "to_step": int(step), "recorded": False}]
        if not step or not self.earlier or self.earlier[-1].get("recorded") is False:
            return None
        changed = differences(self.earlier[-1], self.current)
        mesh = [d for d in changed if d[0] == MESH]
        if mesh and not accept_mesh:
            raise MeshChangedError(
                f"the checkpoint of step {step} was trained on a mesh of "
                f"{_words(mesh[0][1])} ({self.earlier[-1]['devices']['count']} device(s)); "
                f"this process has {_words(mesh[0][2])} ({self.current['devices']['count']})."
                " A batch split over other devices sums in another order, so it would not be "
                "the same run. Nothing was changed: rerun on the devices it trained on, pass "
                f"another --workdir, or add --resume_with={MESH} to go on and record it")
        if not changed:
            return None
        return (f"resuming at step {step} on another setup than the segment before "
                f"({'; '.join(f'{what}: {_words(a)} -> {_words(b)}' for what, a, b in changed)})"
                ": summary.json's segments record both")

    def until(self, step: int) -> list[dict]:
        """Every segment, this process's ending at ``step`` now."""
        if self.current is None:
            return list(self.earlier)
        now = {**self.current, "to_step": int(step),
               "wall_time_s": round(time.time() - self.started, 1)}
        return [*self.earlier, now]
