"""Refuse unknown names and impossible values before anything compiles or is written.

The generic fields are checked here; the task's fragment by its task and the model
family's fields by its family, both found through their registries.
"""

from __future__ import annotations

import math

from attention_research import attention
from attention_research.analysis import implicit
from attention_research.attention import reinforce
from attention_research.errors import ConfigError, choice, require
from attention_research.models import FAMILIES
from attention_research.models.embeddings import TIES
from attention_research.tasks import get_task
from attention_research.training.state import OPTIMIZERS, SCHEDULES
from attention_research.training.evaluation import evaluation_class

__all__ = ["ConfigError", "validate"]


def _validate_attention(model):
    attn = model.attention
    score = attention.ALIASES.get(attn.score, attn.score)
    choice(score, [*attention.SCORES, attention.NO_ATTENTION], "model.attention.score")
    choice(attn.alignment, attention.ALIGNMENTS, "model.attention.alignment")
    choice(attn.normalizer, attention.NORMALIZERS, "model.attention.normalizer")
    require(attn.dim >= 1, f"model.attention.dim must be >= 1, got {attn.dim}")
    require(attn.window >= 1, f"model.attention.window (D) must be >= 1, got {attn.window}")
    require(attn.num_heads >= 1, f"model.attention.num_heads must be >= 1, got {attn.num_heads}")
    require(attn.head_dim >= 0, f"model.attention.head_dim must be >= 0 (0: hidden_size / "
            f"num_heads), got {attn.head_dim}")
    require(attn.head_dim > 0 or model.hidden_size % attn.num_heads == 0,
            f"model.attention.num_heads ({attn.num_heads}) must divide model.hidden_size "
            f"({model.hidden_size}), or set model.attention.head_dim")
    alignment = attention.ALIGNMENTS[attn.alignment]
    why = ("reads where one query stopped at the previous step" if alignment.reads_history
           else "samples one position per query")
    require(alignment.multihead or not (attn.num_heads > 1 or attn.head_dim > 0),
            f"{attn.alignment} attention {why}: use model.attention.num_heads=1 and "
            f"model.attention.head_dim=0")
    require(not alignment.reads_history or attn.normalizer == "softmax",
            f"{attn.alignment} attention turns scores into weights by its own stopping "
            f"probabilities: set model.attention.normalizer=softmax, not {attn.normalizer!r}")
    require(attn.monotonic.noise >= 0, f"model.attention.monotonic.noise must be >= 0, got "
            f"{attn.monotonic.noise}")
    reads_history = score in attention.SCORES and attention.SCORES[score].reads_history
    require(not reads_history or not (attn.num_heads > 1 or attn.head_dim > 0),
            f"the {score} score reads the previous step's weights of one query: use "
            f"model.attention.num_heads=1 and model.attention.head_dim=0")
    require(attn.location_filters >= 1, f"model.attention.location_filters must be >= 1, "
            f"got {attn.location_filters}")
    require(attn.location_width >= 1 and attn.location_width % 2 == 1,
            f"model.attention.location_width must be odd (each filter is centred on a "
            f"position), got {attn.location_width}")
    require(attn.coverage_loss >= 0, f"model.attention.coverage_loss must be >= 0, got "
            f"{attn.coverage_loss}")
    require(attn.coverage_loss == 0 or score != attention.NO_ATTENTION,
            "model.attention.coverage_loss charges repeated attention; score 'none' attends "
            "nowhere: set it to 0 or choose a score")
    require(0.0 <= attn.coverage_loss_from < 1.0,
            f"model.attention.coverage_loss_from is the share of train.num_steps after which "
            f"the coverage loss is on: it must be in [0, 1), got {attn.coverage_loss_from}")
    hard = attn.hard
    require(0.0 <= hard.soft_fraction <= 1.0,
            f"model.attention.hard.soft_fraction must be in [0, 1], got {hard.soft_fraction}")
    choice(hard.soft_unit, reinforce.SOFT_UNITS, "model.attention.hard.soft_unit")
    choice(hard.reward, reinforce.REWARDS, "model.attention.hard.reward")
    choice(hard.test_context, reinforce.TEST_CONTEXTS, "model.attention.hard.test_context")
    require(0.0 <= hard.baseline_decay < 1.0,
            f"model.attention.hard.baseline_decay must be in [0, 1), got {hard.baseline_decay}")
    require(hard.reinforce_weight >= 0 and hard.entropy_weight >= 0,
            "model.attention.hard.reinforce_weight and entropy_weight must be >= 0")


def _validate_final_parameters(config):
    """train.best_metric, patience and average_last (training/selection.py)."""
    train = config.train
    if train.best_metric:
        choice(train.best_metric, get_task(config.task.name).selection_metrics(config),
               "train.best_metric")
    require(train.patience >= 0, f"train.patience must be >= 0, got {train.patience}")
    require(not train.patience or train.best_metric,
            "train.patience stops training when train.best_metric stops improving: set "
            "train.best_metric too (e.g. eval/bleu/validation)")
    saved = -(-train.num_steps // train.checkpoint_every)  # checkpoints a run writes
    require(0 <= train.average_last <= saved,
            f"train.average_last must be in [0, {saved}] (the checkpoints a run of "
            f"train.num_steps={train.num_steps} writes every train.checkpoint_every="
            f"{train.checkpoint_every}), got {train.average_last}")
    require(not (train.average_last and train.best_metric),
            "train.average_last and train.best_metric each choose the final parameters: "
            "set one of them")


def _validate_analysis(config):
    analysis = config.analysis
    if not analysis.implicit:
        return
    require(analysis.implicit in implicit.METHODS,
            f"analysis.implicit={analysis.implicit!r} is not known; valid choices: "
            f"{', '.join(implicit.METHODS)}, or '' (off)")
    require(analysis.steps >= 1, f"analysis.steps must be >= 1, got {analysis.steps}")
    require(analysis.target_steps >= 0, f"analysis.target_steps must be >= 0 (0: every "
            f"step), got {analysis.target_steps}")
    require(analysis.batch_size >= 1, f"analysis.batch_size must be >= 1, got "
            f"{analysis.batch_size}")
    require(0.0 <= analysis.rollout_residual < 1.0,
            f"analysis.rollout_residual must be in [0, 1), got {analysis.rollout_residual}")
    require(not config.model.fused_attention,
            "analysis.implicit compares maps with the recorded weights, and "
            "model.fused_attention records none: set it to False")


def _non_finite_fields(config, prefix: str = "") -> list[str]:
    """Every float field of ``config`` (nested) that is inf or nan, as 'section.field=value'."""
    found = []
    for name, value in config.items():
        if hasattr(value, "items"):
            found += _non_finite_fields(value, f"{prefix}{name}.")
        elif isinstance(value, float) and not math.isfinite(value):
            found.append(f"{prefix}{name}={value}")
    return found


def validate(config):
    """Raise ConfigError naming the field, the value and what is allowed."""
    task, model, train = config.task, config.model, config.train
    # Issue 72: --config.train.learning_rate=inf passed, failed at step 1 with advice to
    # pass what it had, and left a config.json holding the non-standard Infinity.
    bad = _non_finite_fields(config)
    require(not bad, f"{', '.join(bad)}: a config value must be a finite number")
    require(config.max_cohort_members >= 0,
            f"max_cohort_members must be >= 0 (0: no limit), got {config.max_cohort_members}")
    get_task(task.name).validate(config)

    choice(model.family, FAMILIES, "model.family")
    for field in ("embed_dim", "hidden_size", "num_layers"):
        require(model[field] >= 1, f"model.{field} must be >= 1, got {model[field]}")
    _validate_attention(model)
    FAMILIES[model.family].validate(config)
    require(0.0 <= model.dropout < 1.0, f"model.dropout must be in [0, 1), got {model.dropout}")
    require(0.0 <= model.token_dropout < 1.0,
            f"model.token_dropout must be in [0, 1), got {model.token_dropout}")
    choice(model.tie_embeddings, TIES, "model.tie_embeddings")
    require(model.max_source_length == 0 or model.max_source_length >= task.eval_max_length,
            f"model.max_source_length ({model.max_source_length}) must be 0 (use "
            f"task.eval_max_length) or cover the longest held-out source, "
            f"task.eval_max_length ({task.eval_max_length})")

    require(config.mesh.member >= 0 and config.mesh.data >= 1,
            f"mesh.member must be >= 0 and mesh.data >= 1, got {config.mesh.member} and "
            f"{config.mesh.data}")
    require(train.batch_size % config.mesh.data == 0,
            f"train.batch_size ({train.batch_size}) must be a multiple of mesh.data "
            f"({config.mesh.data}), the devices each batch is split over")
    choice(train.optimizer, OPTIMIZERS, "train.optimizer")
    choice(train.schedule, SCHEDULES, "train.schedule")
    for field in ("batch_size", "num_steps", "steps_per_call", "log_every", "eval_every",
                  "checkpoint_every"):
        require(train[field] >= 1, f"train.{field} must be >= 1, got {train[field]}")
    require(train.learning_rate > 0, f"train.learning_rate must be > 0, got {train.learning_rate}")
    require(train.grad_clip_norm > 0, f"train.grad_clip_norm must be > 0, got {train.grad_clip_norm}")
    require(train.weight_decay >= 0, f"train.weight_decay must be >= 0, got {train.weight_decay}")
    # Decay is decoupled (Loshchilov & Hutter 2019) and only adamw applies it: under adam
    # or sgd it was once ignored without a word (issue 37).
    require(train.weight_decay == 0 or train.optimizer == "adamw",
            f"train.weight_decay={train.weight_decay} is applied by "
            f"train.optimizer=adamw only (decoupled weight decay), and the optimizer is "
            f"{train.optimizer}: pass --config.train.optimizer=adamw, or leave "
            f"weight_decay at 0")
    _validate_final_parameters(config)
    require(0.0 <= train.label_smoothing < 1.0,
            f"train.label_smoothing must be in [0, 1), got {train.label_smoothing}")
    require(0 <= train.warmup_steps < train.num_steps,
            f"train.warmup_steps ({train.warmup_steps}) must be in [0, train.num_steps="
            f"{train.num_steps})"
            + (f": a run of {train.num_steps} steps needs a shorter warm-up, e.g. "
               f"--config.train.warmup_steps={max(train.num_steps // 10, 0)} (a tenth of "
               "its steps)" if train.warmup_steps >= train.num_steps > 0 else ""))
    require(train.num_heatmaps >= 0, "train.num_heatmaps must be >= 0")
    _validate_analysis(config)
    require(train.gradient_batches >= 0,
            f"train.gradient_batches must be >= 0 (0: off), got {train.gradient_batches}")
    alt = train.gradient_alt_soft_fraction
    require(alt < 0 or (train.gradient_batches > 0 and config.model.attention.alignment == "hard"
                        and alt <= 1),
            f"train.gradient_alt_soft_fraction={alt} measures hard attention's gradient "
            "with another soft_fraction (0 to 1): it needs model.attention.alignment='hard' "
            "and train.gradient_batches > 0; set it to -1 (off) otherwise")
    require(not train.gradient_score_term
            or (train.gradient_batches > 0 and config.model.attention.alignment == "hard"),
            "train.gradient_score_term measures REINFORCE's surrogate alone: it needs "
            "model.attention.alignment='hard' and train.gradient_batches > 0; set it to "
            "False otherwise")
    require(train.gradient_batches == 0 or get_task(task.name).sample_batch is not None,
            f"train.gradient_batches measures gradients on batches sampled on the device; "
            f"task {task.name!r} reads its batches from the host: set it to 0")
    # Logs, evaluations and checkpoints fall between jit calls, so they must line up
    # with them; a checkpoint at a log step makes resumed logs equal uninterrupted ones.
    spc = train.steps_per_call
    require(train.curve_eval_every >= 0,
            f"train.curve_eval_every must be >= 0 (0: off), got {train.curve_eval_every}")
    require(train.curve_eval_every == 0
            or evaluation_class(get_task(task.name)).curve_evaluation,
            f"train.curve_eval_every evaluates the lengths seen in training alone; task "
            f"{task.name!r} has no such evaluation: set it to 0")
    for field in ("num_steps", "log_every", "eval_every", "checkpoint_every",
                  "curve_eval_every"):
        require(train[field] % spc == 0,
                f"train.{field} ({train[field]}) must be a multiple of train.steps_per_call ({spc})")
    require(train.checkpoint_every % train.log_every == 0,
            f"train.checkpoint_every ({train.checkpoint_every}) must be a multiple of "
            f"train.log_every ({train.log_every})")
