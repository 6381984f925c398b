"""Orbax checkpoints of the stacked train state, each saved with a checksum.

A checkpoint is trusted only if it restores *and* its contents match the
fingerprint recorded when it was saved, and every value is finite. A torn or
overwritten data file can restore without an error from orbax, so the fingerprint
is the check that catches it. When a checkpoint fails these checks, nothing is
deleted: the error names the step and the newest older checkpoint that passes them.

Saves are asynchronous (they overlap training), and the loop calls ``check`` at
every log, which waits for a pending save and raises if it failed (a full disk, a
permission error). Training therefore stops at the first log after a failed save.
Synchronous saves were tried: on the 2-core CPU they left the run about 10% slower
after its first checkpoint. ``save`` refuses a non-finite state, and every
checkpoint on disk is finite, so ``max_to_keep`` can never delete the last finite
one.

Each checkpoint also keeps the config of every member it trained, so that a resume is
checked against what the checkpoint *is* (``config_changes.check_checkpoint_config``), not
only against the side file config.json. A checkpoint that is not ``regular`` (saved on
a stop, ``running/preemption.py``) is deleted once a newer regular one is saved.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

from attention_research.errors import RunError, explain
from attention_research.training.health import all_finite
from attention_research.training.mesh import fetch


class CheckpointError(RunError):
    pass


def _words(leaf):
    """A leaf's bits as flat uint32 words (one per element)."""
    leaf = jnp.ravel(leaf)
    if leaf.dtype == jnp.bool_:
        leaf = leaf.astype(jnp.uint8)
    unsigned = {1: jnp.uint8, 2: jnp.uint16, 4: jnp.uint32}[leaf.dtype.itemsize]
    return jax.lax.bitcast_convert_type(leaf, unsigned).astype(jnp.uint32)


def member_fingerprint(state):
    """Two uint32 checksums of one member's state, position-weighted sums of its bits.

    Sums of uint32 wrap modulo 2**32, and modular addition does not depend on the
    order of the terms. The fingerprint is therefore exact and the same on any
    device and under any sharding. A changed value or two swapped values change it.
    """
    first = second = jnp.uint32(0)
    for leaf in jax.tree_util.tree_leaves(state):
        first, second = _fold(first, second, _words(leaf), jnp)
    return jnp.stack([first, second])


def _fold(first, second, words, xp):
    """One leaf's uint32 ``words`` folded into the two checksums, in ``xp`` (jax.numpy
    inside the jitted fingerprint, NumPy in ``host_fingerprints``): one formula, so the
    two agree word for word."""
    position = xp.arange(words.size, dtype=xp.uint32)
    first = first * xp.uint32(31) + xp.sum(
        words * (position * xp.uint32(2654435761) + xp.uint32(1)), dtype=xp.uint32)
    second = second * xp.uint32(37) + xp.sum(
        (words ^ xp.uint32(0x9E3779B9)) * (position * xp.uint32(40503) + xp.uint32(7))
        + (words >> xp.uint32(16)), dtype=xp.uint32)
    return first, second


@jax.jit
def inspect_members(state):
    """Per member of a stacked state: (fingerprint [M, 2] uint32, finite [M] bool)."""
    return jax.vmap(lambda member: (member_fingerprint(member), all_finite(member)))(state)


def host_fingerprints(state):
    """``inspect_members`` in NumPy on the host, word for word the same (uint32 sums
    wrap modulo 2**32 in NumPy as in XLA), for a state this process holds whole: no
    program to compile (about 2 s on the CPU, once per run; issue 39)."""
    leaves = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(jax.device_get(state))]
    members = leaves[0].shape[0] if leaves else 0
    fingerprints = np.zeros((members, 2), np.uint32)
    finite = np.ones(members, bool)
    with np.errstate(over="ignore"):  # the wrap-around is the definition
        for member in range(members):
            first = second = np.uint32(0)
            for leaf in leaves:
                values = leaf[member].ravel()
                if np.issubdtype(values.dtype, np.floating):
                    finite[member] &= bool(np.all(np.isfinite(values)))
                if values.dtype == np.bool_:
                    values = values.astype(np.uint8)
                unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32}[values.dtype.itemsize]
                first, second = _fold(first, second,
                                      values.view(unsigned).astype(np.uint32), np)
            fingerprints[member] = first, second
    return fingerprints, finite


def _inspect(state):
    """(fingerprint words per member, finite per member): on the host when this
    process holds every shard, else (several processes) with the jitted version."""
    if all(getattr(leaf, "is_fully_addressable", True)
           for leaf in jax.tree_util.tree_leaves(state)):
        fingerprints, finite = host_fingerprints(state)
    else:
        fingerprints, finite = fetch(inspect_members(state))
    return [[int(word) for word in member] for member in np.asarray(fingerprints)], finite


class Checkpoints:
    def __init__(self, directory, max_to_keep: int = 2, regular=lambda step: True,
                 read_only: bool = False):
        """``read_only``: for reading a trained run (attention_research/use/): nothing is
        created, saved or deleted."""
        self.directory = Path(directory).absolute()
        self.regular = regular  # step -> whether it is one of the run's regular saves
        absl_logger = logging.getLogger("absl")
        level = absl_logger.level
        if read_only:  # orbax warns that the directory is read-only: we asked for that
            absl_logger.setLevel(logging.ERROR)
        try:
            self.manager = ocp.CheckpointManager(
                self.directory, options=ocp.CheckpointManagerOptions(
                    max_to_keep=None if read_only else max_to_keep, create=not read_only,
                    read_only=read_only, enable_async_checkpointing=not read_only))
        finally:
            absl_logger.setLevel(level)
        self._pending = None  # the step of a save that may still be running

    def latest_step(self):
        return self.manager.latest_step()

    def all_steps(self) -> list[int]:
        return sorted(int(step) for step in self.manager.all_steps())

    def restore(self, step: int, template):
        """The checkpoint of ``step``, checked against its fingerprint; raises
        ValueError (or orbax's own errors) if it is unreadable or damaged.

        ``template``: the stacked train state, or (state, extra) for a checkpoint saved
        with an ``extra`` pytree (e.g. the best parameters so far); the fingerprint
        then covers both."""
        restored = self.manager.restore(step, args=ocp.args.Composite(
            state=ocp.args.StandardRestore(template), fingerprint=ocp.args.JsonRestore()))
        fingerprints, finite = _inspect(restored.state)
        expected = restored.fingerprint["members"]
        damaged = [m for m, (got, want) in enumerate(zip(fingerprints, expected)) if got != want]
        if len(fingerprints) != len(expected) or damaged:
            raise ValueError("its contents no longer match the checksum recorded when it "
                             f"was saved (member {', '.join(map(str, damaged))})")
        if not all(finite):
            raise ValueError("it holds non-finite values")
        return restored.state

    def restore_latest(self, template):
        """(state, step) from the newest checkpoint, or (template, 0) when there is none."""
        step = self.manager.latest_step()
        if step is None:
            return template, 0
        try:
            return self.restore(step, template), int(step)
        except Exception as error:  # orbax raises many types; all mean "cannot be trusted"
            other = self._other_shapes(step, template)
            if other:  # intact, but not of this model (a checkpoint saved without its config)
                raise CheckpointError(
                    f"the checkpoint of step {step} in {self.directory} is of another model: "
                    f"{other}. It is intact and was left as it is: rerun with the config it "
                    "was trained with, or pass another --workdir.") from error
            reason = (str(error).strip().splitlines() or [""])[0][:200]
            raise CheckpointError(
                f"the checkpoint of step {step} in {self.directory} cannot be used "
                f"({type(error).__name__}: {reason}). Nothing was deleted. "
                + self._advice(step, template)) from error

    def _other_shapes(self, step: int, template) -> str | None:
        """How the arrays of the checkpoint of ``step``, read as saved, differ in shape
        from ``template``'s; None if they do not, or cannot be read at all."""
        try:
            saved = self.manager.restore(step, args=ocp.args.Composite(
                state=ocp.args.StandardRestore())).state
        except Exception:  # noqa: BLE001 — unreadable: damaged, not another model
            return None
        shapes = lambda tree: sorted(tuple(np.shape(leaf))  # noqa: E731
                                     for leaf in jax.tree_util.tree_leaves(tree))
        was, now = shapes(saved), shapes(template)
        if was == now:
            return None
        first = next((a, b) for a, b in zip(was + [None] * len(now), now + [None] * len(was))
                     if a != b)
        return (f"its {len(was)} arrays have other shapes than this config's {len(now)} "
                f"(e.g. {first[0]} saved, {first[1]} now)")

    def _advice(self, bad_step: int, template) -> str:
        """Which older checkpoint is intact, and how to resume from it."""
        bad = self.directory / str(bad_step)
        for step in sorted(self.manager.all_steps(), reverse=True):
            if step >= bad_step:
                continue
            try:
                self.restore(step, template)
            except Exception:  # noqa: BLE001 — any failure: try an older one
                continue
            return (f"The checkpoint of step {step} is intact: move the damaged one away "
                    f"(mv {bad} {bad}.damaged) and rerun the same command to resume from "
                    f"step {step}.")
        return ("No older checkpoint is intact: move the damaged one away "
                f"(mv {bad} {bad}.damaged) to start afresh, or pass another --workdir.")

    def set_aside(self, steps) -> Path:
        """Move the checkpoints of ``steps`` into ``<directory>.unlogged/`` (kept, not
        deleted) and forget them: a resume from an older one retrains past them."""
        self.check()
        aside = self.directory.with_name(self.directory.name + ".unlogged")
        aside.mkdir(exist_ok=True)
        for step in steps:
            target = aside / str(step)
            if target.exists():  # set aside before: keep both
                target = aside / f"{step}-{int(time.time())}"
            shutil.move(str(self.directory / str(step)), str(target))
        self.manager.reload()
        return aside

    def check(self):
        """Wait for the pending save, if any; raise CheckpointError if it failed."""
        if self._pending is None:
            return
        step, self._pending = self._pending, None
        try:
            self.manager.wait_until_finished()
        except Exception as error:  # orbax re-raises the writer thread's error
            raise CheckpointError(f"the checkpoint of step {step} could not be saved: "
                                  f"{explain(error)}. The checkpoints saved before it "
                                  "are kept.") from error
        if self.regular(step):  # a stop's own checkpoint is no longer needed
            for older in self.all_steps():
                if older < step and not self.regular(older):
                    self.manager.delete(older)

    def _record(self, step: int) -> dict | None:
        """What the checkpoint of ``step`` keeps beside its state ({"members": configs,
        "segments": …}), or None: saved before checkpoints kept it, or unreadable (its
        state is then checked, and refused, by ``restore``)."""
        if not (self.directory / str(step) / "config").is_dir():
            return None
        try:
            restored = self.manager.restore(step, args=ocp.args.Composite(
                config=ocp.args.JsonRestore()))
            return dict(restored.config)
        except Exception:  # noqa: BLE001 — unreadable: the state's own check decides
            return None

    def saved_configs(self, step: int) -> list[dict] | None:
        """The config each member of the checkpoint of ``step`` was trained with, or None
        for a checkpoint saved before checkpoints kept them (or one whose copy is
        unreadable)."""
        record = self._record(step)
        return list(record["members"]) if record else None

    def saved_segments(self, step: int) -> list[dict] | None:
        """The segments of the run that led to the checkpoint of ``step``
        (running/segments.py), or None for one saved before checkpoints kept them."""
        record = self._record(step)
        return list(record["segments"]) if record and "segments" in record else None

    def save(self, step: int, state, configs: list[dict] | None = None,
             segments: list[dict] | None = None):
        """Start saving ``state`` with its fingerprint, the config of each member
        (``configs``), so that a resume can check it is the same run, and the run's
        ``segments`` so far; a non-finite state is refused."""
        self.check()
        fingerprints, finite = _inspect(state)
        if not all(finite):
            bad = [m for m, ok in enumerate(finite) if not ok]
            raise CheckpointError(
                f"refusing to save step {step}: member(s) {', '.join(map(str, bad))} hold "
                "non-finite values. The checkpoints already saved are kept.")
        items = {"state": ocp.args.StandardSave(state),
                 "fingerprint": ocp.args.JsonSave({"step": int(step), "members": fingerprints})}
        if configs is not None:
            items["config"] = ocp.args.JsonSave(
                {"members": configs, **({"segments": segments} if segments is not None else {})})
        self.manager.save(step, args=ocp.args.Composite(**items))
        self._pending = step

    def close(self):
        """Wait for anything pending, then release the manager. It raises nothing, so
        that it cannot hide the error a run is stopping with; ``check`` reports a
        failed save."""
        try:
            self.manager.wait_until_finished()
        except Exception:  # noqa: BLE001 — reported by check(), or by the error in flight
            pass
        self.manager.close()
