"""Refuse unknown names and impossible values before anything compiles or is written."""

from __future__ import annotations

from attention_research import attention, models, tasks
from attention_research.training.state import OPTIMIZERS, SCHEDULES


class ConfigError(ValueError):
    pass


def _choice(value, valid, field):
    if value not in valid:
        raise ConfigError(f"{field}={value!r} is not known; valid choices: {', '.join(valid)}")


def _require(condition, message):
    if not condition:
        raise ConfigError(message)


def validate(config):
    """Raise ConfigError naming the field, the value and what is allowed."""
    task, model, train = config.task, config.model, config.train
    _choice(task.name, tasks.TASKS, "task.name")
    _require(task.num_symbols >= 1, f"task.num_symbols must be >= 1, got {task.num_symbols}")
    _require(1 <= task.train_min_length <= task.train_max_length,
             f"need 1 <= task.train_min_length <= task.train_max_length, got "
             f"{task.train_min_length} and {task.train_max_length}")
    _require(task.eval_max_length >= task.train_max_length,
             f"task.eval_max_length ({task.eval_max_length}) must be >= "
             f"task.train_max_length ({task.train_max_length})")
    _require(task.eval_examples_per_length >= 1, "task.eval_examples_per_length must be >= 1")

    _choice(model.family, models.MODELS, "model.family")
    _choice(model.cell, models.CELLS, "model.cell")
    _choice(model.decoder_style, models.DECODER_STYLES, "model.decoder_style")
    _choice(attention.ALIASES.get(model.attention.score, model.attention.score),
            [*attention.SCORES, attention.NO_ATTENTION], "model.attention.score")
    _choice(model.attention.alignment, attention.ALIGNMENTS, "model.attention.alignment")
    for field in ("embed_dim", "hidden_size", "num_layers"):
        _require(model[field] >= 1, f"model.{field} must be >= 1, got {model[field]}")
    _require(model.attention.dim >= 1, f"model.attention.dim must be >= 1, got {model.attention.dim}")
    _require(not model.bidirectional or model.hidden_size % 2 == 0,
             f"a bidirectional encoder splits model.hidden_size between its two directions, "
             f"so it must be even; got {model.hidden_size}")
    _require(0.0 <= model.dropout < 1.0, f"model.dropout must be in [0, 1), got {model.dropout}")
    _require(model.max_source_length == 0 or model.max_source_length >= task.eval_max_length,
             f"model.max_source_length ({model.max_source_length}) must be 0 (use "
             f"task.eval_max_length) or cover the longest held-out source, "
             f"task.eval_max_length ({task.eval_max_length})")

    _choice(train.optimizer, OPTIMIZERS, "train.optimizer")
    _choice(train.schedule, SCHEDULES, "train.schedule")
    for field in ("batch_size", "num_steps", "steps_per_call", "log_every", "eval_every",
                  "checkpoint_every"):
        _require(train[field] >= 1, f"train.{field} must be >= 1, got {train[field]}")
    _require(train.learning_rate > 0, f"train.learning_rate must be > 0, got {train.learning_rate}")
    _require(train.grad_clip_norm > 0, f"train.grad_clip_norm must be > 0, got {train.grad_clip_norm}")
    _require(0 <= train.warmup_steps < train.num_steps,
             f"train.warmup_steps ({train.warmup_steps}) must be in [0, train.num_steps="
             f"{train.num_steps})")
    _require(train.num_heatmaps >= 0, "train.num_heatmaps must be >= 0")
    # Logs, evaluations and checkpoints fall between jit calls, so they must line up
    # with them; a checkpoint at a log step makes resumed logs equal uninterrupted ones.
    spc = train.steps_per_call
    for field in ("num_steps", "log_every", "eval_every", "checkpoint_every"):
        _require(train[field] % spc == 0,
                 f"train.{field} ({train[field]}) must be a multiple of train.steps_per_call ({spc})")
    _require(train.checkpoint_every % train.log_every == 0,
             f"train.checkpoint_every ({train.checkpoint_every}) must be a multiple of "
             f"train.log_every ({train.log_every})")
