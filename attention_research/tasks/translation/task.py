"""``translation``: any TFDS translation corpus (``multi30k``, the default, and
``ding_de_en`` built in) as a Task.

What differs from the symbol tasks: batches come from the input pipeline
(``pipeline.py``) on the host instead of being sampled inside the step, and no
alignment is known. The task holds the corpus, its subword model (one for both
languages), its tokenized splits and their references, and turns a model's tokens
back into text (``detokenize``). ``training/evaluation/corpus.py`` runs the models over it (the
task's ``evaluation``: validation loss and greedy BLEU during training, the test split
decoded with beam search and scored with sacrebleu at the end), and
``reports/figures.py`` draws its samples' attention over subword pieces.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from attention_research.data import BOS, EOS, PAD, Batch
from attention_research.errors import InputError, require
from attention_research.metric_names import eval_key
from attention_research.tasks.translation import datasets, pipeline, plain_text, subwords


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
    "train.best_metric": eval_key("bleu_lc", "validation"),
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
    return corpus, processor, TokenizedSplits(corpus, processor, eval_sentences)


class TokenizedSplits(Mapping):
    """{split name: pipeline.TokenizedSplit}, each split encoded when first read: a
    trained model used on a sentence of one's own (attention_research/use/) needs the
    subword model, not Multi30k's 29,000 training pairs encoded (5-20 s on a CPU).
    The held-out splits keep their first ``eval_sentences`` pairs (0: all)."""

    def __init__(self, corpus, processor, eval_sentences: int):
        self.corpus, self.processor, self.eval_sentences = corpus, processor, eval_sentences
        self._encoded = {}

    def __getitem__(self, name):
        if name not in self._encoded:
            split = pipeline.tokenize(self.corpus, name, self.processor)  # KeyError if none
            self._encoded[name] = split if name == "train" else split.head(self.eval_sentences)
        return self._encoded[name]

    def __iter__(self):
        return iter(self.corpus.splits)

    def __len__(self):
        return len(self.corpus.splits)


class Translation:
    name = "translation"
    curve_score = "bleu"
    evaluation = "corpus"  # training/evaluation/corpus.py runs the models over it
    sample_batch = None  # batches come from the host pipeline

    @classmethod
    def configure(cls, config):
        """The task's fields, and run defaults sized for Multi30k on a CPU."""
        task = config.task
        task.dataset = "multi30k"  # multi30k, ding_de_en, plain_text (your own files: task.data_path), or any TFDS translation dataset (wmt14_translate/de-en)
        task.data_dir = ""  # TFDS data directory ('': TFDS's default, ~/tensorflow_datasets)
        task.data_path = ""  # a built-in corpus's files (multi30k: a folder of its .gz files; ding_de_en: its file; plain_text: a folder of train.<language> files or of train.tsv, or a .tsv); '': manual dir or download
        task.source_language = ""  # '': the dataset's supervised keys (multi30k, ding_de_en: de -> en); plain_text: required, its files' suffix
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
        if task.dataset == plain_text.NAME:
            require(bool(task.data_path) and bool(task.source_language)
                    and bool(task.target_language)
                    and task.source_language != task.target_language,
                    "task.dataset=plain_text needs task.data_path (a folder of "
                    "train.<language> files or of train.tsv, or a .tsv file) and two "
                    "different languages, task.source_language and task.target_language "
                    f"(got {task.data_path!r}, {task.source_language!r}, "
                    f"{task.target_language!r})")
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
        return tuple(eval_key(metric, "validation") for metric in ("bleu", "bleu_lc", "chrf",
                                                                 "loss", "token_acc"))

    def __init__(self, config, seeds, verbose: bool = False):
        self.config, self.seeds = config, list(seeds)
        task = config.task
        corpus, self.processor, self.splits = _prepared(
            task.dataset, task.data_dir, task.data_path, task.source_language,
            task.target_language, task.eval_split, task.vocab_size, task.eval_sentences,
            tuple(task.also_translate))
        self.corpus = corpus
        self.vocab_size = self.processor.get_piece_size()
        # The model writes normalised text ("..." for "…"); its outputs get the training
        # targets' own characters back before they are scored (subwords.restoration).
        self.restoring = subwords.restoration(corpus.texts("train", corpus.target_language))
        # Evaluation batches take the training widths plus one for the longest sentences.
        self.eval_widths = sorted({*task.length_buckets, task.eval_max_length})
        if verbose:
            print(f"{corpus.name} {corpus.source_language}->{corpus.target_language}: "
                  + ", ".join(f"{n} {len(s)}" for n, s in self.splits.items())
                  + f" pairs; {self.vocab_size} subword pieces; {self.batches.skipped} training "
                  f"pairs longer than {task.length_buckets[-1]} pieces left out"
                  + (f"; {corpus.note}" if corpus.note else ""))

    @functools.cached_property
    def references(self) -> dict:
        """{held-out split: its reference texts}."""
        return {name: self.splits[name].target_texts for name in self.splits if name != "train"}

    @functools.cached_property
    def batches(self) -> pipeline.TrainBatches:
        """The training stream (made when training first asks for it)."""
        task = self.config.task
        sampler = (subwords.SubwordSampler(self.processor, task.subword_alpha,
                                           task.subword_nbest)
                   if task.subword_alpha > 0 else None)
        return pipeline.TrainBatches(
            self.splits["train"], task.length_buckets, self.config.train.batch_size,
            self.config.train.steps_per_call, task.data_seed, self.seeds,
            batch_tokens=task.batch_tokens, row_multiple=self.config.mesh.data, sampler=sampler)

    def example_batch(self) -> Batch:
        """The first training pair, encoded as the training split encodes it, in the
        narrowest bucket: what the model is initialised on (its shapes)."""
        source, target = self.corpus.pair("train", 0)
        encode = lambda text: np.asarray(self.processor.encode(text), np.int32)  # noqa: E731
        return pipeline.collate([encode(source)], [encode(target)],
                                sorted(self.config.task.length_buckets)[0])

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

    def encode(self, text: str) -> np.ndarray:
        """One sentence -> its subword pieces; characters the subword model has no
        piece for (they would become its unknown piece) are refused, by name."""
        if not text.strip():
            raise InputError("an empty input: give one sentence a line")
        tokens = np.asarray(self.processor.encode(text), np.int32)
        if np.any(tokens == subwords.UNK):
            unknown = sorted({c for c in text if not c.isspace()
                              and subwords.UNK in self.processor.encode(c)})
            raise InputError(f"{text!r} holds {' '.join(map(repr, unknown)) or 'characters'}"
                             f", which the run's subword model ({self.vocab_size} pieces, "
                             f"trained on {self.config.task.dataset}'s training split) "
                             "cannot encode: remove or replace them")
        return tokens

    def decode(self, tokens) -> str:
        return self.detokenize(tokens)

    def tokenized(self, sources, references) -> pipeline.TokenizedSplit:
        """Parallel texts of one's own (plain_text.read_parallel) as a split, encoded by
        the run's subword model, to be decoded and scored as the run's own are."""
        encode = lambda text: np.asarray(self.processor.encode(text), np.int32)  # noqa: E731
        return pipeline.TokenizedSplit([encode(s) for s in sources],
                                       [encode(r) for r in references],
                                       list(sources), list(references))

    def label(self, token: int) -> str:
        return {PAD: "<pad>", BOS: "<s>", EOS: "</s>"}.get(int(token)) or \
            self.processor.id_to_piece(int(token))

    def output_length(self, source_width: int) -> int:
        return min(self.config.task.eval_max_length, 2 * source_width)  # as corpus.py

    def detokenize(self, tokens) -> str:
        tokens = [int(t) for t in tokens]
        if EOS in tokens:
            tokens = tokens[:tokens.index(EOS)]
        text = self.processor.decode([t for t in tokens if t != PAD])
        return subwords.restore([text], self.restoring)[0]

    def sample_indices(self, split):
        """``num_samples`` sentences spread over the source lengths."""
        count = min(self.config.task.num_samples, len(split))
        if not count:
            return []
        order = np.argsort(split.source_lengths, kind="stable")
        return [int(order[i]) for i in np.linspace(0, len(order) - 1, count).round().astype(int)]
