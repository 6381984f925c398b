"""``translation``: any TFDS translation corpus (``multi30k``, the default, and
``ding_de_en`` built in) as a Task.

What differs from the symbol tasks: batches come from the input pipeline
(``pipeline.py``) on the host instead of being sampled inside the step; evaluation
during training is the validation loss and greedy BLEU; at the end the
``task.eval_split`` split is translated with beam search and scored with sacrebleu
(BLEU, chrF, BLEU by source length), and sample translations are drawn with their
attention over subword pieces. With ``analysis.implicit`` the same split is analysed
once more, teacher-forced: implicit against explicit attention (analysis.py).
"""

from __future__ import annotations

import functools

import jax
import numpy as np

from attention_research.reports import plotting
from attention_research.training import held_out
from attention_research.data import EOS, PAD, Batch
from attention_research.errors import require
from attention_research.tasks.protocol import Final
from attention_research.tasks.translation import (analysis, datasets, metrics, pipeline,
                                                   subwords)
from attention_research.reports import translation as report
from attention_research.training.steps import make_teacher_forced, make_translate


# The length fields of each built-in corpus: training bucket widths (pieces of a
# 2,000-piece vocabulary; a larger one cuts sentences into fewer) and BLEU-by-length
# bins (source words).
CORPUS_LENGTHS = {
    # Multi30k: German 11.1 words on average, at most 39; 3-4% of sentences have 20
    # words or more; the longest pair is 83 pieces. Bins of about equal counts below
    # 15 words, then the long tail Bahdanau's claim is about.
    "multi30k": {"length_buckets": (16, 24, 32, 48, 88),
                 "bleu_length_bins": (6, 8, 10, 12, 15, 19)},
    # ding_de_en: short dictionary examples (median 7 words, 81 of 1,033 test
    # sentences over 12).
    "ding_de_en": {"length_buckets": (16, 24, 32, 48),
                   "bleu_length_bins": (4, 6, 8, 10, 12)},
}


# Today's defaults: experiments/multi30k_recipe.py's choice on Multi30k's validation
# split (issue 36; tests/test_recipe.py holds each family to it), on top of
# experiments/translation_recipe.py's (label smoothing 0.1, one embedding matrix for
# source, target and output, 8000 steps, the test split translated with the parameters
# of the best greedy validation BLEU, checked every 500 steps): an 8,000-piece vocabulary
# and the best lowercased validation BLEU. Config fields (dotted, under config), and
# under "transformer" and "rnn" those of the model family (every family other than the
# Transformer takes "rnn"'s). An experiment recorded at earlier defaults pins them
# (experiments/lab/recipes.py), so that a rerun trains what it reports.
DEFAULTS = {
    "task.vocab_size": 8000, "model.embed_dim": 128, "model.hidden_size": 128,
    "model.attention.dim": 128, "model.tie_embeddings": "all",
    "train.batch_size": 64, "train.learning_rate": 2e-3, "train.warmup_steps": 200,
    "train.label_smoothing": 0.1, "train.num_steps": 8000, "train.eval_every": 500,
    "train.best_metric": "eval/bleu_lc/validation",
    "transformer": {"model.ff_dim": 512, "model.dropout": 0.1},
    "rnn": {"model.dropout": 0.2}}
# The suffix of a split translated at each member's tuned length penalty
# (task.length_penalty_search): its files translations/<split>.lp_tuned.*.txt, its
# scores <split>.lp_tuned/bleu.
TUNED = ".lp_tuned"
SELECTIONS = ("bleu", "smallest")  # task.length_penalty_select


def set_fields(config, fields: dict):
    """Each dotted field of ``fields`` ('model.dropout': 0.2) set in ``config``; under
    "transformer" and "rnn", the model family's (every family other than the Transformer
    takes "rnn"'s)."""
    fields = dict(fields)
    by_family = {family: fields.pop(family, {}) for family in ("transformer", "rnn")}
    family = "transformer" if config.model.family == "transformer" else "rnn"
    for field, value in {**fields, **by_family[family]}.items():
        *path, last = field.split(".")
        node = config
        for part in path:
            node = node[part]
        node[last] = value
    return config


@functools.lru_cache(maxsize=1)
def _prepared(dataset, data_dir, data_path, source_language, target_language, eval_split,
              vocab_size, eval_sentences, also_translate=()):
    """(corpus, subword model, tokenized splits): built once per process for the cohorts
    of a sweep that share them (a smoke run of multi30k_recipe spent 8-15 s a cohort
    re-reading and re-encoding Multi30k). Only the last one is kept: a corpus can be big.
    The splits are never written to, so the cohorts share them safely."""
    corpus = datasets.load(dataset, data_dir or None, data_path or None, source_language,
                           target_language,
                           splits=sorted({"train", "validation", eval_split, *also_translate}))
    # Read only if the subword model must be trained (it is cached after that).
    train_texts = (text for language in (corpus.source_language, corpus.target_language)
                   for text in corpus.texts("train", language))
    processor = subwords.train_or_load(train_texts, corpus.data_dir, vocab_size)
    splits = {name: pipeline.tokenize(corpus, name, processor) for name in corpus.splits}
    splits = {name: split if name == "train" else split.head(eval_sentences)
              for name, split in splits.items()}
    return corpus, processor, splits


class Translation:
    name = "translation"
    curve_score = "bleu"
    curve_evaluation = False  # BLEU needs the whole split decoded
    write_sweep_report = staticmethod(report.write_sweep_report)
    sample_batch = None  # batches come from the host pipeline

    @classmethod
    def configure(cls, config):
        """The task's fields, and run defaults sized for Multi30k on a CPU."""
        task = config.task
        task.dataset = "multi30k"  # multi30k, ding_de_en, or any TFDS translation dataset (wmt14_translate/de-en)
        task.data_dir = ""  # TFDS data directory ('': TFDS's default, ~/tensorflow_datasets)
        task.data_path = ""  # a built-in corpus's files (multi30k: a folder of its .gz files; ding_de_en: its file); '': manual dir or download
        task.source_language = ""  # '': the dataset's supervised keys (multi30k, ding_de_en: de -> en)
        task.target_language = ""
        task.vocab_size = 2000  # SentencePiece pieces, one model for both languages (the recipe sets it)
        task.length_buckets = (16, 24, 32, 48)  # training batch widths (pieces); longer pairs skipped (use_corpus sets them)
        task.data_seed = 0  # order of the length buckets, shared by a cohort's members
        task.batch_tokens = 0  # > 0: a training batch holds about this many target tokens (padded), not train.batch_size pairs
        task.subword_alpha = 0.0  # > 0: subword regularisation in training (Kudo 2018): P(x)^alpha over the l best
        task.subword_nbest = 64  # l: segmentations sampled from when subword_alpha > 0 (>= 2)
        task.eval_max_length = 128  # held-out sources and references are cut to this many pieces
        task.eval_batch_size = 128  # sentences per evaluation batch
        task.eval_sentences = 0  # > 0: only each held-out split's first N pairs (smoke runs); 0: all
        task.eval_split = "test"  # the split the final BLEU is measured on (multi30k: test is test_2016_flickr; also test2017, mscoco2017, test2018)
        task.also_translate = ()  # more held-out splits translated and scored at the end beside it, e.g. ("test2017", "test2018")
        task.beam_size = 4  # final evaluation; 1 = greedy (evaluations during training are greedy)
        task.length_penalty = 0.6  # GNMT's alpha in ((5 + |Y|) / 6)^alpha
        task.coverage_penalty = 0.0  # GNMT's beta in Wu et al. 2016, Eq. 14 (0: off)
        # alphas: the final splits are also translated at the one each member chooses on
        # validation (beam search; the fields below say how), scored and written as
        # '<split>.lp_tuned' beside the translations at task.length_penalty; () = none.
        task.length_penalty_search = ()
        # > 0: only alphas whose validation outputs on sources of at least
        # length_penalty_long_words words reach this fraction of the references' length
        # compete (none does: the alpha of the longest such outputs)
        task.length_penalty_min_ratio = 0.0
        task.length_penalty_long_words = 16
        # among the alphas that compete: 'bleu' (the best validation BLEU) or 'smallest'
        # (the least that makes long outputs long enough: a length calibration)
        task.length_penalty_select = "bleu"
        # BLEU by source length: each bin's last word count, and one bin for longer
        # (use_corpus sets them; for WMT use e.g. (10, 20, 30, 40, 50), Bahdanau et
        # al.'s Figure 2).
        task.bleu_length_bins = (4, 6, 8, 10, 12)
        task.num_samples = 8  # sample translations (and heat maps) written with the summary
        train = config.train
        train.steps_per_call = 10
        train.log_every = 50
        train.checkpoint_every = 1000
        set_fields(config, DEFAULTS)
        cls.use_corpus(config, "multi30k")

    @classmethod
    def use_corpus(cls, config, name: str):
        """Train on the built-in corpus ``name``, with the length fields that suit its
        sentences (``CORPUS_LENGTHS``)."""
        config.task.dataset = name
        config.task.update(CORPUS_LENGTHS[name])
        return config

    @classmethod
    def shrink(cls, config):
        # SentencePiece needs a piece for every character (character_coverage 1.0): the
        # real Multi30k holds 104, ding_de_en 107, so a smoke run on them takes 128.
        # (The tests' small corpora set 100: tests/conftest.py, TINY_TEST_VOCAB.)
        config.task.update(vocab_size=128, length_buckets=(12, 24), eval_max_length=32,
                           eval_batch_size=32, eval_sentences=64, beam_size=2, num_samples=4)
        config.model.hidden_size = 16

    @classmethod
    def validate(cls, config):
        task = config.task
        require(task.vocab_size >= 16, f"task.vocab_size must be >= 16, got {task.vocab_size}")
        require(task.eval_sentences >= 0,
                f"task.eval_sentences must be >= 0 (0: every pair), got {task.eval_sentences}")
        buckets = list(task.length_buckets)
        require(bool(buckets) and all(b >= 2 for b in buckets) and buckets == sorted(set(buckets)),
                f"task.length_buckets must be increasing widths >= 2, got {tuple(buckets)}")
        require(task.eval_max_length >= buckets[-1],
                f"task.eval_max_length ({task.eval_max_length}) must be >= the longest "
                f"training bucket ({buckets[-1]})")
        bins = list(task.bleu_length_bins)
        require(bool(bins) and bins[0] >= 1 and bins == sorted(set(bins)),
                f"task.bleu_length_bins must be increasing word counts >= 1 (each BLEU bin's "
                f"last length), got {tuple(bins)}")
        for field in ("eval_batch_size", "beam_size"):
            require(task[field] >= 1, f"task.{field} must be >= 1, got {task[field]}")
        require(task.length_penalty >= 0, f"task.length_penalty must be >= 0, got "
                f"{task.length_penalty}")
        require(task.coverage_penalty >= 0, f"task.coverage_penalty must be >= 0, got "
                f"{task.coverage_penalty}")
        search = list(task.length_penalty_search)
        # The beam's early stop assumes alpha >= 0 (beam_search's bound).
        require(all(alpha >= 0 for alpha in search) and len(set(search)) == len(search),
                f"task.length_penalty_search must list distinct alphas >= 0 (or be empty), "
                f"got {tuple(search)}")
        require(task.length_penalty_min_ratio >= 0 and task.length_penalty_long_words >= 1,
                f"task.length_penalty_min_ratio must be >= 0 and task.length_penalty_long_words "
                f">= 1, got {task.length_penalty_min_ratio} and {task.length_penalty_long_words}")
        require(task.length_penalty_select in SELECTIONS,
                f"task.length_penalty_select must be one of {', '.join(SELECTIONS)}, got "
                f"{task.length_penalty_select!r}")
        require(not search or task.beam_size > 1,
                f"task.length_penalty_search needs beam search (task.beam_size > 1; greedy "
                f"decoding has no length penalty), got beam_size {task.beam_size}")
        # Which splits a corpus has is known once it is loaded (datasets.load refuses a
        # missing one with the corpus's own list); training data is never a test set.
        require(bool(task.eval_split) and task.eval_split != "train",
                f"task.eval_split must name a held-out split (validation, test, or a "
                f"corpus's own, e.g. multi30k's test2017), got {task.eval_split!r}")
        also = list(task.also_translate)
        require(all(name and name not in ("train", task.eval_split) for name in also)
                and len(set(also)) == len(also),
                f"task.also_translate must name held-out splits other than task.eval_split "
                f"({task.eval_split!r}), each once, got {tuple(also)}")
        require(task.num_samples >= 0, "task.num_samples must be >= 0")
        require(task.batch_tokens == 0 or task.batch_tokens >= buckets[-1],
                f"task.batch_tokens must be 0 (train.batch_size pairs a batch) or at least "
                f"the longest bucket ({buckets[-1]}), got {task.batch_tokens}")
        require(task.subword_alpha >= 0, f"task.subword_alpha must be >= 0 (0: no sampling), "
                f"got {task.subword_alpha}")
        require(task.subword_alpha == 0 or task.subword_nbest >= 2,
                f"task.subword_nbest must be >= 2 when task.subword_alpha > 0 (sampling is "
                f"over the l best segmentations, reproducibly; SentencePiece's whole-lattice "
                f"sampling, -1, cannot be replayed on resume), got {task.subword_nbest}")

    @classmethod
    def selection_metrics(cls, config) -> tuple[str, ...]:
        """The held-out metrics ``train.best_metric`` may name (the validation split's)."""
        return tuple(f"eval/{metric}/validation" for metric in ("bleu", "bleu_lc", "chrf",
                                                                 "loss", "token_acc"))

    def __init__(self, config, seeds, verbose: bool = False):
        self.config, self.seeds = config, list(seeds)
        task = config.task
        corpus, self.processor, self.splits = _prepared(
            task.dataset, task.data_dir, task.data_path, task.source_language,
            task.target_language, task.eval_split, task.vocab_size, task.eval_sentences,
            tuple(task.also_translate))
        self.vocab_size = self.processor.get_piece_size()
        # The model writes normalised text ("..." for "…"); its outputs get the training
        # targets' own characters back before they are scored (subwords.restoration).
        self.restoring = subwords.restoration(self.splits["train"].target_texts)
        self.references = {name: split.target_texts for name, split in self.splits.items()
                           if name != "train"}
        sampler = (subwords.SubwordSampler(self.processor, task.subword_alpha,
                                           task.subword_nbest)
                   if task.subword_alpha > 0 else None)
        self.batches = pipeline.TrainBatches(
            self.splits["train"], task.length_buckets, config.train.batch_size,
            config.train.steps_per_call, task.data_seed, self.seeds,
            batch_tokens=task.batch_tokens, row_multiple=config.mesh.data, sampler=sampler)
        # Evaluation batches take the training widths plus one for the longest sentences.
        self.eval_widths = sorted({*task.length_buckets, task.eval_max_length})
        if verbose:
            print(f"{corpus.name} {corpus.source_language}->{corpus.target_language}: "
                  + ", ".join(f"{n} {len(s)}" for n, s in self.splits.items())
                  + f" pairs; {self.vocab_size} subword pieces; {self.batches.skipped} training "
                  f"pairs longer than {task.length_buckets[-1]} pieces left out")

    def example_batch(self) -> Batch:
        split = self.splits["train"]
        return pipeline.collate(split.sources[:1], split.targets[:1], self.batches.boundaries[0])

    def host_batches(self, first_call: int, placement):
        """Every train call's batches from ``first_call`` on, as global arrays: this
        process builds only the members and rows its devices hold."""
        sharding = placement.batch_blocks
        members, rows = pipeline.local_share(sharding, self.batches.global_shape(first_call))
        for call, block in self.batches.as_grain(first_call, members, rows):
            shape = self.batches.global_shape(call)
            yield Batch(*(pipeline.to_global(field, shape[:field.ndim], sharding, members, rows)
                          for field in block))

    def alignment_targets(self, batch):
        return None  # a translation's alignment is not known

    def make_evaluation(self, model, placement):
        """Validation loss and token accuracy (teacher forcing) and greedy BLEU/chrF."""
        teacher_forced = make_teacher_forced(model, placement)
        self.greedy = make_translate(model, placement, 1, 0.0)
        self.beam = make_translate(model, placement, self.config.task.beam_size,
                                   self.config.task.length_penalty,
                                   self.config.task.coverage_penalty)
        if held_out.enabled(self.config):
            self.analyse = analysis.make_analysis(self, model, placement)

        def evaluate(params) -> list[dict]:
            means = self._validation_means(teacher_forced, params)
            split = self.splits["validation"]
            shown = self._sample_indices(split)[:4]  # TensorBoard's samples (``pictures``)
            hypotheses, drawn = self.translate(params, "validation", beam=False,
                                               indices=shown)
            references = self.references["validation"]
            results = []
            for member in range(len(self.seeds)):
                scores = metrics.corpus_scores(hypotheses[member], references)
                results.append({"metrics": {
                    **{f"eval/{name}/validation": float(value[member])
                       for name, value in means.items()},
                    **{f"eval/{name}/validation": value for name, value in scores.items()}},
                    "samples": [{"source": split.source_texts[i], "reference": references[i],
                                 "greedy translation": hypotheses[member][i]} for i in shown],
                    "drawn": [{"source": source, "output": tokens[member],
                               "weights": weights[member], "correct": None}
                              for source, tokens, weights in drawn.values()]})
            return results
        return evaluate

    def _validation_means(self, teacher_forced, params) -> dict:
        """Per member, over the validation split's target tokens: loss, token accuracy
        and, with a pointer-generator, copy rate (mean 1 − p_gen)."""
        split = self.splits["validation"]
        names = {"nll": "loss", "correct": "token_acc", "copied": "copy_rate"}
        sums = {}
        for rows, batch in pipeline.eval_batches(split, self.config.task.eval_batch_size,
                                                 self.eval_widths):
            stats = jax.device_get(teacher_forced(params, batch))
            real = len(rows)  # the last batch is filled up with copies of its final row
            for key, value in stats.items():
                sums[key] = sums.get(key, 0.0) + value[:, :real].sum(axis=1)
        return {names[key]: sums[key] / sums["count"] for key in names if key in sums}

    def translate(self, params, split_name, beam: bool, indices=(), alphas=None):
        """Every member's detokenised translations of a split, and the source, tokens and
        weights of the sentences ``indices``: ([M][N] strings, {index: (source, tokens
        per member, weights per member)}). ``alphas`` [M]: each member's length penalty
        (beam search; None: task.length_penalty)."""
        split, task = self.splits[split_name], self.config.task
        translate = self.beam if beam else self.greedy
        outputs = [[""] * len(split) for _ in self.seeds]
        wanted, drawn = set(indices), {}
        for rows, batch in pipeline.eval_batches(split, task.eval_batch_size, self.eval_widths):
            width = batch.source.shape[1]
            max_length = min(task.eval_max_length, 2 * width)
            tokens, weights = jax.device_get(translate(params, batch.source, max_length,
                                                       alphas) if beam
                                             else translate(params, batch.source, max_length))
            for j, index in enumerate(rows):
                for member in range(len(self.seeds)):
                    outputs[member][index] = self.detokenize(tokens[member, j])
                if index in wanted:
                    drawn[index] = (batch.source[j], tokens[:, j], weights[:, j])
        return outputs, drawn

    def detokenize(self, tokens) -> str:
        tokens = [int(t) for t in tokens]
        if EOS in tokens:
            tokens = tokens[:tokens.index(EOS)]
        text = self.processor.decode([t for t in tokens if t != PAD])
        return subwords.restore([text], self.restoring)[0]

    def pictures(self, result) -> tuple[dict, dict]:
        """Greedy translations of a few validation sentences and their heat maps (none
        without explicit attention, which records no weights)."""
        images = {f"attention_{j + 1}": plotting.heatmap_pixels(example)
                  for j, example in enumerate(result["drawn"]) if np.any(example["weights"])}
        return images, {"samples": plotting.samples_markdown(result["samples"])}

    def progress_line(self, metrics_) -> str:
        return ", ".join(f"{k.removeprefix('eval/')}={v:.3f}" for k, v in metrics_.items())

    def _sample_indices(self, split):
        """``num_samples`` sentences spread over the source lengths."""
        count = min(self.config.task.num_samples, len(split))
        if not count:
            return []
        order = np.argsort(split.source_lengths, kind="stable")
        return [int(order[i]) for i in np.linspace(0, len(order) - 1, count).round().astype(int)]

    def finish(self, params, results, runs, step: int) -> list[Final]:
        """Translate ``task.eval_split`` (beam search), score it, write and draw it."""
        task = self.config.task
        split = self.splits[task.eval_split]
        samples = self._sample_indices(split)
        hypotheses, drawn = self.translate(params, task.eval_split, beam=task.beam_size > 1,
                                           indices=samples)
        # The implicit analysis (analysis.implicit) runs once, here, on the final parameters.
        analysed = (self.analyse(params, samples) if held_out.enabled(self.config)
                    else [({}, [])] * len(runs))
        references = self.references[task.eval_split]
        finals = []
        for member, run in enumerate(runs):
            scores = metrics.corpus_scores(hypotheses[member], references)
            by_length = metrics.bleu_by_length(hypotheses[member], references,
                                               split.source_texts, task.bleu_length_bins)
            scored = {f"{task.eval_split}/{name}": value for name, value in scores.items()}
            sample_rows = [{"source": split.source_texts[i], "reference": references[i],
                            "translation": hypotheses[member][i]} for i in samples]
            finals.append(Final(
                log=scored | analysed[member][0],
                summary={"dataset": task.dataset,
                         "decoding": {"split": task.eval_split, "beam_size": task.beam_size,
                                      "length_penalty": task.length_penalty,
                                      "coverage_penalty": task.coverage_penalty},
                         "data": {name: len(s) for name, s in self.splits.items()}
                         | {"train_pairs_too_long": self.batches.skipped,
                            "vocab_size": self.vocab_size}},
                member={"bleu_by_length": by_length, "samples": sample_rows}))
            if run.workdir.is_writer:
                self._write_translations(run.workdir, split, references, task.eval_split,
                                         hypotheses[member])
                self._plot(run, step, member, drawn, by_length)
                self._plot_explicit_vs_implicit(run, step, analysed[member][1])
        for name in task.also_translate:  # scored and written beside, drawn nowhere
            hypotheses, _ = self.translate(params, name, beam=task.beam_size > 1)
            for member, run in enumerate(runs):
                scores = metrics.corpus_scores(hypotheses[member], self.references[name])
                finals[member].log.update({f"{name}/{k}": v for k, v in scores.items()})
                if run.workdir.is_writer:
                    self._write_translations(run.workdir, self.splits[name],
                                             self.references[name], name, hypotheses[member])
        if task.length_penalty_search:
            self._at_tuned_length_penalty(params, runs, finals)
        return finals

    def _at_tuned_length_penalty(self, params, runs, finals):
        """Translate the validation split at every alpha of task.length_penalty_search,
        take for each member the alpha of its best cased validation BLEU, or the
        smallest (task.length_penalty_select), among those whose long outputs are long
        enough (task.length_penalty_min_ratio; ``best_length_penalty``), and translate
        the final splits again at it, scored and written as '<split>.lp_tuned' (TUNED).
        A length penalty tuned for neither of two models decides how short each one's
        long outputs are (GNMT, Wu et al. 2016, Sec. 7, tuned alpha on development
        data); the translations at task.length_penalty stay as they were."""
        task = self.config.task
        grid = [float(alpha) for alpha in task.length_penalty_search]
        references = self.references["validation"]
        words = np.array([len(s.split()) for s in self.splits["validation"].source_texts])
        # Whole-split ratios where the validation split has no long source (smoke runs).
        long = np.flatnonzero(words >= task.length_penalty_long_words) if np.any(
            words >= task.length_penalty_long_words) else np.arange(len(words))
        measured = [{} for _ in runs]  # per member {alpha: {bleu, length ratios}}
        for alpha in grid:
            hypotheses, _ = self.translate(params, "validation", beam=True,
                                           alphas=[alpha] * len(runs))
            for member in range(len(runs)):
                statistics = metrics.sentence_statistics(hypotheses[member], references)
                ratio = lambda rows: float(statistics[rows, 8].sum()  # noqa: E731
                                           / max(statistics[rows, 9].sum(), 1))
                # Corpus BLEU from the same statistics (bleu_from_statistics: sacrebleu's
                # corpus_bleu to 1e-13), not a second scoring with chrF it would discard.
                measured[member][alpha] = {
                    "bleu": metrics.bleu_from_statistics(statistics.sum(0)),
                    "length_ratio": ratio(slice(None)), "long_length_ratio": ratio(long)}
        chosen = [best_length_penalty(m, task.length_penalty_min_ratio, task.length_penalty,
                                      task.length_penalty_select) for m in measured]
        for member, final in enumerate(finals):
            final.summary["decoding"]["length_penalty_search"] = {
                "validation": {str(alpha): m for alpha, m in measured[member].items()},
                "long_words": task.length_penalty_long_words,
                "min_ratio": task.length_penalty_min_ratio,
                "select": task.length_penalty_select, "chosen": chosen[member]}
            final.log["validation/length_penalty_chosen"] = chosen[member]
        for name in (task.eval_split, *task.also_translate):
            hypotheses, _ = self.translate(params, name, beam=True, alphas=chosen)
            for member, run in enumerate(runs):
                scores = metrics.corpus_scores(hypotheses[member], self.references[name])
                finals[member].log.update({f"{name}{TUNED}/{k}": v for k, v in scores.items()})
                if run.workdir.is_writer:
                    self._write_translations(run.workdir, self.splits[name],
                                             self.references[name], name + TUNED,
                                             hypotheses[member])

    @staticmethod
    def _write_translations(workdir, split, references, name, hypotheses):
        """translations/<split>.{source,reference,hypothesis}.txt, one sentence a line:
        what sacrebleu's command line takes, e.g. for a paired bootstrap test between
        two runs (sacrebleu REF -i HYP_A HYP_B --paired-bs). The hypotheses are the
        restored ones BLEU was computed on (subwords.restore)."""
        folder = workdir.path / "translations"
        folder.mkdir(exist_ok=True)
        for kind, lines in (("source", split.source_texts), ("reference", references),
                            ("hypothesis", hypotheses)):
            (folder / f"{name}.{kind}.txt").write_text("".join(f"{line}\n" for line in lines))

    def _plot_explicit_vs_implicit(self, run, step, examples):
        """The sample sentences' explicit weights, implicit map (and rollout) side by
        side over their subword pieces; a Transformer's every head of the first."""
        if not examples:
            return
        title = f"{run.title} — {self.config.task.dataset}, step {step}"
        plots, labels = run.workdir.plots_dir, self.processor.id_to_piece
        plotting.explicit_vs_implicit(plots / "explicit_vs_implicit.png", examples, title,
                                      labels=labels)
        first = examples[0]
        if first["layers"]:
            plotting.attention_heads(plots / "attention_heads.png", first["source"],
                                     first["target"], first["layers"], title, labels=labels)

    def _plot(self, run, step, member, drawn, by_length):
        plots = run.workdir.plots_dir
        examples = []
        for source, tokens, weights in drawn.values():
            if not np.any(weights[member]):
                continue  # no attention (none, fused) records no weights
            examples.append({"source": source, "output": tokens[member],
                             "weights": weights[member], "correct": None})
        if examples:  # the four shortest samples: small enough to read every piece
            plotting.attention_heatmaps(
                plots / "attention.png", examples[:4],
                f"{run.title} — {self.config.task.dataset}, step {step}",
                labels=self.processor.id_to_piece)
        plotting.bleu_by_length(plots / "bleu_by_length.png",
                                {f"seed {run.config.seed}": by_length}, run.title)


def best_length_penalty(measured: dict, min_ratio: float = 0.0, default: float = 0.6,
                        select: str = "bleu") -> float:
    """The alpha of ``measured`` ({alpha: {'bleu', 'long_length_ratio', ...}}) among
    those whose long outputs are at least ``min_ratio`` of the references' length: with
    the highest validation BLEU (``select`` 'bleu'), or the smallest ('smallest': the
    least penalty that makes long outputs long enough, where BLEU is flat and its best
    would be noise). If none is long enough, the alpha of the longest long outputs. A tie
    goes to the alpha nearest ``default`` (task.length_penalty), then the larger: no tie
    leans toward shorter outputs."""
    eligible = {a: m for a, m in measured.items() if m["long_length_ratio"] >= min_ratio}
    if eligible and select == "smallest":
        return min(eligible)
    key = "bleu" if eligible else "long_length_ratio"
    candidates = eligible or measured
    best = max(m[key] for m in candidates.values())
    return min((a for a, m in candidates.items() if m[key] == best),
               key=lambda a: (round(abs(a - default), 9), -a))
