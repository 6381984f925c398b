"""A trained model on inputs of one's own: encode them with the run's task, decode them
in batches (greedy, or beam search with GNMT's length penalty and an n-best list),
and give back text, tokens, scores and the attention of each output.

Inputs are sorted by length and decoded ``batch_size`` at a time, each batch as wide as
its longest source rounded up to a power of two (at least 8, at most the model's
limit), so that a file of a thousand lines compiles a handful of programs, not one a
line. The decoding is training's (``training/decoding.py``), compiled once per batch
shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np

from attention_research.data import BOS, EOS, PAD, Batch
from attention_research.errors import InputError
from attention_research.models import max_source_length
from attention_research.training.decoding import beam_hypotheses, greedy_decode


@dataclass
class Hypothesis:
    text: str  # the output as the task writes it (detokenised text, symbols)
    tokens: np.ndarray  # output tokens up to and with EOS
    score: float | None  # beam search's normalised score; None for greedy
    weights: np.ndarray  # [len(tokens), len(source)] the attention at each output step


@dataclass
class Prediction:
    input: str
    source: np.ndarray  # source tokens
    hypotheses: list  # best first: n_best of them (one for greedy)

    @property
    def text(self) -> str:
        return self.hypotheses[0].text


def source_limit(config) -> int:
    """The longest source the model was built for (position tables, location scores):
    model.max_source_length, or the task's eval_max_length."""
    return max_source_length(config)


def encode_inputs(task, config, texts, where=None) -> list[np.ndarray]:
    """Each text as source tokens; the first bad one refused with its line
    (``where(i)`` names input i, e.g. 'sentences.txt line 4')."""
    limit = source_limit(config)
    encoded = []
    for i, text in enumerate(texts):
        name = where(i) if where else f"input {i + 1}"
        try:
            tokens = task.encode(text)
        except InputError as error:
            raise InputError(f"{name}: {error}") from None
        if len(tokens) > limit:
            raise InputError(f"{name} is {len(tokens)} tokens long; this model takes at most "
                             f"{limit} (model.max_source_length, else task.eval_max_length)")
        encoded.append(tokens)
    if not encoded:
        raise InputError("no input: give inputs as arguments, with --input=FILE, or on stdin")
    return encoded


def _width(longest: int, limit: int) -> int:
    width = 8
    while width < longest:
        width *= 2
    return min(width, max(limit, longest))


def batches(sources, batch_size: int, limit: int):
    """(indices, source [B, W] int32, lengths [B]) by length, rows padded with copies of
    the batch's last row to a power-of-two count up to ``batch_size``."""
    order = np.argsort([len(s) for s in sources], kind="stable")
    for start in range(0, len(order), batch_size):
        indices = order[start:start + batch_size]
        rows = 1
        while rows < len(indices):
            rows *= 2
        rows = min(rows, batch_size)
        width = _width(max(len(sources[i]) for i in indices), limit)
        source = np.full((rows, width), PAD, np.int32)
        padded = list(indices) + [indices[-1]] * (rows - len(indices))
        for row, i in enumerate(padded):
            source[row, :len(sources[i])] = sources[i]
        yield indices, source


def decoder(restored, beam_size: int, alpha: float, beta: float):
    """jit(decode) of one member: greedy, or beam search's whole n-best list; made once
    per run and setting (``restored.compiled``)."""
    key = ("decode", beam_size, alpha, beta)
    if key not in restored.compiled:
        restored.compiled[key] = _decoder(restored.model, beam_size, alpha, beta)
    return restored.compiled[key]


def _decoder(model, beam_size: int, alpha: float, beta: float):
    def decode(params, source, max_length):
        if beam_size == 1:
            tokens, weights = greedy_decode(model, params, source, max_length)
            return tokens[:, None], weights[:, None], None
        return beam_hypotheses(model, params, source, max_length, beam_size, alpha, beta)
    return jax.jit(decode, static_argnums=2)


def cut(tokens, weights, source_length: int):
    """An output up to and with EOS (PAD dropped), and its weights over the real source."""
    tokens = [int(t) for t in tokens]
    if EOS in tokens:
        tokens = tokens[:tokens.index(EOS) + 1]
    tokens = [t for t in tokens if t != PAD]
    return np.asarray(tokens, np.int32), np.asarray(weights)[:len(tokens), :source_length]


def predict(restored, texts, beam_size: int = 1, length_penalty: float = 0.6,
            n_best: int = 1, batch_size: int = 64, where=None) -> list[Prediction]:
    """Decode ``texts`` with ``restored``'s model (loading.restore); one Prediction each,
    in the order given."""
    if beam_size < 1 or not 1 <= n_best <= beam_size:
        raise InputError(f"--n_best={n_best} needs 1 <= n_best <= beam size ({beam_size}): "
                         "an n-best list is the beam's finished hypotheses")
    if batch_size < 1:
        raise InputError(f"--batch_size={batch_size} must be >= 1")
    task, config = restored.task, restored.config
    sources = encode_inputs(task, config, list(texts), where)
    beta = float(config.task.get("coverage_penalty", 0.0))
    decode = decoder(restored, beam_size, float(length_penalty) if beam_size > 1 else 0.0,
                      beta if beam_size > 1 else 0.0)
    params = restored.member_params
    found = [None] * len(sources)
    for indices, source in batches(sources, batch_size, source_limit(config)):
        tokens, weights, scores = jax.device_get(
            decode(params, source, task.output_length(source.shape[1])))
        for row, i in enumerate(indices):
            hypotheses = []
            for k in range(n_best):
                if scores is not None and scores[row, k] < -1e8:  # a slot never filled
                    continue
                out, w = cut(tokens[row, k], weights[row, k], len(sources[i]))
                hypotheses.append(Hypothesis(task.decode(out), out,
                                             None if scores is None else float(scores[row, k]),
                                             w))
            found[i] = Prediction(texts[i], sources[i], hypotheses)
    return found


def forced_batch(source: np.ndarray, output: np.ndarray) -> Batch:
    """One example for teacher forcing on the model's own output: the source, BOS and
    the output as inputs, the output (ending in EOS) as targets."""
    body = [int(t) for t in output if t != EOS]
    targets = np.asarray(body + [EOS], np.int32)[None]
    inputs = np.asarray([BOS] + body, np.int32)[None]
    return Batch(np.asarray(source, np.int32)[None], inputs, targets,
                 np.asarray([len(source)], np.int32))
