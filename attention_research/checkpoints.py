"""Orbax checkpoints of the stacked train state; restore refuses loudly, deletes nothing."""

from __future__ import annotations

from pathlib import Path

import orbax.checkpoint as ocp


class CheckpointError(RuntimeError):
    pass


class Checkpoints:
    def __init__(self, directory, max_to_keep: int = 2):
        self.directory = Path(directory).absolute()
        self.manager = ocp.CheckpointManager(
            self.directory, options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep,
                                                                 create=True))

    def latest_step(self):
        return self.manager.latest_step()

    def restore_latest(self, template):
        """(state, step) from the newest checkpoint, or (template, 0) when there is none."""
        step = self.manager.latest_step()
        if step is None:
            return template, 0
        try:
            state = self.manager.restore(step, args=ocp.args.StandardRestore(template))
        except Exception as error:  # orbax raises many types; all mean "unreadable"
            raise CheckpointError(
                f"the checkpoint of step {step} in {self.directory} cannot be restored "
                f"({type(error).__name__}: {error}). Nothing was deleted. Move that "
                f"step's folder away to resume from an earlier one, or pass another "
                f"--workdir to start afresh.") from error
        return state, int(step)

    def save(self, step: int, state):
        self.manager.save(step, args=ocp.args.StandardSave(state))

    def close(self):
        """Wait for pending asynchronous saves, then release the manager."""
        self.manager.wait_until_finished()
        self.manager.close()
