"""Tasks, registered by name: the symbol tasks sampled on device (``copy``,
``reverse``, ``sort``, ``substitute``) and ``translation`` on a real corpus. Each implements the Task protocol
(``protocol.py``); the training loop, the config checks, the evaluations and the sweep
reports ask this registry and name no task. Adding a task: one module, one entry in ``TASKS``, its tests.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from attention_research.errors import ConfigError, did_you_mean
from attention_research.tasks.protocol import Task

# name -> (module, class). A task's module is imported when the task is first asked
# for: a run of a symbol task never imports translation's corpus readers
# (tensorflow-datasets, about 0.4 s of a start; issue 39).
_WHERE = {"copy": ("attention_research.tasks.synthetic", "Copy"),
          "reverse": ("attention_research.tasks.synthetic", "Reverse"),
          "sort": ("attention_research.tasks.sort", "Sort"),
          "substitute": ("attention_research.tasks.substitute", "Substitute"),
          "translation": ("attention_research.tasks.translation.task", "Translation")}


class _Registry(Mapping):
    """The tasks by name, each class imported on first access."""

    def __getitem__(self, name: str) -> type:
        module, cls = _WHERE[name]
        task = getattr(importlib.import_module(module), cls)
        assert task.name == name, (task.name, name)
        return task

    def __iter__(self):
        return iter(_WHERE)

    def __len__(self):
        return len(_WHERE)


TASKS: Mapping[str, type] = _Registry()
DEFAULT_TASK = "reverse"  # what a config runs when its argument names no task


def task_names() -> list[str]:
    return list(TASKS)


def get_task(name: str) -> type:
    """The task class registered under ``name``; unknown names are refused with the choices."""
    if name not in TASKS:
        raise ConfigError(f"task.name={name!r} is not known{did_you_mean(name, TASKS)}; "
                          f"valid choices: {', '.join(TASKS)}")
    return TASKS[name]


__all__ = ["DEFAULT_TASK", "TASKS", "Task", "get_task", "task_names"]
