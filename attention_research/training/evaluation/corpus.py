"""The evaluation of a task on a parallel corpus (text in, text out; the task holds
the corpus, its subword model and its splits: ``tasks/translation/``).

During training: the validation split's loss and token accuracy (teacher forcing) and
its greedy BLEU and chrF. At the end the ``task.eval_split`` split (and
``task.also_translate``) is decoded with beam search, scored with sacrebleu (BLEU,
chrF, BLEU by source length) and written beside the run (``translations/``); with
``task.length_penalty_search``, decoded again at each member's tuned length penalty;
with ``analysis.implicit``, analysed once more, teacher-forced (``corpus_analysis.py``).
"""

from __future__ import annotations

import jax
import numpy as np

from attention_research.metric_names import as_column, eval_key, final_key
from attention_research.tasks.translation import metrics, pipeline
from attention_research.tasks.translation.task import TUNED
from attention_research.training import held_out
from attention_research.training.evaluation import Final, corpus_analysis
from attention_research.training.steps import make_teacher_forced, make_translate

SHOWN_DURING_TRAINING = 4  # validation samples TensorBoard shows at every evaluation


class CorpusEvaluation:
    """Validation loss and token accuracy (teacher forcing) and greedy BLEU/chrF."""

    curve_evaluation = False  # BLEU needs the whole split decoded

    def __init__(self, task, model, placement):
        self.task, self.config = task, task.config
        self.teacher_forced = make_teacher_forced(model, placement)
        self.greedy = make_translate(model, placement, 1, 0.0)
        self.beam = make_translate(model, placement, self.config.task.beam_size,
                                   self.config.task.length_penalty,
                                   self.config.task.coverage_penalty)
        self.analyse = (corpus_analysis.make_analysis(task, model, placement)
                        if held_out.enabled(self.config) else None)

    def __call__(self, params, seen_only: bool = False) -> list[dict]:
        assert not seen_only, "a corpus has no seen-lengths evaluation (curve_evaluation)"
        means = self._validation_means(params)
        split = self.task.splits["validation"]
        shown = self.task.sample_indices(split)[:SHOWN_DURING_TRAINING]
        hypotheses, drawn = self.decode(params, "validation", beam=False, indices=shown)
        references = self.task.references["validation"]
        results = []
        for member in range(len(self.task.seeds)):
            scores = metrics.corpus_scores(hypotheses[member], references)
            results.append({"metrics": {
                **{eval_key(name, "validation"): float(value[member])
                   for name, value in means.items()},
                **{eval_key(name, "validation"): value for name, value in scores.items()}},
                "samples": [{"source": split.source_texts[i], "reference": references[i],
                             "greedy translation": hypotheses[member][i]} for i in shown],
                "drawn": _drawn(drawn, member)})
        return results

    def _validation_means(self, params) -> dict:
        """Per member, over the validation split's target tokens: loss, token accuracy
        and, with a pointer-generator, copy rate (mean 1 − p_gen)."""
        split = self.task.splits["validation"]
        names = {"nll": "loss", "correct": "token_acc", "copied": "copy_rate"}
        sums = {}
        for rows, batch in pipeline.eval_batches(split, self.config.task.eval_batch_size,
                                                 self.task.eval_widths):
            stats = jax.device_get(self.teacher_forced(params, batch))
            real = len(rows)  # the last batch is filled up with copies of its final row
            for key, value in stats.items():
                sums[key] = sums.get(key, 0.0) + value[:, :real].sum(axis=1)
        return {names[key]: sums[key] / sums["count"] for key in names if key in sums}

    def decode(self, params, split_name, beam: bool, indices=(), alphas=None):
        """Every member's detokenised outputs of a split, and the source, tokens and
        weights of the sentences ``indices``: ([M][N] strings, {index: (source, tokens
        per member, weights per member)}). ``alphas`` [M]: each member's length penalty
        (beam search; None: task.length_penalty)."""
        return self.decode_split(params, self.task.splits[split_name], beam, indices, alphas)

    def decode_split(self, params, split, beam: bool, indices=(), alphas=None):
        """``decode`` of a tokenized split (pipeline.TokenizedSplit): one of the task's,
        or a user's own files (attention_research/use/)."""
        task = self.config.task
        decode = self.beam if beam else self.greedy
        outputs = [[""] * len(split) for _ in self.task.seeds]
        wanted, drawn = set(indices), {}
        for rows, batch in pipeline.eval_batches(split, task.eval_batch_size,
                                                 self.task.eval_widths):
            width = batch.source.shape[1]
            max_length = self.task.output_length(width)
            tokens, weights = jax.device_get(decode(params, batch.source, max_length, alphas)
                                             if beam
                                             else decode(params, batch.source, max_length))
            for j, index in enumerate(rows):
                for member in range(len(self.task.seeds)):
                    outputs[member][index] = self.task.detokenize(tokens[member, j])
                if index in wanted:
                    drawn[index] = (batch.source[j], tokens[:, j], weights[:, j])
        return outputs, drawn

    def progress_line(self, metrics_) -> str:
        return ", ".join(f"{as_column(k)}={v:.3f}" for k, v in metrics_.items())

    def finish(self, params, results, runs, step: int) -> list[Final]:
        """Decode ``task.eval_split`` (beam search), score it and write it."""
        task, data = self.config.task, self.task
        split = data.splits[task.eval_split]
        samples = data.sample_indices(split)
        hypotheses, drawn = self.decode(params, task.eval_split, beam=task.beam_size > 1,
                                        indices=samples)
        # The implicit analysis (analysis.implicit) runs once, here, on the final parameters.
        analysed = (self.analyse(params, samples) if self.analyse is not None
                    else [({}, [])] * len(runs))
        references = data.references[task.eval_split]
        finals = []
        for member, run in enumerate(runs):
            scores = metrics.corpus_scores(hypotheses[member], references)
            by_length = metrics.bleu_by_length(hypotheses[member], references,
                                               split.source_texts, task.bleu_length_bins)
            scored = {final_key(task.eval_split, name): value for name, value in scores.items()}
            sample_rows = [{"source": split.source_texts[i], "reference": references[i],
                            "translation": hypotheses[member][i]} for i in samples]
            finals.append(Final(
                log=scored | analysed[member][0],
                summary={"dataset": task.dataset,
                         "decoding": {"split": task.eval_split, "beam_size": task.beam_size,
                                      "length_penalty": task.length_penalty,
                                      "coverage_penalty": task.coverage_penalty},
                         "data": {name: len(s) for name, s in data.splits.items()}
                         | {"train_pairs_too_long": data.batches.skipped,
                            "vocab_size": data.vocab_size}},
                member={"bleu_by_length": by_length, "samples": sample_rows},
                figures={"drawn": _drawn(drawn, member), "bleu_by_length": by_length,
                         "side_by_side": analysed[member][1]}))
            if run.workdir.is_writer:
                write_outputs(run.workdir, split, references, task.eval_split,
                              hypotheses[member])
        for name in task.also_translate:  # scored and written beside, drawn nowhere
            hypotheses, _ = self.decode(params, name, beam=task.beam_size > 1)
            for member, run in enumerate(runs):
                scores = metrics.corpus_scores(hypotheses[member], data.references[name])
                finals[member].log.update({final_key(name, k): v for k, v in scores.items()})
                if run.workdir.is_writer:
                    write_outputs(run.workdir, data.splits[name], data.references[name], name,
                                  hypotheses[member])
        if task.length_penalty_search:
            self._at_tuned_length_penalty(params, runs, finals)
        return finals

    def _at_tuned_length_penalty(self, params, runs, finals):
        """Decode the validation split at every alpha of task.length_penalty_search,
        take for each member the alpha of its best cased validation BLEU, or the
        smallest (task.length_penalty_select), among those whose long outputs are long
        enough (task.length_penalty_min_ratio; ``best_length_penalty``), and decode
        the final splits again at it, scored and written as '<split>.lp_tuned' (TUNED).
        A length penalty tuned for neither of two models decides how short each one's
        long outputs are (GNMT, Wu et al. 2016, Sec. 7, tuned alpha on development
        data); the outputs at task.length_penalty stay as they were."""
        task, data = self.config.task, self.task
        grid = [float(alpha) for alpha in task.length_penalty_search]
        references = data.references["validation"]
        words = np.array([len(s.split()) for s in data.splits["validation"].source_texts])
        # Whole-split ratios where the validation split has no long source (smoke runs).
        long = np.flatnonzero(words >= task.length_penalty_long_words) if np.any(
            words >= task.length_penalty_long_words) else np.arange(len(words))
        measured = [{} for _ in runs]  # per member {alpha: {bleu, length ratios}}
        for alpha in grid:
            hypotheses, _ = self.decode(params, "validation", beam=True,
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
            final.log[final_key("validation", "length_penalty_chosen")] = chosen[member]
        for name in (task.eval_split, *task.also_translate):
            hypotheses, _ = self.decode(params, name, beam=True, alphas=chosen)
            for member, run in enumerate(runs):
                scores = metrics.corpus_scores(hypotheses[member], data.references[name])
                finals[member].log.update({final_key(name + TUNED, k): v
                                           for k, v in scores.items()})
                if run.workdir.is_writer:
                    write_outputs(run.workdir, data.splits[name], data.references[name],
                                  name + TUNED, hypotheses[member])


def _drawn(drawn: dict, member: int) -> list[dict]:
    """One member's decoded samples (``decode``'s ``drawn``) as the figures' dicts."""
    return [{"source": source, "output": tokens[member], "weights": weights[member],
             "correct": None} for source, tokens, weights in drawn.values()]


def write_outputs(workdir, split, references, name, hypotheses):
    """translations/<split>.{source,reference,hypothesis}.txt, one sentence a line:
    what sacrebleu's command line takes, e.g. for a paired bootstrap test between
    two runs (sacrebleu REF -i HYP_A HYP_B --paired-bs). The hypotheses are the
    restored ones BLEU was computed on (subwords.restore)."""
    folder = workdir.path / "translations"
    folder.mkdir(exist_ok=True)
    for kind, lines in (("source", split.source_texts), ("reference", references),
                        ("hypothesis", hypotheses)):
        (folder / f"{name}.{kind}.txt").write_text("".join(f"{line}\n" for line in lines))


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
