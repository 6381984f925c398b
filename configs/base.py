"""Every generic config field, with a one-line comment; the task adds its own fields
(``config.task``, from the task registry: see each task's ``configure``), the model
family its defaults. Other configs override a few.

Run: python launch.py --config=configs/base.py
Structural choices go in the config argument, scalars in overrides:
    python launch.py --config=configs/base.py:task=copy,cell=gru \\
        --config.train.learning_rate=3e-3
The argument ``tiny`` shrinks any config to a seconds-long smoke run (sizes, lengths,
steps; the formulation is kept):
    python launch.py --config=configs/dot.py:task=copy,tiny
"""

from __future__ import annotations

import ml_collections

from attention_research.models import CELLS, DECODER_STYLES, FAMILIES
from attention_research.tasks import DEFAULT_TASK, get_task, task_names

# Structural choices a config argument may set, with their valid values.
ARGUMENTS = {
    "task": tuple(task_names()),
    "cell": CELLS,
    "style": DECODER_STYLES,
}
TINY = "tiny"  # the shrink argument every config takes
# Sweep files: train the experiment's deciding settings on fresh seeds, recorded apart
# (experiments/results/NAME_replication; findings.REPLICATION_SEEDS).
REPLICATE = "replicate"


def parse_argument(arg: str | None, allowed: dict = ARGUMENTS) -> dict:
    """'task=copy,cell=gru,tiny' -> {'task': 'copy', 'cell': 'gru', 'tiny': True},
    checked against ``allowed`` (``tiny`` is always allowed)."""
    choices = {}
    for item in filter(None, (arg or "").split(",")):
        if item in (TINY, REPLICATE):
            choices[item] = True
            continue
        key, sep, value = item.partition("=")
        if not sep or key not in allowed:
            raise ValueError(f"bad config argument {item!r}: expected key=value with key one of "
                             f"{', '.join(allowed)}, or {TINY}{_did_you_mean(key, allowed)}")
        if value not in allowed[key]:
            raise ValueError(f"bad config argument {item!r}: {key} must be one of "
                             f"{', '.join(allowed[key])}{_did_you_mean(value, allowed[key])}")
        choices[key] = value
    return choices


def _did_you_mean(word: str, choices) -> str:
    import difflib
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def get_config(arg: str | None = None, choices: dict | None = None,
               family: str = "rnn") -> ml_collections.ConfigDict:
    """The base config; ``choices`` (already parsed) replaces ``arg`` for derived configs,
    ``family`` picks the model family whose defaults apply."""
    choices = parse_argument(arg) if choices is None else choices
    config = ml_collections.ConfigDict()
    config.name = "base"  # shown in plot titles and summaries
    config.seed = 0  # the member's seed: parameters, batches and dropout all derive from it
    # Sweeps: split cohorts larger than this (0: no limit), e.g. to bound memory.
    config.max_cohort_members = 0
    # Sweeps: the setting a report measures every other against (its effect sizes, and
    # the grey reference of its small multiples), by its name without seed and task,
    # e.g. 'score-additive' (sweeps.setting_of); '' for the sweep's first setting.
    config.baseline = ""

    config.task = ml_collections.ConfigDict()
    config.task.name = choices.get("task", DEFAULT_TASK)  # a registered task; its fields follow

    config.model = model = ml_collections.ConfigDict()
    model.family = family  # a registered model family: rnn | transformer | decoder_only
    model.cell = choices.get("cell", "lstm")  # rnn: lstm | gru
    model.bidirectional = True  # encoder reads both ways; hidden_size is split between them
    model.num_layers = 1  # encoder and decoder depth
    model.embed_dim = 64  # token embedding size (rnn; the transformer embeds to hidden_size)
    model.hidden_size = 64  # decoder state size = encoder output size (transformer: d_model)
    model.ff_dim = 256  # transformer: feed-forward inner size
    model.positions = "sinusoidal"  # transformer: sinusoidal | learned | alibi | nope (decoder without) | relative | rope
    model.max_relative_distance = 16  # transformer, relative positions: offsets clipped to +-k (Shaw et al.: 16)
    model.fused_attention = False  # transformer + scaled_dot: use jax.nn.dot_product_attention
    model.decoder_style = choices.get("style", "luong")  # rnn: luong | bahdanau
    model.dropout = 0.0  # on embeddings and decoder outputs
    model.token_dropout = 0.0  # training: drop whole token embeddings with this probability
    model.tie_embeddings = "none"  # none | target (embedding = output projection) | all (and source)
    model.max_source_length = 0  # longest source the model will see (location); 0: task.eval_max_length
    model.pointer_generator = False  # rnn: mix copying source tokens into the output (See et al. 2017)
    model.attention = attention = ml_collections.ConfigDict()
    attention.score = "additive"  # a registered score (dot, scaled_dot, general, additive, …) or none
    attention.alignment = "global"  # registered: global | local_m | local_p | hard | monotonic
    attention.normalizer = "softmax"  # scores -> weights: softmax | sparsemax | entmax15
    attention.dim = 64  # hidden size of the additive score (W_a, U_a, v_a) and of local_p's W_p
    attention.window = 10  # D: local windows span [p_t - D, p_t + D]; local_p's sigma = D/2
    attention.num_heads = 1  # > 1: multi-head attention over the score (heads split hidden_size)
    attention.head_dim = 0  # > 0: project q, k, v to heads of this size (d_k), even with one head
    attention.location_filters = 10  # location_aware: filters F over α_{t-1} (Chorowski: 10)
    attention.location_width = 201  # location_aware: their width, odd (Chorowski: 201)
    attention.coverage_loss = 0.0  # RNN: λ of See et al.'s coverage loss (their λ = 1)
    # ... on from this share of train.num_steps (See et al. add it for a final phase: 0.8)
    attention.coverage_loss_from = 0.0
    attention.monotonic = monotonic = ml_collections.ConfigDict()  # Raffel et al. 2017
    monotonic.bias = -4.0  # initial r, the energy's learned bias: start by rarely stopping
    monotonic.noise = 1.0  # std of the Gaussian noise added before the sigmoid in training
    attention.hard = hard = ml_collections.ConfigDict()  # hard attention (Xu et al. 2015)
    hard.soft_fraction = 0.0  # share of steps (or sequences) that use the expected context
    hard.soft_unit = "step"  # step | sequence (Xu et al.: "with probability 0.5 for a given image")
    # token: r_t = log p(y_t | ...) | sequence: R = log p(y | s~) (Xu Eq. 12) |
    # sequence_mean: R / |y| (Xu's code, arctic-captions capgen.py; there lambda_r = 0.1)
    hard.reward = "token"
    hard.reinforce_weight = 1.0  # lambda_r: weight of the REINFORCE term (Xu's code: 0.1)
    hard.entropy_weight = 1e-3  # lambda_e: weight of the entropy bonus
    hard.baseline_decay = 0.9  # moving-average baseline b <- decay * b + (1 - decay) * mean reward
    hard.test_context = "argmax"  # evaluation: argmax position | expected (Xu's code: alpha)

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
    train.label_smoothing = 0.0  # epsilon: fit (1 - eps) * onehot + eps / V (logged loss stays the NLL)
    train.steps_per_call = 25  # train steps per jit call (lax.scan); divides the intervals below
    train.fast_compile = False  # XLA compiling fast, the program running slower (compilation_cache.FAST_COMPILE_FLAGS; tiny sets it)
    train.log_every = 50  # steps between training-metric logs
    train.eval_every = 250  # steps between held-out evaluations
    # > 0: also evaluate the held-out lengths seen in training alone every this many
    # steps (symbol tasks), a fine grid for steps to 0.99 and the area under the learning
    # curve at a fraction of a whole evaluation's cost. 0: off.
    train.curve_eval_every = 0
    # > 0: at every evaluation, the mean, variance and signal-to-noise ratio of the
    # attention parameters' gradient over this many fresh minibatches (device-sampled
    # tasks; experiments/hard_vs_soft.py uses 100).
    train.gradient_batches = 0
    # >= 0: at each gradient measurement also measure hard attention's estimator with
    # hard.soft_fraction set to this value, at the same parameters, baseline and
    # minibatches (eval/grad_*_alt/attention): two estimators compared at one point,
    # not at two points of two runs (issue 35's audit). < 0: off.
    train.gradient_alt_soft_fraction = -1.0
    # True: at each gradient measurement also measure REINFORCE's surrogate alone (its
    # score-function term and entropy bonus, the likelihood's gradient left out), for
    # the run's estimator and the alternative (eval/grad_*_score/attention,
    # eval/grad_*_alt_score/attention): which part of the estimator is noisy.
    train.gradient_score_term = False
    train.eval_at_start = False  # also evaluate the untrained model (step 0)
    train.checkpoint_every = 500  # steps between checkpoints
    # The parameters the final evaluation uses: '' the last; a held-out metric (e.g.
    # eval/bleu/validation; lowest wins for a loss) the best so far at an evaluation.
    train.best_metric = ""
    train.patience = 0  # > 0 (with best_metric): stop after this many evaluations without improvement
    train.average_last = 0  # > 0: the mean of the last this many checkpoints instead (not with best_metric)
    train.num_heatmaps = 4  # held-out examples drawn as attention heat maps

    # Implicit attention beside the explicit weights, in every held-out evaluation
    # (attention_research/analysis/): copy, reverse and sort.
    config.analysis = analysis = ml_collections.ConfigDict()
    analysis.implicit = ""  # '' off | gradient | gradient_x_input | integrated_gradients
    analysis.steps = 32  # integrated gradients: Riemann steps m along the path from the baseline
    # Symbol steps per held-out example whose implicit map the metrics read, drawn once
    # (a whole map costs a backward pass per step); 0: every step, exactly.
    analysis.target_steps = 1
    analysis.batch_size = 64  # held-out examples per Jacobian (memory: B*T*S*E floats per member)
    analysis.rollout_residual = 0.5  # Transformer rollout: the residual's share (Abnar & Zuidema: 0.5)

    FAMILIES[family].defaults(config)
    get_task(config.task.name).configure(config)  # its fields; it may adjust the defaults
    return shrink(config) if choices.get(TINY) else config


def shrink(config):
    """Tiny sizes, lengths and step counts for any config; its formulation is kept."""
    config.model.embed_dim = 8
    config.model.hidden_size = 8
    config.model.ff_dim = 16
    config.model.attention.dim = 8
    config.train.update(batch_size=8, num_steps=20, warmup_steps=2, steps_per_call=5,
                        fast_compile=True,
                        log_every=5, eval_every=10, checkpoint_every=10, num_heatmaps=2)
    get_task(config.task.name).shrink(config)
    return config


def shrink_if_tiny(config, arg: str | None, allowed: dict | None = None):
    """For sweep files, whose arguments are ``tiny`` and ``replicate`` (and the file's own
    ``allowed`` choices): ``config`` shrunk if ``tiny`` is given; named NAME_replication
    if ``replicate`` is (its record then goes to experiments/results/NAME_replication)."""
    choices = parse_argument(arg, allowed or {})
    if choices.get(REPLICATE):
        config.name += "_replication"
    return shrink(config) if choices.get(TINY) else config


def replicating(arg: str | None) -> bool:
    """Whether a sweep file's argument asks for its replication on fresh seeds (beside
    whatever other choices the file's own argument takes)."""
    return REPLICATE in (arg or "").split(",")
