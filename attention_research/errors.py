"""ConfigError and the two checks every config fragment is validated with.

Kept apart from ``config_checks`` so that the registries (tasks, model families),
which validate their own fragments, need not import the module that imports them.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """An unknown name or an impossible value in a config, found before anything runs."""


def choice(value, valid, field: str):
    """Refuse ``value`` unless it is one of ``valid``, naming the field and the choices."""
    if value not in valid:
        raise ConfigError(f"{field}={value!r} is not known; valid choices: {', '.join(valid)}")


def require(condition, message: str):
    if not condition:
        raise ConfigError(message)
