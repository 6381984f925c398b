"""Tasks, registered by name: the symbol tasks sampled on device (``copy``,
``reverse``, ``sort``, ``substitute``) and ``translation`` on a real corpus. Each implements the Task protocol
(``protocol.py``); the training loop, the config checks and the sweep reports ask this
registry and name no task. Adding a task: one module, one entry in ``TASKS``, its tests.
"""

from __future__ import annotations

from attention_research.errors import ConfigError, did_you_mean
from attention_research.tasks.protocol import Final, Run, Task
from attention_research.tasks.sort import Sort
from attention_research.tasks.substitute import Substitute
from attention_research.tasks.synthetic import Copy, Reverse
from attention_research.tasks.translation.task import Translation

TASKS: dict[str, type] = {task.name: task
                          for task in (Copy, Reverse, Sort, Substitute, Translation)}
DEFAULT_TASK = "reverse"  # what a config runs when its argument names no task


def task_names() -> list[str]:
    return list(TASKS)


def get_task(name: str) -> type:
    """The task class registered under ``name``; unknown names are refused with the choices."""
    if name not in TASKS:
        raise ConfigError(f"task.name={name!r} is not known{did_you_mean(name, TASKS)}; "
                          f"valid choices: {', '.join(TASKS)}")
    return TASKS[name]


__all__ = ["DEFAULT_TASK", "Final", "Run", "TASKS", "Task", "get_task", "task_names"]
