"""The RNN encoder-decoder: every score x cell x decoder style, padding, decoding."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import attention, data, models
from attention_research.tasks import TASKS
from attention_research.training.decoding import greedy_decode
from attention_research.models.rnn import reverse_within_length
from tests.conftest import tiny_config

SCORES = sorted(attention.SCORES) + ["none"]
VOCAB = 6 + data.NUM_SPECIAL


def _model(score="additive", cell="lstm", style="luong", alignment="global", **overrides):
    config = tiny_config(score, cell=cell, style=style)
    config.model.attention.alignment = alignment
    config.model.update(overrides)
    return models.make_model(config, VOCAB, VOCAB)


def _batch(batch_size=4, max_length=5, name="reverse", seed=0):
    return TASKS[name].random_batch(jax.random.PRNGKey(seed), batch_size, 6, 1, max_length)


# Scores that read the decoder's attention history meet the cell only through its
# output, as every score does: one cell, both decoder styles.
HISTORY_SCORES = [name for name in SCORES if name in attention.SCORES
                  and attention.SCORES[name].reads_history]
CASES = (list(itertools.product([s for s in SCORES if s not in HISTORY_SCORES], models.CELLS,
                                models.DECODER_STYLES))
         + list(itertools.product(HISTORY_SCORES, ["lstm"], models.DECODER_STYLES)))


@pytest.mark.slow
@pytest.mark.parametrize("score, cell, style", CASES)
def test_gradients_are_finite_and_reach_every_parameter(score, cell, style):
    model, batch = _model(score, cell, style), _batch()
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]

    def loss(p):
        logits, _ = model.apply({"params": p}, batch.source, batch.target_inputs)
        return jnp.mean(jax.nn.log_softmax(logits)[..., 0])

    grads = jax.grad(loss)(params)
    leaves = jax.tree_util.tree_leaves_with_path(grads)
    assert all(np.all(np.isfinite(g)) for _, g in leaves)
    dead = [jax.tree_util.keystr(path) for path, g in leaves if not np.any(g)]
    assert not dead, f"parameters without gradient: {dead}"


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("style", models.DECODER_STYLES)
def test_padding_changes_nothing(bidirectional, style):
    """Outputs on real positions are the same with 0 or 3 extra padding columns."""
    model = _model(style=style, bidirectional=bidirectional, num_layers=2)
    batch = _batch()
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    logits, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    padded_source = jnp.pad(batch.source, ((0, 0), (0, 3)))
    padded_logits, padded_weights = model.apply({"params": params}, padded_source,
                                                batch.target_inputs)
    np.testing.assert_allclose(padded_logits, logits, atol=1e-5)
    np.testing.assert_allclose(padded_weights[..., :5], weights, atol=1e-6)
    assert np.all(np.asarray(padded_weights[..., 5:]) == 0)


def test_reverse_within_length_is_its_own_inverse():
    x = jnp.arange(12).reshape(2, 6)
    lengths = jnp.array([4, 6])
    once = reverse_within_length(x, lengths)
    np.testing.assert_array_equal(once, [[3, 2, 1, 0, 4, 5], [11, 10, 9, 8, 7, 6]])
    np.testing.assert_array_equal(reverse_within_length(once, lengths), x)


def test_sown_weights_equal_the_returned_weights():
    model, batch = _model(), _batch()
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    (_, weights), state = model.apply({"params": params}, batch.source, batch.target_inputs,
                                      mutable=["intermediates"])
    sown = state["intermediates"]["decoder"]["attention"]["attention_weights"][0]
    np.testing.assert_array_equal(np.asarray(sown)[:, :, 0], np.asarray(weights))


@pytest.mark.parametrize("score, style, alignment, pointer", [
    ("additive", "luong", "global", False), ("additive", "bahdanau", "global", False),
    ("location_aware", "luong", "global", False), ("coverage", "bahdanau", "global", False),
    ("additive", "luong", "monotonic", False), ("dot", "bahdanau", "global", True)])
@pytest.mark.slow
def test_greedy_decoding_agrees_with_teacher_forcing_on_its_own_output(score, style, alignment,
                                                                       pointer):
    """Feeding the greedy output back with teacher forcing reproduces it step by step,
    for decoders whose state holds past attention too (monotonic: where it stopped),
    and for the pointer-generator's mixed output."""
    model = _model(score, style=style, alignment=alignment, pointer_generator=pointer)
    batch = _batch(batch_size=6)
    params = model.init(jax.random.PRNGKey(2), batch.source, batch.target_inputs)["params"]
    tokens, weights = jax.jit(lambda p, s: greedy_decode(model, p, s, 6))(params, batch.source)
    inputs = jnp.concatenate([jnp.full((6, 1), data.BOS), tokens[:, :-1]], axis=1)
    logits, forced_weights = model.apply({"params": params}, batch.source, inputs)
    forced = np.asarray(jnp.argmax(logits.at[..., :data.EOS].set(-jnp.inf), -1))
    tokens = np.asarray(tokens)
    for row in range(6):
        stop = list(tokens[row]).index(data.EOS) + 1 if data.EOS in tokens[row] else 6
        np.testing.assert_array_equal(tokens[row, :stop], forced[row, :stop])
        assert np.all(tokens[row, stop:] == data.PAD)
        np.testing.assert_allclose(weights[row, :stop], forced_weights[row, :stop], atol=1e-5)


@pytest.mark.slow
def test_monotonic_training_reaches_every_parameter_and_tests_hard():
    """In training (a 'sample' rng) the expected alignment is differentiable, r included;
    at test each step attends one position or none, never before the last one."""
    model, batch = _model(alignment="monotonic"), _batch(batch_size=6)
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]

    def loss(p):
        logits, _ = model.apply({"params": p}, batch.source, batch.target_inputs,
                                rngs={"sample": jax.random.PRNGKey(1)})
        return jnp.mean(jax.nn.log_softmax(logits)[..., 0])

    leaves = jax.tree_util.tree_leaves_with_path(jax.grad(loss)(params))
    assert all(np.all(np.isfinite(g)) for _, g in leaves)
    assert not [jax.tree_util.keystr(path) for path, g in leaves if not np.any(g)]
    # Peaked energies and r = 0 (not the −4 that starts training): stops happen.
    params = jax.tree_util.tree_map(lambda p: 3.0 * p, params)
    params["decoder"]["attention"]["r"] = jnp.zeros(())
    _, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    weights = np.asarray(weights)
    assert set(np.unique(weights)) <= {0.0, 1.0} and np.all(weights.sum(-1) <= 1)
    attended = np.where(weights.sum(-1) > 0, weights.argmax(-1), -1)
    for row in attended:  # positions never go back; once it runs off the end, it is done
        seen = row[row >= 0]
        assert np.all(np.diff(seen) >= 0)
        assert np.all(row[np.argmax(row < 0):] < 0) if np.any(row < 0) else True
    assert np.any(attended > 0)


def test_unknown_cell_and_style_are_refused():
    batch = _batch()
    for overrides, word in [({"cell": "rnn"}, "lstm, gru"),
                            ({"decoder_style": "cho"}, "bahdanau, luong")]:
        with pytest.raises(ValueError, match=word):
            _model(**overrides).init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)


# A value other than the default for each field a family may declare it ignores.
OTHER_VALUES = {"model.cell": "gru", "model.bidirectional": False,
                "model.decoder_style": "bahdanau", "model.embed_dim": 24}


@pytest.mark.parametrize("family", sorted(f for f in models.FAMILIES
                                           if models.FAMILIES[f].ignores))
def test_the_fields_a_family_ignores_change_nothing_of_its_model(family):
    """running/adopt.py treats runs that differ only in fields their family ignores as
    the same run: their parameters at initialisation and their outputs must be equal."""
    ignored = models.FAMILIES[family].ignores
    assert ignored <= set(OTHER_VALUES), "give OTHER_VALUES a value for each ignored field"
    batch = _batch()

    def outputs(field=None):
        from configs import base
        config = base.get_config("task=reverse,tiny", family=family)
        if field is not None:
            section, name = field.split(".")
            assert config[section][name] != OTHER_VALUES[field]
            config[section][name] = OTHER_VALUES[field]
        model = models.make_model(config, VOCAB, VOCAB)
        params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)
        return params, model.apply(params, batch.source, batch.target_inputs)[0]

    params, logits = outputs()
    for field in sorted(ignored):
        other_params, other_logits = outputs(field)
        assert jax.tree_util.tree_structure(other_params) == jax.tree_util.tree_structure(params)
        assert all(np.array_equal(a, b) for a, b in zip(jax.tree_util.tree_leaves(other_params),
                                                        jax.tree_util.tree_leaves(params)))
        np.testing.assert_array_equal(other_logits, logits)
