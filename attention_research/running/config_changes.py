"""Which config fields may differ between a saved run and the config that resumes it
(or a sweep member and the run it is recorded or adopted as): the resource fields
(how much is computed at once, never what), the fields added after runs were
written (read as the value that gives those runs' behaviour), and the training fields
``--resume_with`` may change on purpose. ``check_checkpoint_config`` refuses a
checkpoint of another run before anything is touched."""

from __future__ import annotations

import json

from attention_research.errors import RunError

# Fields that set how much is computed at once, never what is computed: a run may
# resume with another value (e.g. a smaller evaluation chunk after running out of
# memory), and config.json then records the new one. A member trained in a cohort of
# any size gives the metrics it gives alone (tests/test_sweeps.py), so the cohort cap
# is one of them; so is how hard XLA optimises (train.fast_compile: the same program,
# equal up to float rounding). So is where a built-in corpus's raw files are
# (task.data_path): they are read once, when its TFDS dataset is prepared, and
# Multi30k's are pinned by checksum, so a member trained from one copy (a GPU machine's)
# resumes or is recorded beside members trained from another.
# So is the setting a sweep's report measures the others against (baseline): it is read
# by the report alone, so an experiment may name it after its members are trained.
RESOURCE_FIELDS = frozenset({"task.eval_batch_size", "analysis.batch_size",
                             "max_cohort_members", "train.fast_compile", "task.data_path",
                             "baseline"})

# Fields added after runs were written, with the value that gives the behaviour those
# runs had: a config.json without one of them is read as holding that value, so a run
# (or a sweep member) begun before the field existed still resumes.
ADDED_FIELDS = {
    "model.attention.hard.reward": "token",
    "model.attention.hard.soft_unit": "step",
    "model.attention.hard.test_context": "argmax",
    "train.gradient_batches": 0,
    "train.gradient_alt_soft_fraction": -1.0,
    "train.gradient_score_term": False,
    "train.curve_eval_every": 0,
    "task.eval_range_ends": [],
    "train.label_smoothing": 0.0,
    "model.token_dropout": 0.0,
    "model.tie_embeddings": "none",
    "task.batch_tokens": 0,
    "task.subword_alpha": 0.0,
    "task.subword_nbest": 64,
    "train.best_metric": "",
    "train.patience": 0,
    "train.average_last": 0,
    "model.attention.normalizer": "softmax",
    "model.max_relative_distance": 16,
    "model.attention.location_filters": 10,
    "model.attention.location_width": 201,
    "model.attention.coverage_loss": 0.0,
    "model.attention.coverage_loss_from": 0.0,
    "task.coverage_penalty": 0.0,
    "task.eval_sentences": 0,
    "task.also_translate": [],
    "task.length_penalty_search": [],
    "task.length_penalty_min_ratio": 0.0,
    "task.length_penalty_long_words": 16,
    "task.length_penalty_select": "bleu",
    "train.fast_compile": False,
    "model.attention.monotonic.bias": -4.0,
    "model.attention.monotonic.noise": 1.0,
    "model.pointer_generator": False,
    # The implicit analysis (training/held_out.py) is off ('') in every run before it.
    "analysis.implicit": "",
    "analysis.steps": 32,
    "analysis.target_steps": 1,
    "analysis.rollout_residual": 0.5,
    "baseline": "",
}


class ConfigMismatchError(RunError):
    """The work directory holds a run of another config."""


# The fields a resume may change on purpose (``--resume_with``): how long and how
# fast a run trains and how it is watched. Not the model, the task, the optimiser's
# kind or what its state holds: the checkpoint could not be the same run under those.
CHANGEABLE_PREFIX = "train."
UNCHANGEABLE_FIELDS = frozenset({"train.optimizer", "train.best_metric",
                                 "train.steps_per_call"})


def config_differences(saved: dict, config) -> list[tuple[str, object, object]]:
    """(field, saved, now) for every field in which ``config`` differs from ``saved`` (a
    config as JSON; a field it lacks is read from ``ADDED_FIELDS``), resource fields
    included."""
    now = flatten(json.loads(config.to_json()))
    saved = {**{k: v for k, v in ADDED_FIELDS.items() if k in now}, **flatten(saved)}
    return [(k, saved.get(k), now.get(k)) for k in sorted(set(saved) | set(now))
            if saved.get(k) != now.get(k)]


def parse_resume_with(text: str, config) -> frozenset:
    """The fields ``--resume_with`` names (comma-separated), each checked to be a
    field of ``config`` that a resume may change."""
    fields = frozenset(f.strip() for f in text.split(",") if f.strip())
    known = flatten(json.loads(config.to_json()))
    for field in sorted(fields - {"mesh"}):  # 'mesh': another device mesh (segments.py)
        if field not in known:
            close = sorted(k for k in known if k.startswith(CHANGEABLE_PREFIX)
                           and k not in UNCHANGEABLE_FIELDS)
            raise RunError(f"--resume_with names {field!r}, which is no field of the "
                           f"config; the fields a resume may change: {', '.join(close)}")
        if not field.startswith(CHANGEABLE_PREFIX) or field in UNCHANGEABLE_FIELDS:
            raise RunError(f"--resume_with cannot change {field}: a checkpoint trained "
                           f"under another value is another run. Only {CHANGEABLE_PREFIX}* "
                           f"fields may change, except {', '.join(sorted(UNCHANGEABLE_FIELDS))}"
                           "; pass another --workdir to train afresh.")
    return fields


def _listed(differences) -> str:
    return ", ".join(f"{k}: was {a!r}, now {b!r}" for k, a, b in differences)


def check_checkpoint_config(saved: list[dict] | None, configs, step: int, where,
                            changeable=frozenset()) -> list[list[tuple]]:
    """Refuse to resume the checkpoint of ``step`` (in ``where``) unless each member's
    config (``configs``) is the one it was trained with (``saved``, from the checkpoint)
    up to ``RESOURCE_FIELDS`` and the ``changeable`` fields (``--resume_with``); returns
    each member's changes in those fields. ``saved`` None (a checkpoint from before they
    were kept) checks nothing here: config.json is checked instead."""
    if saved is None:
        return [[] for _ in configs]
    if len(saved) != len(configs):
        raise ConfigMismatchError(
            f"the checkpoint of step {step} in {where} holds {len(saved)} member(s), this "
            f"run {len(configs)}: it is of another run. Nothing was changed; pass another "
            "--workdir.")
    changes = []
    for member, (was, config) in enumerate(zip(saved, configs)):
        differences = [d for d in config_differences(was, config)
                       if d[0] not in RESOURCE_FIELDS]
        refused = [d for d in differences if d[0] not in changeable]
        if refused:
            who = f" (member {member}, {config.name})" if len(configs) > 1 else ""
            structural = [d for d in refused if not d[0].startswith(CHANGEABLE_PREFIX)
                          or d[0] in UNCHANGEABLE_FIELDS]
            if structural:
                raise ConfigMismatchError(
                    f"the checkpoint of step {step} in {where}{who} is of another model or "
                    f"task ({_listed(refused)}). It is intact and was left as it is: rerun "
                    "with its values, or pass another --workdir.")
            raise ConfigMismatchError(
                f"the checkpoint of step {step} in {where}{who} was trained with another "
                f"config ({_listed(refused)}). Nothing was changed: rerun with its values, "
                "pass another --workdir, or, to change them from this step on, add "
                f"--resume_with={','.join(d[0] for d in refused)}.")
        changes.append(differences)
    return changes


def flatten(tree, prefix=""):
    """{'a': {'b': 1}} -> {'a.b': 1}."""
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
