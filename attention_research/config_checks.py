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


def _validate_attention(model):
    attn = model.attention
    _require(attn.dim >= 1, f"model.attention.dim must be >= 1, got {attn.dim}")
    _require(attn.window >= 1, f"model.attention.window (D) must be >= 1, got {attn.window}")
    _require(attn.num_heads >= 1, f"model.attention.num_heads must be >= 1, got {attn.num_heads}")
    _require(attn.head_dim >= 0, f"model.attention.head_dim must be >= 0 (0: hidden_size / "
             f"num_heads), got {attn.head_dim}")
    _require(attn.head_dim > 0 or model.hidden_size % attn.num_heads == 0,
             f"model.attention.num_heads ({attn.num_heads}) must divide model.hidden_size "
             f"({model.hidden_size}), or set model.attention.head_dim")
    _require(not model.fused_attention or model.family == "transformer",
             "model.fused_attention applies to the transformer family only")
    _require(not (attn.alignment == "hard" and (attn.num_heads > 1 or attn.head_dim > 0)),
             "hard attention samples one position per query: use model.attention.num_heads=1 "
             "and model.attention.head_dim=0")
    hard = attn.hard
    _require(0.0 <= hard.soft_fraction <= 1.0,
             f"model.attention.hard.soft_fraction must be in [0, 1], got {hard.soft_fraction}")
    _require(0.0 <= hard.baseline_decay < 1.0,
             f"model.attention.hard.baseline_decay must be in [0, 1), got {hard.baseline_decay}")
    _require(hard.reinforce_weight >= 0 and hard.entropy_weight >= 0,
             "model.attention.hard.reinforce_weight and entropy_weight must be >= 0")


def _validate_transformer(model, score: str):
    try:
        models.check_transformer_attention(score, model.attention.alignment)
    except ValueError as error:
        raise ConfigError(f"model.attention: {error}") from None
    _choice(model.positions, models.POSITIONS, "model.positions")
    _require(model.ff_dim >= 1, f"model.ff_dim must be >= 1, got {model.ff_dim}")
    _require(not model.fused_attention or model.attention.score == "scaled_dot",
             "model.fused_attention computes scaled_dot attention only; set "
             "model.attention.score=scaled_dot or model.fused_attention=False")


def _validate_translation(task, train):
    _require(task.vocab_size >= 16, f"task.vocab_size must be >= 16, got {task.vocab_size}")
    buckets = list(task.length_buckets)
    _require(bool(buckets) and all(b >= 2 for b in buckets) and buckets == sorted(set(buckets)),
             f"task.length_buckets must be increasing widths >= 2, got {tuple(buckets)}")
    _require(task.eval_max_length >= buckets[-1],
             f"task.eval_max_length ({task.eval_max_length}) must be >= the longest "
             f"training bucket ({buckets[-1]})")
    bins = list(task.bleu_length_bins)
    _require(bool(bins) and bins[0] >= 1 and bins == sorted(set(bins)),
             f"task.bleu_length_bins must be increasing word counts >= 1 (each BLEU bucket's "
             f"last length), got {tuple(bins)}")
    for field in ("eval_batch_size", "beam_size"):
        _require(task[field] >= 1, f"task.{field} must be >= 1, got {task[field]}")
    _require(task.length_penalty >= 0, f"task.length_penalty must be >= 0, got "
             f"{task.length_penalty}")
    _choice(task.eval_split, ("validation", "test"), "task.eval_split")
    _require(task.num_samples >= 0, "task.num_samples must be >= 0")


def validate(config):
    """Raise ConfigError naming the field, the value and what is allowed."""
    task, model, train = config.task, config.model, config.train
    _require(config.max_cohort_members >= 0,
             f"max_cohort_members must be >= 0 (0: no limit), got {config.max_cohort_members}")
    _choice(task.name, (*tasks.TASKS, "translation"), "task.name")
    if task.name == "translation":
        _validate_translation(task, train)
    else:
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
    score = attention.ALIASES.get(model.attention.score, model.attention.score)
    _choice(score, [*attention.SCORES, attention.NO_ATTENTION], "model.attention.score")
    _choice(model.attention.alignment, attention.ALIGNMENTS, "model.attention.alignment")
    for field in ("embed_dim", "hidden_size", "num_layers"):
        _require(model[field] >= 1, f"model.{field} must be >= 1, got {model[field]}")
    _validate_attention(model)
    if model.family == "transformer":
        _validate_transformer(model, score)
    _require(model.family != "rnn" or not model.bidirectional or model.hidden_size % 2 == 0,
             f"a bidirectional encoder splits model.hidden_size between its two directions, "
             f"so it must be even; got {model.hidden_size}")
    _require(0.0 <= model.dropout < 1.0, f"model.dropout must be in [0, 1), got {model.dropout}")
    _require(model.max_source_length == 0 or model.max_source_length >= task.eval_max_length,
             f"model.max_source_length ({model.max_source_length}) must be 0 (use "
             f"task.eval_max_length) or cover the longest held-out source, "
             f"task.eval_max_length ({task.eval_max_length})")

    _require(config.mesh.member >= 0 and config.mesh.data >= 1,
             f"mesh.member must be >= 0 and mesh.data >= 1, got {config.mesh.member} and "
             f"{config.mesh.data}")
    _require(train.batch_size % config.mesh.data == 0,
             f"train.batch_size ({train.batch_size}) must be a multiple of mesh.data "
             f"({config.mesh.data}), the devices each batch is split over")
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
