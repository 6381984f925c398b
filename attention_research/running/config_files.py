"""Config and experiment files (``configs/*.py``, ``experiments/*.py``) loaded as modules.

``launch.py`` loads the file ``--config`` names (its sweep, its arguments for ``--help``),
``findings.py`` every experiment's ``findings``, and ``record.py`` the experiment a
record was launched from (its named baseline). They load a file, and call its
``get_config`` or ``get_sweep`` with the config argument (``FILE:ARGUMENT``), the same
way here.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from types import ModuleType


def load(path, module_name: str | None = None) -> ModuleType:
    """The Python file at ``path`` as a fresh module (not put in ``sys.modules``, so two
    loads of one file are independent); errors in the file propagate."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(module_name or f"_config_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call(function, argument: str | None):
    """``get_config`` or ``get_sweep`` given the config argument where it takes one (an
    empty argument is None, as ml_collections' config_flags passes it)."""
    if inspect.signature(function).parameters:
        return function(argument or None)
    return function()
