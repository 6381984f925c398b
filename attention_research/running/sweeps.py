"""Sweeps: the members of an experiment and the cohorts that train them together.

An experiment file (``experiments/NAME.py``) defines ``get_config()`` and
``get_sweep()``, a list of override dicts such as ``{'config.seed': 1,
'config.model.attention.score': 'dot'}``; ``axis``, ``product`` and ``zip_axes``
build such lists. Each dict makes one *member*. Members whose configs differ
only in ``PER_MEMBER_FIELDS`` share shapes and code, so they form one *cohort*,
trained by one compiled ``jit(vmap(step))``; any other difference (the
attention, a size, the task) starts another cohort.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from attention_research.training.config_checks import ConfigError, validate
from attention_research.running.names import compared_setting, member_name, short_field
from attention_research.running.config_changes import ADDED_FIELDS, RESOURCE_FIELDS

# Values a cohort can hold per member: the seed, and the optimiser hyperparameters
# that live in the optimiser state (optax.inject_hyperparams).
PER_MEMBER_FIELDS = ("seed", "train.learning_rate", "train.weight_decay")
NOT_STRUCTURE = PER_MEMBER_FIELDS + ("name", "max_cohort_members", "baseline")


def axis(field: str, values) -> list[dict]:
    """One sweep axis: [{field: v} for v in values]."""
    return [{field: value} for value in values]


def product(*axes) -> list[dict]:
    """Every combination of the axes' settings (the Cartesian product)."""
    return [dict(itertools.chain.from_iterable(d.items() for d in combo))
            for combo in itertools.product(*axes)]


def zip_axes(*axes) -> list[dict]:
    """The axes' settings side by side; all axes must have the same length."""
    lengths = {len(a) for a in axes}
    if len(lengths) > 1:
        raise ValueError(f"zip_axes needs axes of one length, got lengths {sorted(lengths)}")
    return [dict(itertools.chain.from_iterable(d.items() for d in combo)) for combo in zip(*axes)]


def baseline_name(overrides: dict) -> str:
    """The name ``config.baseline`` gives a sweep's setting: its member name without seed
    and task ({'config.model.attention.score': 'additive', 'config.seed': 0} ->
    'score-additive')."""
    return compared_setting(member_name(overrides))


@dataclass
class Member:
    index: int
    name: str
    config: object  # ml_collections.ConfigDict
    workdir: Path
    overrides: dict = None  # what the sweep set: its settings (TensorBoard's hparams)

    def settings(self) -> dict:
        """The overrides by their short field names ('score': 'dot'), seed included."""
        return {short_field(field): value for field, value in (self.overrides or {}).items()}


def set_field(config, field: str, value, source: str = "sweep override"):
    """Set the dotted ``field`` ('config.model.dropout' or 'model.dropout') of ``config``,
    which must already have it; ``source`` names where the field came from in errors."""
    path = field.removeprefix("config.").split(".")
    node = config
    try:
        for part in path[:-1]:
            node = node[part]
        if path[-1] not in node:
            raise KeyError(path[-1])
        node[path[-1]] = value
    except (KeyError, AttributeError) as error:
        raise ConfigError(f"{source} {field!r}: the config has no field "
                          f"{'.'.join(path)!r}") from error
    except TypeError as error:
        raise ConfigError(f"{source} {field!r}={value!r}: {error}") from error


SMOKE_MEMBERS = 8  # a sweep's :tiny trains at most this many members
# ... and this many seeds of each setting (issue 71: with one, its report shows no
# interval); the seeds of a setting train together, so a second costs little.
SMOKE_SEEDS = 2


# What a smoke member takes from the tiny config, whatever its sweep sets: how long it
# trains, its vocabulary (a tiny corpus cannot train multi30k_recipe's 8,000 pieces,
# and a big vocabulary costs a smoke run minutes of subword training), and its sizes
# (fixed_vector's hidden 256 or multi30k_recipe's feed-forward 1024 are no smoke run).
SMOKE_TAKES_FROM_TINY = ("config.train.num_steps", "config.task.vocab_size",
                         "config.train.batch_size", "config.model.embed_dim",
                         "config.model.hidden_size", "config.model.ff_dim",
                         "config.model.attention.dim", "config.task.eval_max_length",
                         "config.task.eval_examples_per_length")


def smoke(sweep: list[dict], limit: int = SMOKE_MEMBERS, baseline: str = "") -> list[dict]:
    """The members a sweep's ``:tiny`` smoke run trains (issue 38: a tiny sweep that kept
    all its members ran for an hour): the first ``SMOKE_SEEDS`` seeds of each of its
    first settings on its first member's task, at most ``limit`` members, or, for a
    sweep of one setting, its first ``limit`` members; the ``baseline`` setting
    (``config.baseline``) first, so that the smoke run's report reads the others against
    it as the full one does. The fields
    of ``SMOKE_TAKES_FROM_TINY`` give way to the tiny config's, and settings that
    differed only in them are one setting here (multi30k_recipe's ``rnn_vocab8k`` is
    ``rnn``)."""
    first_seeds, distinct = {}, {}  # by setting name, by member name
    task = sweep[0].get("config.task.name") if sweep else None
    for overrides in sweep:
        if overrides.get("config.task.name") != task:  # one task: compare_attention's copy
            continue
        kept = {k: v for k, v in overrides.items() if k not in SMOKE_TAKES_FROM_TINY}
        if member_name(kept) in distinct:
            continue
        distinct[member_name(kept)] = kept
        seeds = first_seeds.setdefault(
            member_name({k: v for k, v in kept.items() if k != "config.seed"}), [])
        if len(seeds) < SMOKE_SEEDS:
            seeds.append(kept)
    if len(first_seeds) <= 1:
        return list(distinct.values())[:limit]
    settings = sorted(first_seeds.values(),  # stable: the rest in order
                      key=lambda seeds: baseline_name(seeds[0]) != baseline)
    # At most limit // SMOKE_SEEDS settings (4), as many as before seeds were doubled.
    chosen = [kept for seeds in settings[:max(limit // SMOKE_SEEDS, 1)] for kept in seeds]
    return chosen[:limit]


def check_baseline(baseline: str, members) -> None:
    """A ConfigError unless ``baseline`` ('' for the first setting) names a setting of
    ``members`` (``baseline_name``), listing them and the one probably meant."""
    settings = list(dict.fromkeys(compared_setting(m.name) for m in members))
    if baseline and baseline not in settings:
        import difflib
        close = difflib.get_close_matches(baseline, settings, n=1, cutoff=0.5)
        raise ConfigError(
            f"config.baseline={baseline!r} is no setting of this sweep"
            + (f" (did you mean {close[0]!r}?)" if close else "")
            + "; its settings (member names without seed and task): " + ", ".join(settings))


def _distinct_names(sweep: list[dict]) -> list[str]:
    """``member_name`` of each member; where two different settings would share a name
    (characters a folder name cannot hold, e.g. 'a b' and 'a-b'), each of them gets a
    digest of its overrides, so that no two settings are ever called the same."""
    names = [member_name(overrides) for overrides in sweep]
    settings = {}
    for name, overrides in zip(names, sweep):
        settings.setdefault(name, set()).add(json.dumps(overrides, sort_keys=True,
                                                        default=repr))
    return [name if len(settings[name]) == 1 else
            f"{name}_{_digest(json.dumps(overrides, sort_keys=True, default=repr))}"
            for name, overrides in zip(names, sweep)]


def expand(base_config, sweep: list[dict], workdir) -> list[Member]:
    """One validated Member per override dict, each with its own work directory."""
    if not sweep:
        raise ConfigError("get_sweep() returned no members")
    members, names = [], set()
    for index, (overrides, name) in enumerate(zip(sweep, _distinct_names(sweep))):
        config = copy.deepcopy(base_config)
        for field, value in overrides.items():
            set_field(config, field, value)
        try:
            validate(config)
        except ConfigError as error:
            raise ConfigError(f"sweep member {index} ({overrides}): {error}") from None
        if name in names:
            raise ConfigError(f"two sweep members have the same overrides: {overrides}")
        names.add(name)
        members.append(Member(index, name, config, Path(workdir) / "members" / name,
                              overrides))
    check_baseline(base_config.get("baseline", ""), members)
    return members


def structure_key(config) -> str:
    """The config without its per-member fields: equal keys can share one program."""
    return _structure_json(json.loads(config.to_json()))


def _structure_json(tree: dict, dropped=()) -> str:
    """``tree`` (a nested config dict) as JSON without ``NOT_STRUCTURE`` and ``dropped``."""
    tree = copy.deepcopy(tree)
    for field in NOT_STRUCTURE + tuple(dropped):
        *path, last = field.split(".")
        node = tree
        for part in path:
            node = node.get(part, {})
        node.pop(last, None)
    return json.dumps(tree, sort_keys=True)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def cohort_id(cohort: list[Member]) -> str:
    """A stable name for a cohort's checkpoint directory: its first member's index and a
    digest of its structure without the resource fields and without the fields added
    after runs began that hold the value those runs had (``config_changes.ADDED_FIELDS``), so
    that adding a config field leaves a half-trained cohort's checkpoints where its
    resumption looks."""
    tree = json.loads(cohort[0].config.to_json())
    dropped = set(RESOURCE_FIELDS)
    for field, default in ADDED_FIELDS.items():
        *path, last = field.split(".")
        node = tree
        for part in path:
            node = node.get(part, {})
        if last in node and node[last] == default:
            dropped.add(field)
    return f"cohort-{cohort[0].index:03d}-{_digest(_structure_json(tree, sorted(dropped)))}"


def legacy_cohort_ids(cohort: list[Member], saved: dict | None) -> list[str]:
    """The names a cohort's directory had before ``cohort_id`` left out the added fields
    (a digest of the whole structure): under ``saved``, the config its first member
    saved when the cohort began, then under the config now."""
    trees = ([saved] if saved else []) + [json.loads(cohort[0].config.to_json())]
    return [f"cohort-{cohort[0].index:03d}-{_digest(_structure_json(tree))}"
            for tree in trees]


def cohorts(members: list[Member], max_members: int = 0) -> list[list[Member]]:
    """Members grouped by structure, in order of first appearance; groups larger than
    ``max_members`` (if > 0) are split into consecutive cohorts of at most that many."""
    groups: dict[str, list[Member]] = {}
    for member in members:
        groups.setdefault(structure_key(member.config), []).append(member)
    size = max_members or len(members)
    return [group[i:i + size] for group in groups.values() for i in range(0, len(group), size)]
