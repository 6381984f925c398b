"""Training on translation: the cohort of ``loop.py`` with a real corpus.

What differs from the synthetic tasks: batches come from the input pipeline
(``tasks/translation/pipeline.py``) instead of being sampled inside the step;
evaluation during training is the validation loss and greedy BLEU; at the end the
``task.eval_split`` split is translated with beam search and scored with sacrebleu
(BLEU, chrF, BLEU by source length), and sample translations are drawn with their
attention over subword pieces.
"""

from __future__ import annotations

import jax
import numpy as np

from attention_research import models, plotting
from attention_research.tasks.synthetic import EOS, PAD, Batch
from attention_research.tasks.translation import datasets, metrics, pipeline, subwords
from attention_research.training.loop import _Cohort, describe, peak_memory
from attention_research.training.steps import make_teacher_forced, make_train_call, make_translate


class TranslationCohort(_Cohort):

    def setup(self):
        config, task = self.config, self.config.task
        corpus = datasets.load(task.dataset, task.data_dir or None, task.data_path or None,
                               task.source_language, task.target_language,
                               splits=sorted({"train", "validation", task.eval_split}))
        self.corpus = corpus
        # Read only if the subword model must be trained (it is cached after that).
        train_texts = (text for language in (corpus.source_language, corpus.target_language)
                       for text in corpus.texts("train", language))
        self.processor = subwords.train_or_load(train_texts, corpus.data_dir, task.vocab_size)
        self.splits = {name: pipeline.tokenize(corpus, name, self.processor)
                       for name in corpus.splits}
        vocab = self.processor.get_piece_size()
        self.model = models.make_model(config, vocab, vocab)
        self.batches = pipeline.TrainBatches(
            self.splits["train"], task.length_buckets, config.train.batch_size,
            config.train.steps_per_call, task.data_seed, self.seeds)
        self.train_call = make_train_call(self.model, self.tx, config, self.placement,
                                          host_batches=True)
        # Evaluation batches take the training widths plus one for the longest sentences.
        self.eval_widths = sorted({*task.length_buckets, task.eval_max_length})
        self.teacher_forced = make_teacher_forced(self.model, self.placement)
        self.greedy = make_translate(self.model, self.placement, 1, 0.0)
        self.beam = make_translate(self.model, self.placement, task.beam_size,
                                   task.length_penalty)
        if self.is_writer:
            print(f"{corpus.name} {corpus.source_language}->{corpus.target_language}: "
                  + ", ".join(f"{n} {len(s)}" for n, s in self.splits.items())
                  + f" pairs; {vocab} subword pieces; {self.batches.skipped} training pairs "
                  f"longer than {task.length_buckets[-1]} pieces left out")

    def example_batch(self):
        split = self.splits["train"]
        return pipeline.collate(split.sources[:1], split.targets[:1], self.batches.boundaries[0])

    def start_training(self, state, step, progress: bool):
        steps_per_call = self.config.train.steps_per_call
        first_call = step // steps_per_call
        sharding = self.placement.host_batches
        members, rows = pipeline.local_share(sharding, self.batches.global_shape(first_call))
        calls = iter(self.batches.as_grain(first_call, members, rows))

        def to_global(local, shape):
            offset = (members.start, 0, rows.start)

            def shard(index):
                local_index = tuple(
                    slice((i.start or 0) - offset[a], (shape[a] if i.stop is None else i.stop)
                          - offset[a]) if a < 3 else i for a, i in enumerate(index))
                return local[local_index]
            return jax.make_array_from_callback(shape, sharding, shard)

        def advance(state, step):
            call, block = next(calls)
            assert call == step // steps_per_call, (call, step)
            shape = self.batches.global_shape(call)
            batch = Batch(*(to_global(field, shape[:field.ndim]) for field in block))
            return self.train_call(state, batch)
        return advance

    def progress_line(self, metrics_) -> str:
        return ", ".join(f"{k.removeprefix('eval/')}={v:.3f}" for k, v in metrics_.items())

    def translate(self, state, split_name, beam: bool, indices=None):
        """Every member's detokenised translations of a split (and the weights of
        ``indices``): ([M][N] strings, {index: (tokens, weights) per member})."""
        split, task = self.splits[split_name], self.config.task
        translate = self.beam if beam else self.greedy
        outputs = [[""] * len(split) for _ in self.seeds]
        kept = {}
        wanted = set(indices or ())
        for rows, batch in pipeline.eval_batches(split, task.eval_batch_size, self.eval_widths):
            width = batch.source.shape[1]
            max_length = min(task.eval_max_length, 2 * width)
            tokens, weights = jax.device_get(translate(state.params, batch.source, max_length))
            for j, index in enumerate(rows):
                for member in range(len(self.seeds)):
                    outputs[member][index] = self.detokenize(tokens[member, j])
                if index in wanted:
                    kept[index] = (batch.source[j], tokens[:, j], weights[:, j])
        return outputs, kept

    def detokenize(self, tokens) -> str:
        tokens = [int(t) for t in tokens]
        if EOS in tokens:
            tokens = tokens[:tokens.index(EOS)]
        return self.processor.decode([t for t in tokens if t != PAD])

    def validation_loss(self, state):
        split = self.splits["validation"]
        sums = np.zeros((3, len(self.seeds)))
        for rows, batch in pipeline.eval_batches(split, self.config.task.eval_batch_size,
                                                 self.eval_widths):
            stats = jax.device_get(self.teacher_forced(state.params, batch))
            real = len(rows)  # the last batch is filled up with copies of its final row
            for k, key in enumerate(("nll", "correct", "count")):
                sums[k] += stats[key][:, :real].sum(axis=1)
        return sums[0] / sums[2], sums[1] / sums[2]

    def run_eval(self, step, state, log=True):
        loss, token_acc = self.validation_loss(state)
        hypotheses, _ = self.translate(state, "validation", beam=False)
        references = self.splits["validation"].target_texts
        results = []
        for member, workdir in enumerate(self.workdirs):
            scores = metrics.corpus_scores(hypotheses[member], references)
            row = {"eval/loss/validation": float(loss[member]),
                   "eval/token_acc/validation": float(token_acc[member]),
                   "eval/bleu/validation": scores["bleu"], "eval/chrf/validation": scores["chrf"]}
            if log:
                workdir.log(step, member, {**row, "time_s": self.elapsed()})
            results.append({"metrics": row})
        return results

    def _sample_indices(self, split):
        """``num_samples`` sentences spread over the source lengths."""
        count = min(self.config.task.num_samples, len(split))
        if not count:
            return []
        order = np.argsort(split.source_lengths, kind="stable")
        return [int(order[i]) for i in np.linspace(0, len(order) - 1, count).round().astype(int)]

    def finish(self, step, state, results):
        task = self.config.task
        split = self.splits[task.eval_split]
        samples = self._sample_indices(split)
        hypotheses, kept = self.translate(state, task.eval_split, beam=task.beam_size > 1,
                                          indices=samples)
        summaries = []
        for member, (config, workdir, result) in enumerate(
                zip(self.configs, self.workdirs, results)):
            scores = metrics.corpus_scores(hypotheses[member], split.target_texts)
            by_length = metrics.bleu_by_length(hypotheses[member], split.target_texts,
                                               split.source_texts, task.bleu_length_bins)
            final = {f"{task.eval_split}/bleu": scores["bleu"],
                     f"{task.eval_split}/chrf": scores["chrf"], **result["metrics"]}
            workdir.log(step, member, {f"{task.eval_split}/bleu": scores["bleu"],
                                       f"{task.eval_split}/chrf": scores["chrf"],
                                       "time_s": self.elapsed()})
            sample_rows = [{"source": split.source_texts[i], "reference": split.target_texts[i],
                            "translation": hypotheses[member][i]} for i in samples]
            summary = {
                "name": config.name, "description": describe(config), "task": "translation",
                "dataset": task.dataset, "steps": step, "wall_time_s": self.elapsed(),
                "memory": peak_memory(),
                "decoding": {"split": task.eval_split, "beam_size": task.beam_size,
                             "length_penalty": task.length_penalty},
                "data": {name: len(s) for name, s in self.splits.items()}
                | {"train_pairs_too_long": self.batches.skipped,
                   "vocab_size": self.processor.get_piece_size()},
                "members": [{"member": member, "seed": config.seed,
                             "learning_rate": config.train.learning_rate, "final": final,
                             "bleu_by_length": by_length, "samples": sample_rows}]}
            workdir.write_summary(summary)
            summaries.append(summary)
            if self.is_writer:
                self._write_translations(workdir, split, task.eval_split, hypotheses[member])
                self._plot(workdir, config, step, member, kept, by_length)
        return summaries

    @staticmethod
    def _write_translations(workdir, split, name, hypotheses):
        """translations/<split>.{source,reference,hypothesis}.txt, one sentence a line:
        what sacrebleu's command line takes, e.g. for a paired bootstrap test between
        two runs (sacrebleu REF -i HYP_A HYP_B --paired-bs)."""
        folder = workdir.path / "translations"
        folder.mkdir(exist_ok=True)
        for kind, lines in (("source", split.source_texts), ("reference", split.target_texts),
                            ("hypothesis", hypotheses)):
            (folder / f"{name}.{kind}.txt").write_text("".join(f"{line}\n" for line in lines))

    def _plot(self, workdir, config, step, member, kept, by_length):
        plots, title = workdir.plots_dir, describe(config)
        pieces = self.processor.id_to_piece
        examples = []
        for source, tokens, weights in kept.values():
            if not np.any(weights[member]):
                continue  # no attention (none, fused) records no weights
            examples.append({"source": source, "output": tokens[member],
                             "weights": weights[member], "correct": None})
        if examples:  # the four shortest samples: small enough to read every piece
            plotting.attention_heatmaps(
                plots / "attention.png", examples[:4],
                f"{title} — {config.task.dataset}, step {step}", labels=pieces)
        plotting.learning_curves(plots / "learning_curves.png", workdir.read_metrics(), title,
                                 score="bleu")
        plotting.bleu_by_length(plots / "bleu_by_length.png",
                                {f"seed {config.seed}": by_length}, title)

