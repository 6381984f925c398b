"""Luong, Pham & Manning 2015, Table 4: global attention with the dot function beats the
location function (18.6 against 18.1 BLEU). A follow-up on Multi30k with fresh seeds:
8 location seeds and 3 dot seeds, decided on them alone under a row of its own.

    python launch.py --config=experiments/luong_location_multi30k.py \
        --config.task.data_path=../shared/data/multi30k --config.max_cohort_members=1 --part=1/2
    python launch.py --config=experiments/luong_location_multi30k.py \
        --config.task.data_path=../shared/data/multi30k --config.max_cohort_members=1 --part=2/2
    python launch.py --config=experiments/luong_location_multi30k.py --record \
        --config.task.data_path=../shared/data/multi30k

Why. In luong_table4:corpus=multi30k (seeds 0-2) every location seed lies under every
dot seed, by 2.81 to 10.53 BLEU, yet the row is inconclusive (p = 0.12): one location
seed (28.5) is 7 BLEU under the other two, so the seeds' standard error is 2.27 on 2.1
degrees of freedom, and with 3 seeds against 3 even an exact rank test cannot go under
two-sided p = 0.10. Adding seeds to that row now that its p is known would be optional
stopping; this sweep is a new test, sized before it ran: an audit simulated it for a
5-BLEU gap at location's observed seed SD of 3.9 and found about 7 location seeds and 3
dot seeds give 80% power (8 about 87%; dot's seeds spread by 0.3 BLEU, so more of them
buy little). The SD is a guide only (its 95% interval is 2.0-24.6).

The regime is luong_table4:corpus=multi30k's, unchanged but for the seeds: its config
(the Multi30k defaults, multi30k_recipe's choice; 8000 steps; the parameters of best
validation BLEU translate the test split), so a member here would be a member there.
Each member is 40-50 CPU-minutes here (about 8.5 CPU-hours in all).

The decision rule, written 2026-11-29 before any member trained:
- the statistic is dot − location in cased test BLEU (test_2016_flickr, sacreBLEU on
  text restored to the corpus's characters), Welch's t on the two settings' seed means
  with the seeds' variance plus the sentences' (``metrics.paired_seed_test``, one bin of
  the whole split, 10,000 resamples), as luong_table4's Multi30k rows test it;
- reproduced: p < 0.05 with a difference of at least +0.5 BLEU (``stats.BLEU``'s minimum
  effect), not both means under its floor (1.0 BLEU); not reproduced: the same the other
  way; otherwise inconclusive. One comparison: no correction;
- decided only when all 11 members are recorded finished, on these seeds alone, never
  pooled with seeds 0-2;
- a reproduced (or not reproduced) verdict is replicated on fresh seeds:
  ``:replicate`` trains location on seeds 100-107 and dot on 100-102.
"""

from attention_research import sweeps
from configs import base
from experiments import luong_table4

NAME = "luong_location_multi30k"
KEY = "luong-global-dot-over-location-multi30k-fresh"
TITLE = "Global attention: dot is better than location (Multi30k, fresh seeds)"
SCORE = luong_table4.SCORE
DOT, LOCATION = "score-dot", "score-location"
SEEDS = [200, 201, 202]  # dot's seeds; location's are seeds_of(SEEDS)'s: never used before
LOCATION_SEED_COUNT = 8
REPLICATED = (KEY,)
SEPARATES_BOTH_WAYS = (KEY,)
RESAMPLES = luong_table4.RESAMPLES


def seeds_of(dot_seeds) -> dict:
    """{setting: its seeds}: dot's ``dot_seeds`` and location's 8 from the first of them
    on (``SEEDS``: 200-202 and 200-207; the replication's: 100-102 and 100-107, as
    ``findings`` swaps ``SEEDS`` for its fresh seeds)."""
    first = dot_seeds[0]
    return {DOT: list(dot_seeds), LOCATION: list(range(first, first + LOCATION_SEED_COUNT))}


def get_config(arg=None):
    # luong_table4's Multi30k config, unchanged but for the record's name.
    config = luong_table4.get_config("corpus=multi30k")
    config.name = NAME
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    from attention_research.findings import REPLICATION_SEEDS
    seeds = seeds_of(list(REPLICATION_SEEDS) if base.replicating(arg) else SEEDS)
    # Location's seeds first: they are the ones whose spread the test needs.
    return [member for name in (LOCATION, DOT) for member in sweeps.product(
        [{SCORE: name.removeprefix("score-")}], sweeps.axis("config.seed", seeds[name]))]


def findings(results):
    """The one row, decided by the rule in this file's docstring."""
    import numpy as np

    from attention_research import findings as f
    from attention_research import stats
    from attention_research.tasks.translation import metrics
    paper = ("Luong et al. 2015, Table 4 (BLEU, WMT'14 En→De, one model each): global "
             "location 18.1, dot 18.6")
    seeds = seeds_of(SEEDS)
    done = {name: f.finished_members_of(results, name, wanted)
            for name, wanted in seeds.items()}
    total = sum(map(len, seeds.values()))
    if sum(map(len, done.values())) < total:
        return [f.pending(KEY, TITLE, paper,
                          f"Multi30k, location seeds {seeds[LOCATION][0]}-"
                          f"{seeds[LOCATION][-1]} and dot seeds {seeds[DOT][0]}-"
                          f"{seeds[DOT][-1]}: {sum(map(len, done.values()))} of {total} "
                          "members recorded finished")]
    systems, references = {}, None
    for name, wanted in seeds.items():
        systems[name], references = luong_table4._translations(results, name, wanted)
    everything = [(np.arange(metrics.sentence_count(systems, references)), 1.0)]
    test = metrics.paired_seed_test(systems, references, DOT, LOCATION, everything,
                                    n_samples=RESAMPLES)
    # Each member's own summary, read as the test reads its translations (a record's
    # members are written one by one before its report is).
    bleu = {name: [final["final"]["test/bleu"] for final in f.member_finals(results, name, wanted)]
            for name, wanted in seeds.items()}
    rule = stats.BLEU
    separated = (test["p"] < stats.LEVEL and abs(test["difference"]) >= rule.min_effect
                 and max(np.mean(values) for values in bleu.values()) >= rule.floor)
    verdict = ("inconclusive" if not separated else "reproduced" if test["difference"] > 0
               else "not reproduced")
    from attention_research.reports import interval_cell as cell
    per_seed = "; ".join(f"{name} " + ", ".join(f"{v:.2f}" for v in values)
                         for name, values in bleu.items())
    ours = (f"cased test BLEU: dot {cell(bleu[DOT], 2)} ({len(bleu[DOT])} seeds), location "
            f"{cell(bleu[LOCATION], 2)} ({len(bleu[LOCATION])} seeds); dot − location = "
            f"{test['difference']:+.2f} BLEU [{test['low']:+.2f}, {test['high']:+.2f}], p = "
            f"{test['p']:.3g}, {test['df']:.1f} degrees of freedom, standard error "
            f"{test['se']:.2f} (seeds {test['seed_se']:.2f}, sentences "
            f"{test['sentence_se']:.2f}); per seed: {per_seed}")
    why = ("the rule written before the run (this experiment's file): Welch's t on the two "
           "settings' seed means of cased test BLEU, its variance the seeds' plus the "
           f"sentences' (metrics.paired_seed_test, {RESAMPLES:,} resamples), separates dot "
           f"from location at 5% by at least {rule.min_effect:g} BLEU: in Luong's direction "
           "(reproduced), the other (not reproduced), or neither (inconclusive); decided on "
           "these seeds alone, never pooled with luong_table4's seeds 0-2 (whose row is "
           "inconclusive at p = 0.12). The direction is tested, not the size: Luong's gap is "
           "0.5 BLEU at about 18 from one model each. Luong's case against location rests on "
           "its alignments too (Table 6, AER; the location-aligns-poorly row); this row "
           "tests BLEU alone")
    return [f.Finding(KEY, TITLE, paper, ours, verdict, why,
                      f"results/{NAME}/plots/bleu_by_length.png")]
