"""The names a report gives a sweep's settings: a member's name without its seed
(``setting_name``), a short name for a person ('Transformer · RoPE',
``display_names``), the setting the others are read against (``baseline``) and the
small multiples a report draws them in (``panels``)."""

from __future__ import annotations

from attention_research.reports import plotting
from attention_research.running import names


def setting_name(member_name: str) -> str:
    """A member's name without its seed: members that differ only by seed share it."""
    parts = [p for p in member_name.split("_") if not p.startswith("seed-")]
    return "_".join(parts) or "base"


def setting_of(member) -> str:
    return setting_name(member.name)


# How a report shows a setting's parts (``display_name``): by value, or as a phrase.
_DISPLAYED_VALUES = {
    "family": {"transformer": "Transformer", "decoder_only": "decoder-only", "rnn": "RNN"},
    "positions": {"rope": "RoPE", "alibi": "ALiBi", "nope": "NoPE"},
}
_BARE_VALUES = ("score", "alignment", "normalizer", "cell", "decoder_style", "task")


def display_names(settings, config) -> dict[str, str]:
    """Each setting's short name for a person: 'family-transformer_positions-rope' ->
    'Transformer · RoPE', 'score-additive_alignment-local_m' -> 'additive · local_m',
    'pointer_generator-True' -> 'pointer-generator' (its parts by
    ``names.parser``; a name that does not parse is shown as it is). A part
    every setting of its group holds (the settings that begin with the same part, two
    or more) is left out: the Transformers of compare_attention all have scaled_dot, 4
    heads and 2 layers, and read 'Transformer · RoPE'."""
    parse = names.parser(config)
    parts = {s: parse(s) for s in settings}
    groups = {}
    for found in parts.values():
        if found:
            groups.setdefault(found[0], []).append(set(found[1:]))
    shown = {}
    for setting, found in parts.items():
        group = groups.get(found[0], []) if found else []
        shared = set.intersection(*group) if len(group) > 1 else set()
        shown[setting] = (" · ".join(_shown(*part) for part in
                                     [found[0], *(p for p in found[1:] if p not in shared)])
                          if found else setting)
    return shown


def readable_names(settings, config) -> dict[str, str]:
    """``display_names`` where they tell every setting apart (and a config is given),
    else the settings' own names: the names a report's tables and verdicts show."""
    settings = list(settings)
    shown = display_names(settings, config) if config is not None else {}
    if len(set(shown.values())) < len(settings):
        return {s: s for s in settings}
    return shown


def _shown(key: str, value: str) -> str:
    """One (short field, value) part of a setting's name, as a person reads it."""
    if key in _DISPLAYED_VALUES:
        return _DISPLAYED_VALUES[key].get(value, value)
    if key in _BARE_VALUES:
        return value
    words = key.replace("_", " ")
    if value in ("True", "False"):
        return words.replace(" ", "-") if value == "True" else f"no {words}"
    if key in ("num_heads", "num_layers"):
        return f"{value} {words.removeprefix('num ')}"
    return f"{words} {value}"


def setting_groups(settings, config) -> dict[str, list[str]]:
    """The panels of a report's small multiples (``plotting.Panels``): settings that vary
    the same thing together (scores alone; alignments; normalisers; a Transformer's
    positions), by the field of each setting's second part; groups of one go to
    'other'."""
    titles = {"alignment": "alignments", "normalizer": "normalisers"}
    parse, groups = names.parser(config), {}
    for setting in settings:
        parts = parse(setting)
        if not parts:
            title = "other"
        elif parts[0][0] == "family":
            title = _shown(*parts[0])
        elif len(parts) == 1:
            title = "scores"
        else:
            title = titles.get(parts[1][0], parts[1][0].replace("_", " "))
        groups.setdefault(title, []).append(setting)
    merged = {}
    for title, members in groups.items():
        merged.setdefault(title if len(members) > 1 else "other", []).extend(members)
    return merged


def baseline(settings, config) -> str:
    """The setting of ``settings`` (names without the task) that the others are read
    against: the one the experiment names (``config.baseline``), else the first."""
    named = config.get("baseline", "") if config is not None else ""
    return named if named in settings else settings[0]


def panels(settings, config) -> plotting.Panels:
    """Small multiples of ``settings`` (labels without the task), the ``baseline`` the
    reference drawn in grey in each."""
    return plotting.Panels(setting_groups(settings, config), baseline(settings, config),
                           display_names(settings, config))
