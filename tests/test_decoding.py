"""Beam search: exact against exhaustive search on tiny models (length and coverage
penalties, a decoder state holding past attention), equal to greedy at K=1."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import data, models
from attention_research.tasks import TASKS
from attention_research.training.decoding import beam_search, greedy_decode, length_penalty
from configs import additive, transformer

SYMBOLS = 2  # outputs are EOS and two symbols: few enough to enumerate every sequence
VOCAB = SYMBOLS + data.NUM_SPECIAL
MAX_LENGTH = 4


def _model(family):
    config = (transformer.get_config("score=scaled_dot") if family == "transformer"
              else additive.get_config())
    if family == "rnn-location_aware":  # its decoder state holds α_{t−1}: beams reorder it
        config.model.attention.score = "location_aware"
        config.model.attention.location_width = 3
    config.model.hidden_size = 16 if family == "transformer" else 8
    config.model.embed_dim = 8
    config.model.ff_dim = 16
    config.model.attention.dim = 8
    config.task.eval_max_length = 6
    return models.make_model(config, VOCAB, VOCAB)


def _tiny(family):
    model = _model(family)
    batch = TASKS["reverse"].random_batch(jax.random.PRNGKey(3), 3, SYMBOLS, 2, 5)
    # Large random weights make peaked, order-dependent distributions: a real search.
    # The init seeds are ones whose sources end at different lengths (1 and 4 tokens).
    seed = {"rnn": 5, "transformer": 3, "rnn-location_aware": 5}[family]
    params = model.init(jax.random.PRNGKey(seed), batch.source, batch.target_inputs)["params"]
    params = jax.tree_util.tree_map(lambda p: 3.0 * p, params)
    return model, params, batch.source


@pytest.fixture(scope="module", params=["rnn", "transformer"])
def tiny_model(request):
    return _tiny(request.param)


def _complete_hypotheses():
    """Every output a decoder can give: ends with EOS, or fills MAX_LENGTH without one."""
    outputs = [data.EOS] + [data.NUM_SPECIAL + s for s in range(SYMBOLS)]
    symbols = outputs[1:]
    for length in range(1, MAX_LENGTH + 1):
        for body in itertools.product(symbols, repeat=length - 1):
            yield list(body) + [data.EOS]
    yield from (list(seq) for seq in itertools.product(symbols, repeat=MAX_LENGTH))


def _exhaustive_best(model, params, source, alpha, beta):
    """Best hypothesis per source by log P / lp(|Y|) + cp(X; Y) (Wu et al. 2016, Eq. 14),
    scoring each by teacher forcing."""
    hypotheses = list(_complete_hypotheses())
    best = []
    for row in range(source.shape[0]):
        targets = np.full((len(hypotheses), MAX_LENGTH), data.PAD, np.int32)
        for i, hypothesis in enumerate(hypotheses):
            targets[i, :len(hypothesis)] = hypothesis
        inputs = np.concatenate([np.full((len(hypotheses), 1), data.BOS), targets[:, :-1]], 1)
        inputs = np.where(inputs == data.EOS, data.PAD, inputs)
        sources = np.repeat(np.asarray(source[row:row + 1]), len(hypotheses), 0)
        logits, weights = model.apply({"params": params}, sources, inputs)
        logits = logits.at[..., jnp.array([data.PAD, data.BOS])].set(-jnp.inf)
        token_logp = np.take_along_axis(np.asarray(jax.nn.log_softmax(logits)),
                                        targets[..., None], -1)[..., 0]
        lengths = np.array([len(h) for h in hypotheses])
        real = np.arange(MAX_LENGTH)[None, :] < lengths[:, None]
        scores = np.where(real, token_logp, 0.0).sum(1) / np.asarray(length_penalty(lengths, alpha))
        # cp = β Σ_s log min(Σ_t α_{t,s}, 1) over the real source positions.
        totals = np.where(real[..., None], np.asarray(weights), 0.0).sum(1)
        covered = np.log(np.maximum(np.minimum(totals, 1.0), 1e-6))
        scores = scores + beta * np.where(np.asarray(source[row]) > 0, covered, 0.0).sum(-1)
        best.append((targets[np.argmax(scores)], scores.max()))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("alpha, beta", [(0.0, 0.0), (1.0, 0.0), (0.6, 2.0)])
def test_a_wide_beam_finds_the_exhaustive_best(tiny_model, alpha, beta):
    _check_against_exhaustive_search(tiny_model, alpha, beta)


@pytest.mark.slow
def test_a_decoder_state_holding_past_attention_is_searched_exactly():
    """Location-aware attention reads α_{t−1} from the decoder state: beam search must
    carry each hypothesis' own, reordered with it."""
    _check_against_exhaustive_search(_tiny("rnn-location_aware"), 0.6, 2.0)


def _check_against_exhaustive_search(tiny_model, alpha, beta):
    model, params, source = tiny_model
    # 2^(MAX_LENGTH-1) = 8 alive prefixes at most: a beam of 8 never prunes one.
    tokens, weights, scores = jax.jit(
        lambda p, s: beam_search(model, p, s, MAX_LENGTH, beam_size=8, alpha=alpha,
                                 beta=beta))(params, source)
    for row, (expected, expected_score) in enumerate(_exhaustive_best(model, params, source,
                                                                      alpha, beta)):
        np.testing.assert_array_equal(np.asarray(tokens[row]), expected)
        assert float(scores[row]) == pytest.approx(float(expected_score), rel=1e-4, abs=1e-4)
    assert weights.shape == (source.shape[0], MAX_LENGTH, source.shape[1])


def test_beam_of_one_without_penalty_is_greedy(tiny_model):
    model, params, source = tiny_model
    greedy, _ = greedy_decode(model, params, source, MAX_LENGTH)
    beam, _, _ = beam_search(model, params, source, MAX_LENGTH, beam_size=1, alpha=0.0)
    np.testing.assert_array_equal(np.asarray(beam), np.asarray(greedy))


@pytest.mark.slow
def test_a_finished_hypothesis_does_not_stop_the_others(tiny_model):
    """Rows decode independently: a row alone gives the same output as in the batch,
    even when other rows finish earlier or later."""
    model, params, source = tiny_model
    together, _, _ = beam_search(model, params, source, MAX_LENGTH, beam_size=3, alpha=0.6)
    lengths = (np.asarray(together) != data.PAD).sum(1)
    for row in range(source.shape[0]):
        alone, _, _ = beam_search(model, params, source[row:row + 1], MAX_LENGTH,
                                  beam_size=3, alpha=0.6)
        np.testing.assert_array_equal(np.asarray(alone[0]), np.asarray(together[row]))
    assert len(set(lengths.tolist())) > 1  # the rows really do finish at different steps


class _RowEndsAtItsIndex:
    """A model following the decoding protocol whose row i emits EOS at step i; it
    counts, on the host, the decoding steps it is asked for."""

    def __init__(self):
        self.steps = []

    def apply(self, variables, *args, method):
        return getattr(self, method)(*args)

    def start_decoding(self, source, max_length):
        return None, jnp.zeros((), jnp.int32)

    def decode_step(self, carry, tokens, memory, step):
        jax.debug.callback(self.steps.append, step)
        token = jnp.where(jnp.arange(tokens.shape[0]) <= step, data.EOS, data.NUM_SPECIAL)
        return carry + 1, 10.0 * jax.nn.one_hot(token, VOCAB), None


def test_greedy_decoding_stops_as_soon_as_every_row_has_ended():
    model = _RowEndsAtItsIndex()
    tokens, weights = jax.jit(lambda s: greedy_decode(model, {}, s, 50))(
        jnp.ones((3, 4), jnp.int32))
    jax.effects_barrier()
    assert len(model.steps) == 3  # rows end at steps 0, 1, 2: three steps of 50
    np.testing.assert_array_equal(np.asarray(tokens)[:, :4], [
        [data.EOS, data.PAD, data.PAD, data.PAD],
        [data.NUM_SPECIAL, data.EOS, data.PAD, data.PAD],
        [data.NUM_SPECIAL, data.NUM_SPECIAL, data.EOS, data.PAD]])
    assert weights.shape == (3, 50, 4) and not np.any(np.asarray(weights))


# The RNN only: the tiny Transformer's outputs fill MAX_LENGTH at every alpha.
@pytest.mark.parametrize("tiny_model", ["rnn"], indirect=True)
def test_each_member_decodes_at_its_own_length_penalty(tiny_model):
    """``make_translate`` takes one length penalty per member (a traced value, so that
    task.length_penalty_search compiles once): member m's output is beam search's at
    alphas[m], and without alphas every member decodes at the configured alpha."""
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.training.steps import make_translate
    model, params, source = tiny_model
    stacked = jax.tree_util.tree_map(lambda p: jnp.stack([p, p]), params)
    translate = make_translate(model, Placement(make_mesh(additive.get_config().mesh), 2),
                               beam_size=4, alpha=0.6)
    alone = {alpha: np.asarray(jax.jit(lambda p, s, a=alpha: beam_search(
        model, p, s, MAX_LENGTH, beam_size=4, alpha=a)[0])(params, source))
        for alpha in (0.0, 0.6, 10.0)}
    tokens, _ = translate(stacked, source, MAX_LENGTH, np.array([0.0, 10.0]))
    np.testing.assert_array_equal(np.asarray(tokens[0]), alone[0.0])
    np.testing.assert_array_equal(np.asarray(tokens[1]), alone[10.0])
    default, _ = translate(stacked, source, MAX_LENGTH)
    for member in range(2):
        np.testing.assert_array_equal(np.asarray(default[member]), alone[0.6])
    # The penalties act here: the test would pass unread if every alpha gave one output.
    assert not np.array_equal(alone[0.0], alone[10.0])
