"""Bahdanau, Cho & Bengio 2015, Figure 2, on Multi30k de→en: does the encoder-decoder
without attention fall off on long sentences while attention holds?

    python launch.py --config=experiments/translation_length.py --config.task.data_path=../shared/data/multi30k

Members: the RNN without attention (``none``: the final encoder state is the decoder's
only view of the source, Bahdanau's RNNencdec), the same RNN with additive attention
(RNNsearch), and the Transformer beside them, 3 seeds each, at the defaults of
``task=translation`` on Multi30k (issue 36 sets them from experiments/multi30k_recipe.py;
run this after it). Each member translates test_2016_flickr with the parameters of its
best validation BLEU; BLEU by source length is in each summary and in the report's plot.

Decision rule, written before the run (the statistic is cased sacreBLEU on the test
split, sentence statistics summed per length bin, as ``metrics.compare_settings``):
- G = (BLEU_additive − BLEU_none on sources of 16 words or more) − (the same on sources
  of at most 10 words): how much attention's lead grows from short to long sentences
  (test_2016_flickr: 108 and 528 sentences of 1,000). Tested by
  ``metrics.length_gap_test``: the hierarchical bootstrap (each setting's 3 seeds, then
  the sentences within each bin; 10,000 resamples), Welch's t on its standard error.
- The whole test split's BLEU, additive against none (Bahdanau's Table 1, "All"), by
  the hierarchical bootstrap of ``compare_settings``.
- Holm over these two tests. **Reproduced** if both are positive with Holm p < 0.05 and
  each difference is at least the BLEU rule's minimum effect (0.5). **Not reproduced**
  if G's 95% interval lies below +0.5 (attention's lead grows by less than the minimum
  effect, or shrinks), or additive is below none on the whole split by that test.
  Otherwise **inconclusive**. No direction is named when both settings' BLEU on the
  long bin is below the BLEU floor (1.0).
- With 3 seeds a side the interval of G is wide (Welch's t on about 2–4 degrees of
  freedom): "not reproduced" needs seeds that agree closely, so an inconclusive verdict
  is the likely outcome of a small effect, and the page gives the interval.
- The Transformer's G against ``none`` is shown beside, read by no rule.
- A reproduced verdict is replicated on seeds 100–102 (``:replicate``: none and
  additive).

The regime is not Bahdanau's, and the page says so: they trained on sentences of up to
30 and 50 words of WMT'14 En→Fr and plotted lengths to 60, where RNNencdec-50 falls
most; Multi30k's German sentences average 11 words, at most 39. A lead that does not
grow here is weak evidence against the paper at its lengths.
"""

from attention_research import sweeps
from configs import base, transformer

SCORE = "config.model.attention.score"
_TRANSFORMER = transformer.get_config("task=translation").model
TRANSFORMER = {"config.model.family": "transformer", SCORE: "scaled_dot",
               "config.model.attention.num_heads": _TRANSFORMER.attention.num_heads,
               "config.model.num_layers": _TRANSFORMER.num_layers,
               "config.model.ff_dim": _TRANSFORMER.ff_dim,
               "config.model.dropout": _TRANSFORMER.dropout}
SETTINGS = [{SCORE: "none"}, {SCORE: "additive"}, TRANSFORMER]
SEEDS = [0, 1, 2]
SHORT, LONG = 10, 16  # source words: at most SHORT, at least LONG
RESAMPLES = 10_000
REPLICATED = ("attention-holds-on-long-sentences",)
KEY, TITLE = ("attention-holds-on-long-sentences",
              "Without attention, translation falls off on long sentences; with it, it holds")
PAPER = ("Bahdanau et al. 2015, Figure 2 and Table 1 (BLEU, WMT'14 En→Fr test, all "
         "sentences): RNNencdec-50 17.82, RNNsearch-50 26.75; RNNencdec's BLEU falls as "
         "sentences grow past about 20 words, RNNsearch-50's does not")


def get_config(arg=None):
    config = base.get_config("task=translation")  # multi30k, the default corpus
    config.name = "translation_length"
    return base.shrink_if_tiny(config, arg)


def get_sweep(arg=None):
    if base.replicating(arg):  # the two settings the rule reads, on fresh seeds
        from attention_research.findings import REPLICATION_SEEDS
        return sweeps.product(SETTINGS[:2], sweeps.axis("config.seed", list(REPLICATION_SEEDS)))
    return sweeps.product(SETTINGS, sweeps.axis("config.seed", SEEDS))


def _test_files(results, setting):
    """Each finished seed's test hypotheses, and the references and sources."""
    from attention_research import findings as f
    folders = [p.parent / "translations" for p in f.member_files(results, setting,
                                                                 "summary.json")]
    folders = [folder for folder in folders if folder.is_dir()]
    read = lambda folder, kind: (folder / f"test.{kind}.txt").read_text().splitlines()  # noqa: E731
    if not folders:
        return [], [], []
    return ([read(folder, "hypothesis") for folder in folders],
            read(folders[0], "reference"), read(folders[0], "source"))


def findings(results):
    """The rule of the docstring, on the recorded test translations."""
    import numpy as np

    from attention_research import findings as f
    from attention_research import stats
    from attention_research.tasks.translation import metrics
    names = [sweeps.member_name(s) for s in SETTINGS]
    read = {name: _test_files(results, name) for name in names}
    none, additive, transformer_name = names
    done = {name: len(read[name][0]) for name in names}
    if min(done[none], done[additive]) < len(SEEDS):
        return [f.pending(KEY, TITLE, PAPER, "Multi30k test, none and additive, "
                          + ", ".join(f"{n}: {done[n]} of {len(SEEDS)}" for n in names))]
    references, sources = read[additive][1], read[additive][2]
    words = np.array([len(s.split()) for s in sources])
    short, long = np.flatnonzero(words <= SHORT), np.flatnonzero(words >= LONG)
    systems = {name: read[name][0] for name in names if done[name]}
    gap = metrics.length_gap_test(systems, references, short, long, additive, none,
                                  n_samples=RESAMPLES)
    whole = metrics.compare_settings(systems, references, [(additive, none)],
                                     n_samples=RESAMPLES, resample_seeds=True)[(additive, none)]
    gap_p, whole_p = stats.holm([gap["p"], whole["p"]])
    rule = stats.BLEU

    def bleu(name, rows):  # the seed-mean corpus BLEU on ``rows``
        return float(np.mean([metrics.bleu_from_statistics(
            metrics.sentence_statistics([h[i] for i in rows], [references[i] for i in rows])
            .sum(0)) for h in systems[name]]))

    at_floor = max(bleu(none, long), bleu(additive, long)) < rule.floor
    grows = (gap["difference"] >= rule.min_effect and gap_p < stats.LEVEL
             and whole["difference"] >= rule.min_effect and whole_p < stats.LEVEL)
    fails = (gap["high"] < rule.min_effect
             or (whole["difference"] < 0 and whole_p < stats.LEVEL))
    verdict = ("inconclusive" if at_floor else "reproduced" if grows
               else "not reproduced" if fails else "inconclusive")
    whole_bleu = {name: bleu(name, np.arange(len(references))) for name in systems}
    ours = (f"Multi30k test_2016_flickr de→en, cased sacreBLEU, {len(SEEDS)} seeds: all "
            f"sentences none {whole_bleu[none]:.2f}, additive {whole_bleu[additive]:.2f} "
            f"(difference {whole['difference']:+.2f} [{whole['low']:+.2f}, "
            f"{whole['high']:+.2f}], Holm p = {whole_p:.2g}); sources of ≤ {SHORT} words "
            f"({len(short)}) none {bleu(none, short):.2f}, additive "
            f"{bleu(additive, short):.2f}; of ≥ {LONG} words ({len(long)}) none "
            f"{bleu(none, long):.2f}, additive {bleu(additive, long):.2f}; attention's "
            f"lead grows by G = {gap['difference']:+.2f} BLEU [{gap['low']:+.2f}, "
            f"{gap['high']:+.2f}], Holm p = {gap_p:.2g}")
    if done[transformer_name] >= len(SEEDS):
        beside = metrics.length_gap_test(systems, references, short, long,
                                         transformer_name, none, n_samples=RESAMPLES)
        ours += (f". Beside, read by no rule: the Transformer all sentences "
                 f"{whole_bleu[transformer_name]:.2f}, its lead over none grows by "
                 f"{beside['difference']:+.2f} [{beside['low']:+.2f}, {beside['high']:+.2f}]")
    why = (f"the docstring's rule, written before the run: G (attention's lead on sources "
           f"of ≥ {LONG} words minus on ≤ {SHORT}) and the whole split's difference by the "
           f"hierarchical bootstrap ({RESAMPLES:,} resamples of seeds, then sentences; "
           f"Welch's t on its standard error), Holm over the two, minimum effect "
           f"{rule.min_effect:g} BLEU. Not Bahdanau's regime: Multi30k's sources average "
           f"11 words (at most 39), theirs reach 60, so a lead that does not grow here is "
           f"weak evidence against the paper at its lengths")
    return [f.Finding(KEY, TITLE, PAPER, ours, verdict, why,
                      "results/translation_length/plots/bleu_by_length.png")]
