"""Every config field, with a one-line comment. Other configs override a few.

Run: python launch.py --config=configs/base.py
Structural choices go in the config argument, scalars in overrides:
    python launch.py --config=configs/base.py:task=copy,cell=gru \
        --config.train.learning_rate=3e-3
"""

from __future__ import annotations

import ml_collections

# Structural choices a config argument may set, with their valid values.
ARGUMENTS = {
    "task": ("reverse", "copy", "translation"),
    "cell": ("lstm", "gru"),
    "style": ("luong", "bahdanau"),
}


def parse_argument(arg: str | None, allowed: dict = ARGUMENTS) -> dict:
    """'task=copy,cell=gru' -> {'task': 'copy', 'cell': 'gru'}, checked against ``allowed``."""
    choices = {}
    for item in filter(None, (arg or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in allowed:
            raise ValueError(f"bad config argument {item!r}: expected key=value with key one of "
                             f"{', '.join(allowed)}")
        if value not in allowed[key]:
            raise ValueError(f"bad config argument {item!r}: {key} must be one of "
                             f"{', '.join(allowed[key])}")
        choices[key] = value
    return choices


def get_config(arg: str | None = None, choices: dict | None = None) -> ml_collections.ConfigDict:
    """The base config; ``choices`` (already parsed) replaces ``arg`` for derived configs."""
    choices = parse_argument(arg) if choices is None else choices
    config = ml_collections.ConfigDict()
    config.name = "base"  # shown in plot titles and summaries
    config.seed = 0  # the member's seed: parameters, batches and dropout all derive from it
    # Sweeps: split cohorts larger than this (0: no limit), e.g. to bound memory.
    config.max_cohort_members = 0

    config.task = task = ml_collections.ConfigDict()
    task.name = choices.get("task", "reverse")  # copy | reverse
    task.num_symbols = 50  # distinct symbols, besides PAD/BOS/EOS
    task.train_min_length = 1  # shortest training source
    task.train_max_length = 25  # longest training source
    task.eval_max_length = 50  # held-out lengths run 1 … eval_max_length
    task.eval_examples_per_length = 32  # held-out examples of each length
    task.eval_seed = 12345  # the held-out set is drawn from this seed alone

    config.model = model = ml_collections.ConfigDict()
    model.family = "rnn"  # rnn | transformer
    model.cell = choices.get("cell", "lstm")  # lstm | gru
    model.bidirectional = True  # encoder reads both ways; hidden_size is split between them
    model.num_layers = 1  # encoder and decoder depth
    model.embed_dim = 64  # token embedding size (rnn; the transformer embeds to hidden_size)
    model.hidden_size = 64  # decoder state size = encoder output size (transformer: d_model)
    model.ff_dim = 256  # transformer: feed-forward inner size
    model.positions = "sinusoidal"  # transformer: sinusoidal | learned
    model.fused_attention = False  # transformer + scaled_dot: use jax.nn.dot_product_attention
    model.decoder_style = choices.get("style", "luong")  # luong | bahdanau
    model.dropout = 0.0  # on embeddings and decoder outputs
    model.max_source_length = 0  # longest source the model will see (location); 0: task.eval_max_length
    model.attention = attention = ml_collections.ConfigDict()
    attention.score = "additive"  # dot | scaled_dot | general | additive (concat) | location | cosine | none
    attention.alignment = "global"  # global | local_m | local_p | hard
    attention.dim = 64  # hidden size of the additive score (W_a, U_a, v_a) and of local_p's W_p
    attention.window = 10  # D: local windows span [p_t - D, p_t + D]; local_p's sigma = D/2
    attention.num_heads = 1  # > 1: multi-head attention over the score (heads split hidden_size)
    attention.head_dim = 0  # > 0: project q, k, v to heads of this size (d_k), even with one head
    attention.hard = hard = ml_collections.ConfigDict()  # hard attention (Xu et al. 2015)
    hard.soft_fraction = 0.0  # share of steps that use the expected (soft) context instead
    hard.reinforce_weight = 1.0  # lambda_r: weight of the REINFORCE term
    hard.entropy_weight = 1e-3  # lambda_e: weight of the entropy bonus
    hard.baseline_decay = 0.9  # moving-average baseline b <- decay * b + (1 - decay) * reward

    config.mesh = mesh = ml_collections.ConfigDict()  # devices: axes ('member', 'data')
    mesh.member = 0  # devices a cohort's members are spread over; 0: all that data leaves
    mesh.data = 1  # devices each member's batch is split over

    config.train = train = ml_collections.ConfigDict()
    train.batch_size = 32  # examples per step per member (small batches learn fastest per CPU second)
    train.num_steps = 1500  # total optimiser steps
    train.optimizer = "adam"  # adam | adamw | sgd
    train.learning_rate = 3e-3  # peak learning rate
    train.weight_decay = 0.0  # decoupled weight decay (adamw only)
    train.schedule = "cosine"  # constant | cosine | linear (decay after warm-up)
    train.warmup_steps = 100  # linear warm-up from 0 to the peak
    train.grad_clip_norm = 1.0  # clip the global gradient norm to this
    train.steps_per_call = 25  # train steps per jit call (lax.scan); divides the intervals below
    train.log_every = 50  # steps between training-metric logs
    train.eval_every = 250  # steps between held-out evaluations
    train.eval_at_start = False  # also evaluate the untrained model (step 0)
    train.checkpoint_every = 500  # steps between checkpoints
    train.num_heatmaps = 4  # held-out examples drawn as attention heat maps
    if task.name == "translation":
        use_translation(config)
    return config


def use_translation(config):
    """The translation task and defaults sized for ding_de_en on a CPU."""
    task = config.task
    for field in ("num_symbols", "train_min_length", "train_max_length",
                  "eval_examples_per_length", "eval_seed"):
        del task[field]  # synthetic-only
    task.dataset = "ding_de_en"  # ding_de_en, or any TFDS translation dataset (wmt14_translate/de-en)
    task.data_dir = ""  # TFDS data directory ('': TFDS's default, ~/tensorflow_datasets)
    task.data_path = ""  # ding_de_en's file ('': manual dir, /usr/share/trans/de-en, download)
    task.source_language = ""  # '': the dataset's supervised keys (ding_de_en: de -> en)
    task.target_language = ""
    task.vocab_size = 2000  # SentencePiece pieces, one model for both languages
    task.length_buckets = (16, 24, 32, 48)  # training batch widths (pieces); longer pairs skipped
    task.data_seed = 0  # order of the length buckets, shared by a cohort's members
    task.eval_max_length = 128  # held-out sources and references are cut to this many pieces
    task.eval_batch_size = 128  # sentences per evaluation batch
    task.eval_split = "test"  # the split the final BLEU is measured on
    task.beam_size = 4  # final evaluation; 1 = greedy (evaluations during training are greedy)
    task.length_penalty = 0.6  # GNMT's alpha in ((5 + |Y|) / 6)^alpha
    # BLEU by source length: each bucket's last word count, and one bucket for longer.
    # ding_de_en's test sentences are short (median 7 words, 81 of 1,033 over 12);
    # for WMT use e.g. (10, 20, 30, 40, 50), Bahdanau et al.'s Figure 2.
    task.bleu_length_bins = (4, 6, 8, 10, 12)
    task.num_samples = 8  # sample translations (and heat maps) written with the summary
    model, train = config.model, config.train
    model.embed_dim = 128
    model.hidden_size = 128
    model.attention.dim = 128
    model.dropout = 0.2
    train.batch_size = 64
    train.num_steps = 3000  # about 10 epochs of ding_de_en
    train.learning_rate = 2e-3
    train.warmup_steps = 200
    train.steps_per_call = 10
    train.log_every = 50
    train.eval_every = 1000
    train.checkpoint_every = 1000
