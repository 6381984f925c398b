"""How far beyond its training lengths does each model keep working? Train on copy and
reverse sources of lengths 1-20; evaluate every length to 200 (10x), in ranges 1-20
(seen), 21-80 (up to 4x) and 81-200; 5 seeds.

    python launch.py --config=experiments/length_generalization.py

The RNN encoder-decoder with additive, dot, cosine and location-aware attention (which
reads where it attended last, Chorowski et al. 2015) and additive monotonic attention
(which reads on from where it stopped, Raffel et al. 2017; hard at test) and the
additive pointer-generator (whose output is copied from the source, See et al. 2017)
against the
Transformer (2 layers, 4 heads) with sinusoidal and with learned positions — and with
positions that are never absolute in self-attention: ALiBi (Press et al. 2022) or none
at all (NoPE) in the decoder, relative representations (Shaw et al. 2018) or RoPE
(Su et al. 2021) in both stacks — the regime
of Dehghani et al. 2018 (Universal Transformers, Table 4 — a Transformer trained on
length 40 and tested on 400 reaches sequence accuracy ≈ 0.03 on copy and 0.06 on
reverse). summary.json holds sequence and teacher-forced token accuracy for every
length; plots/ draws both. A learned position table has rows for every held-out
position (``model.max_source_length`` defaults to the longest), but rows past 21 never
receive a gradient: they keep their initial values. The finding compares Dehghani's
number with the sinusoidal and learned Transformers; alibi, nope, relative and rope
test whether absolute positions are the cause (alibi's and nope's encoders keep
sinusoidal positions, see models/transformer.py).

Issue 35 added the regime Press et al., Shaw et al.'s claim and the NoPE papers are
about: a decoder-only Transformer (models/decoder_only.py: 4 causal layers, 4 heads,
reading ``source BOS target``), where each scheme is the only explicit position signal
of every layer (the causal mask carries order implicitly, as the NoPE papers show). Its
members are appended after the others. Its ALiBi and relative rows were decided here
on 5 seeds; issue 73 moved them to experiments/relative_positions.py, 10 seeds an arm
with NoPE ruled, where the decoder-only regime is repeated to length 40. Dehghani et al.'s
row reads this sweep's decoder-only absolute arms.
Every member's summary.json also holds teacher-forced token accuracy by target position
(``token_acc_by_position``), so a model right on its first 20 positions and wrong after
them shows as such.

Memory: a decoder-only cohort's evaluation (5 members, chunks of 400 sequences of up to
402 positions, 4 heads) peaks at 12-15 GiB of host memory on CPU, so two decoder-only
cohorts at once (``--part=1/2`` and ``--part=2/2`` side by side) overflow a 24 GiB
machine and one is killed; so does one beside transformer_scores (about 8 GiB). Run them
one at a time there, beside an RNN sweep at most. The relative cohorts need more: at 400
sequences a chunk their evaluation passed 22 GiB and was killed, so on such a machine
they were run with ``--config.task.eval_batch_size=100`` (a resource field: the same
numbers, in smaller chunks; about 40 minutes a cohort on one loaded core).
Checkpoints every 500 steps: a killed cohort resumes from its last one.

Cost: training wall time summed over cohorts, as each record's summary.md states it
(cpu: one of this project's 2-core CPUs): results/length_generalization/: 180 members,
52,280 s (cpu); results/length_generalization_replication/: 64 members, 39,208 s (cpu).

Result: results/length_generalization/summary.md; its claims
(experiments/lab/claims/length_generalization.py) are rows of experiments/FINDINGS.md.
"""


from attention_research.running import sweeps
from configs import base

SCORE = "config.model.attention.score"
TRANSFORMER = {"config.model.family": "transformer", SCORE: "scaled_dot",
               "config.model.attention.num_heads": 4, "config.model.num_layers": 2}
MODELS = ([{SCORE: score} for score in ("additive", "dot", "cosine", "location_aware")]
          + [{SCORE: "additive", "config.model.attention.alignment": "monotonic"},
             {SCORE: "additive", "config.model.pointer_generator": True}]
          + [{**TRANSFORMER, "config.model.positions": p}
             for p in ("sinusoidal", "learned", "alibi", "nope", "relative", "rope")])
POSITION_SCHEMES = ("sinusoidal", "learned", "alibi", "nope", "relative", "rope")
DECODER_ONLY = [{"config.model.family": "decoder_only", SCORE: "scaled_dot",
                 "config.model.attention.num_heads": 4, "config.model.num_layers": 4,
                 "config.model.positions": p} for p in POSITION_SCHEMES]
MODELS = MODELS + DECODER_ONLY  # appended: the recorded members keep their cohorts
# The replication's arms that REVISED_POSITION_RULE reads get 5 fresh seeds (3 can
# separate only effects of about 0.1 or more). Why that rule replaced the first position
# rules, and when: results/length_generalization/README.md, "Decision log".
REVISED_SEEDS = [100, 101, 102, 103, 104]  # the revised rule's arms; the others 100-102
SEEDS = [0, 1, 2, 3, 4]
TASKS = ["copy", "reverse"]


def get_config(arg=None):
    config = base.get_config()
    config.name = "length_generalization"
    # The RNN default; the replication, of Transformers only, reads its position schemes
    # against Vaswani et al.'s sinusoidal ones, as Press et al. and Shaw et al. do.
    config.baseline = (sweeps.baseline_name(_transformer("sinusoidal"))
                       if base.replicating(arg) else "score-additive")
    config.task.train_max_length = 20
    config.task.eval_max_length = 200
    config.task.eval_range_ends = (80,)
    # 16 sequences of each of 200 lengths, scored in chunks of 400, every 500 steps:
    # the held-out set is 6x the default's tokens.
    config.task.eval_examples_per_length = 16
    config.task.eval_batch_size = 400
    config.train.eval_every = 500
    return base.shrink_if_tiny(config, arg)


# The decoder-only rows are replicated too: each reads at most 4 decoder-only cohorts of
# ~30 min at 3 seeds, about 2 CPU-hours. The ALiBi and relative rows moved to
# experiments/relative_positions.py (issue 73); the replication's arms for them stay in
# the sweep below, because its record holds them.
REPLICATED = ("rope-fits-seen-lengths-worse", "transformer-fails-far-beyond-training")


def get_sweep(arg=None):
    if base.replicating(arg):  # what the replicable rows read, on fresh seeds
        from experiments.lab.findings import REPLICATION_SEEDS
        # NoPE and relative positions without clipping (k beyond every distance): what
        # the causal mask alone gives (shown beside, read by no rule), and whether the
        # clipping is what generalises (REVISED_POSITION_RULE's relative contrast).
        # The arms REVISED_POSITION_RULE reads get 5 seeds (REVISED_SEEDS), the rest 3.
        revised = [_decoder_only(p) for p in ("sinusoidal", "alibi", "relative")] + [UNCLIPPED]
        others = ([_transformer("rope"), _transformer("sinusoidal")]
                  + [_decoder_only(p) for p in ("learned", "nope")])
        tasks = sweeps.axis("config.task.name", TASKS)
        return (sweeps.product(others, tasks, sweeps.axis("config.seed",
                                                          list(REPLICATION_SEEDS)))
                + sweeps.product(revised, tasks, sweeps.axis("config.seed", REVISED_SEEDS)))
    return sweeps.product(MODELS, sweeps.axis("config.task.name", TASKS),
                          sweeps.axis("config.seed", SEEDS))


def _transformer(positions: str) -> dict:
    """The encoder-decoder Transformer with ``positions``."""
    return next(m for m in MODELS if m.get("config.model.positions") == positions
                and m["config.model.family"] == "transformer")


def _decoder_only(positions: str) -> dict:
    return next(m for m in DECODER_ONLY if m["config.model.positions"] == positions)


# Relative positions with no clipping within any held-out sequence (decoder-only: up to
# 2 x 200 + 2 positions): the control for Shaw et al.'s claim that the clipping is what
# generalises (replication only; shown beside).
UNCLIPPED = {**_decoder_only("relative"), "config.model.max_relative_distance": 402}
