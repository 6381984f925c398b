"""How a sweep member is named, and how a name is read back into its settings.

A member's name joins its overrides as ``short field-value`` parts
('score-dot_seed-1', ``member_name``): the folder its run is written to, and the label
reports show (``reports.display_names`` reads it back with ``parser``). Kept
apart from ``sweeps`` so that reports can read names without the config checks.
"""

from __future__ import annotations

import re

from attention_research.running.config_changes import ADDED_FIELDS


def short_field(field: str) -> str:
    """The field's last name, or its parent's where the last says little (task.name)."""
    path = field.split(".")
    return path[-2] if path[-1] == "name" and len(path) > 1 else path[-1]


def value_text(value) -> str:
    """A value as a name shows it: exact (Python's shortest round-tripping repr of a
    float), and an exponent's sign kept: 1e+35 is '1e35', never '1e-35'."""
    return re.sub(r"e\+(\d)", r"e\1", str(value))


def member_name(overrides: dict) -> str:
    """{'config.model.attention.score': 'dot', 'config.seed': 1} -> 'score-dot_seed-1'."""
    parts = [f"{short_field(field)}-{value_text(value)}" for field, value in overrides.items()]
    return re.sub(r"[^A-Za-z0-9.=_-]+", "-", "_".join(parts)) or "base"


def compared_setting(name: str) -> str:
    """A member's (or setting's) name without its seed and task parts: the setting a
    report compares across tasks, and what ``config.baseline`` names
    ('score-dot_task-copy_seed-1' -> 'score-dot')."""
    parts = [p for p in name.split("_") if not p.startswith(("seed-", "task-"))]
    return "_".join(parts) or "base"


def parser(config):
    """``parts(name)``: a member or setting name split back into its (short field,
    value) parts, e.g. 'score-scaled_dot_num_heads-4' -> [('score', 'scaled_dot'),
    ('num_heads', '4')]. A part begins where a short name of one of ``config``'s fields
    is followed by '-' (both may hold '_', so the name alone is ambiguous); [] where
    none does. The pattern is built once, for all the names of a report."""
    # A record's config.json may predate a field the name holds: ADDED_FIELDS too.
    fields = {*_field_names(config), *ADDED_FIELDS}
    keys = sorted({short_field(field) for field in fields}, key=len, reverse=True)
    pattern = re.compile(r"(?:^|_)(" + "|".join(map(re.escape, keys)) + r")-")

    def parts(name: str) -> list[tuple[str, str]]:
        starts = list(pattern.finditer(name))
        if not starts or starts[0].start() != 0:
            return []
        ends = [m.start() for m in starts[1:]] + [len(name)]
        return [(m.group(1), name[m.end():end]) for m, end in zip(starts, ends)]
    return parts


def _field_names(config, prefix: str = "") -> list[str]:
    names = []
    for key, value in config.items():
        if hasattr(value, "items"):
            names += _field_names(value, f"{prefix}{key}.")
        else:
            names.append(f"{prefix}{key}")
    return names
