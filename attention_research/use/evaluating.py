"""A trained model's checkpoint evaluated again, by the run's own evaluation
(training/evaluation/), reading only.

* A corpus (``corpus``): any split of the run's corpus (``test2017``, …) or one's own
  source and reference files, decoded as the run's final evaluation decodes its test
  split (beam size, length penalty) and scored the same (cased and lowercased BLEU,
  chrF). On the run's own test split it gives the recorded ``test/bleu`` exactly: the
  same parameters, batches and program.
* Symbol tasks (``by_length``): accuracy by length on lengths ``first``-``last``. The
  held-out set is the run's own up to its ``task.eval_max_length``; beyond it, a fresh
  one to ``last``, of the same seed and size per length (the set's draw depends on its
  longest length, so its sequences are not the run's). ``eval_seed``: a fresh set of the
  same sizes drawn from another seed, to tell a model's accuracy from its one test
  set's luck.
"""

from __future__ import annotations

import numpy as np

from attention_research.errors import InputError
from attention_research.tasks import get_task
from attention_research.training.evaluation import make_evaluation
from attention_research.use.predicting import source_limit


def evaluate(restored, split: str | None = None, source=None, reference=None,
             lengths: tuple[int, int] | None = None, beam_size: int | None = None,
             length_penalty: float | None = None, eval_seed: int | None = None) -> dict:
    """The scores of ``restored``'s member (loading.restore): see the module's doc."""
    if restored.task.evaluation == "corpus":
        if lengths is not None or eval_seed is not None:
            raise InputError("--lengths and --eval_seed are for the symbol tasks; a corpus "
                             "is evaluated on --split or --source and --reference")
        return _corpus(restored, split, source, reference, beam_size, length_penalty)
    if split is not None or source is not None or reference is not None:
        raise InputError(f"{restored.config.task.name} has no splits or files: evaluate it on "
                         "--lengths=FIRST-LAST")
    return _by_length(restored, lengths, eval_seed)


def _corpus(restored, split, source, reference, beam_size, length_penalty) -> dict:
    from attention_research.tasks.translation import metrics, plain_text
    from attention_research.training.steps import make_translate
    config, task = restored.config, restored.task
    if (source is None) != (reference is None):
        raise InputError("give both --source and --reference (one sentence a line each)")
    if source is not None:
        if split is not None:
            raise InputError("give --split or --source and --reference, not both")
        data = task.tokenized(*plain_text.read_parallel(source, reference))
        name = str(source)
    else:
        name = split or config.task.eval_split
        if name == "train":
            raise InputError("--split=train: a model is not evaluated on its training data")
        if name not in task.splits:  # another split of the run's corpus: load it beside
            wider = config.copy_and_resolve_references()
            wider.task.also_translate = (*config.task.also_translate, name)
            task = get_task(config.task.name)(wider, [config.seed], verbose=False)
        data = task.splits[name]
    evaluation = make_evaluation(task, restored.model, restored.placement)
    beam = config.task.beam_size if beam_size is None else beam_size
    alpha = config.task.length_penalty if length_penalty is None else length_penalty
    if (beam, alpha) != (config.task.beam_size, config.task.length_penalty):
        evaluation.beam = make_translate(restored.model, restored.placement, beam, alpha,
                                         config.task.coverage_penalty)
    hypotheses, _ = evaluation.decode_split(restored.params, data, beam=beam > 1)
    hypotheses = hypotheses[restored.index]
    scores = metrics.corpus_scores(hypotheses, data.target_texts)
    return {"data": name, "sentences": len(data), "beam_size": beam, "length_penalty": alpha,
            **scores, "hypotheses": hypotheses,
            "cut": int(np.sum(data.source_lengths > config.task.eval_max_length))}


def _by_length(restored, lengths, eval_seed: int | None = None) -> dict:
    config = restored.config
    held = config.task.eval_max_length
    first, last = lengths or (1, held)
    seed = config.task.eval_seed if eval_seed is None else int(eval_seed)
    limit = source_limit(config)
    if not 1 <= first <= last or last > limit:
        raise InputError(f"--lengths={first}-{last}: need 1 <= first <= last <= {limit}, the "
                         "longest source this model takes (model.max_source_length, else "
                         "task.eval_max_length)")
    task = restored.task
    same_set = last <= held and seed == config.task.eval_seed
    if not same_set:  # a fresh held-out set (to ``last``, or of ``seed``), the model as before
        wider = config.copy_and_resolve_references()
        wider.model.max_source_length = limit
        wider.task.eval_max_length = max(last, held, config.task.train_max_length)
        wider.task.eval_range_ends = () if last > held else config.task.eval_range_ends
        wider.task.eval_seed = seed
        task = get_task(config.task.name)(wider, [config.seed], verbose=False)
    evaluation = make_evaluation(task, restored.model, restored.placement)
    result = evaluation(restored.params)[restored.index]
    by_length = {int(n): float(a) for n, a in result["by_length"].items()
                 if first <= int(n) <= last}
    tokens = {int(n): float(a) for n, a in result["token_by_length"].items()
              if first <= int(n) <= last}
    return {"data": f"lengths {first}-{last}", "sequences": int(
        config.task.eval_examples_per_length * (last - first + 1)),
        "seq_acc": float(np.mean(list(by_length.values()))),
        "token_acc": float(np.mean(list(tokens.values()))),
        "seq_acc_by_length": by_length, "token_acc_by_length": tokens,
        "eval_seed": seed, "same_set_as_the_run": same_set}
