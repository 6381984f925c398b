"""The decoder-only family (models/decoder_only.py): a prefix language model over
``source BOS target`` whose position scheme is the only position signal."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import models
from attention_research.training.config_checks import validate
from attention_research.data import BOS, EOS, PAD
from attention_research.training.decoding import greedy_decode
from attention_research.tasks import TASKS
from configs import base, decoder_only

POSITIONS = models.POSITIONS


def _model(positions, task="reverse"):
    config = base.shrink(decoder_only.get_config(f"task={task},positions={positions}"))
    if positions == "relative":  # clip within these short rows (an audit as Shaw et al.)
        config.model.max_relative_distance = 2
    validate(config)
    vocab = TASKS[task](config).vocab_size
    return models.make_model(config, vocab, vocab)


def _batch(seed=0, size=4, max_length=5):
    return TASKS["reverse"].random_batch(jax.random.PRNGKey(seed), size, 6, 1, max_length)


@pytest.fixture(scope="module", params=POSITIONS)
def setup(request):
    model = _model(request.param)
    batch = _batch()
    params = model.init(jax.random.PRNGKey(1), batch.source, batch.target_inputs)["params"]
    return request.param, model, params, batch


@pytest.mark.slow
def test_incremental_decoding_is_teacher_forcing(setup):
    """Greedy decoding with the key/value cache gives the logits and weights teacher
    forcing gives on the tokens it chose."""
    _, model, params, batch = setup
    tokens, weights = greedy_decode(model, params, batch.source, batch.targets.shape[1])
    inputs = jnp.concatenate([jnp.full((tokens.shape[0], 1), BOS), tokens[:, :-1]], axis=1)
    inputs = jnp.where(inputs == EOS, PAD, inputs)
    logits, forced = model.apply({"params": params}, batch.source, inputs)
    chosen = jnp.argmax(logits.at[..., jnp.array([PAD, BOS])].set(-jnp.inf), -1)
    real = np.asarray(tokens) != PAD
    np.testing.assert_array_equal(np.asarray(chosen)[real], np.asarray(tokens)[real])
    np.testing.assert_allclose(np.asarray(weights)[real], np.asarray(forced)[real], atol=1e-5)


def test_the_batch_width_changes_nothing(setup):
    """A source padded to a wider batch gives the same target logits and weights: the
    absolute tables are read from each row's first real token, the other schemes see
    only differences."""
    _, model, params, batch = setup
    wide = batch._replace(source=jnp.pad(batch.source, ((0, 0), (0, 4))))
    narrow_logits, narrow_weights = model.apply({"params": params}, batch.source,
                                                batch.target_inputs)
    wide_logits, wide_weights = model.apply({"params": params}, wide.source,
                                            wide.target_inputs)
    np.testing.assert_allclose(wide_logits, narrow_logits, atol=1e-5)
    np.testing.assert_allclose(wide_weights[..., :batch.source.shape[1]], narrow_weights,
                               atol=1e-6)
    assert float(jnp.abs(wide_weights[..., batch.source.shape[1]:]).max()) == 0.0


def test_a_target_token_sees_only_what_came_before_it(setup):
    """Causal: changing target input t changes no logit before t; the weights are 0 on
    the source's padding."""
    _, model, params, batch = setup
    logits, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    changed = batch.target_inputs.at[:, 3].set(4)
    other, _ = model.apply({"params": params}, batch.source, changed)
    np.testing.assert_allclose(other[:, :3], logits[:, :3], atol=1e-6)
    padding = np.asarray(batch.source) == PAD
    assert np.all(np.asarray(weights)[np.broadcast_to(padding[:, None, :], weights.shape)] == 0)


def test_the_family_refuses_what_it_cannot_do():
    from attention_research.training.config_checks import ConfigError
    config = decoder_only.get_config("task=reverse")
    config.model.fused_attention = True
    with pytest.raises(ConfigError, match="fused_attention"):
        validate(config)
    config = decoder_only.get_config("task=reverse,positions=rope")
    config.model.attention.score = "cosine"
    with pytest.raises(ConfigError, match="Valid scores with rope"):
        validate(config)


@pytest.mark.slow
def test_a_decoder_only_run_trains_and_reports_alignment(tmp_path):
    from attention_research.api import train
    config = base.shrink(decoder_only.get_config("task=copy,positions=alibi"))
    summary = train(config, tmp_path, progress=False)
    final = summary["members"][0]["final"]
    assert 0.0 <= final["eval/align_acc/len1-4"] <= 1.0
    assert np.isfinite(final["eval/loss/len1-4"])
    # Token accuracy by target position (EOS included), beside accuracy by length: the
    # mean over positions weighted by their tokens is the token accuracy of all lengths.
    by_position = summary["members"][0]["token_acc_by_position"]
    assert sorted(map(int, by_position)) == list(range(1, config.task.eval_max_length + 2))
    assert all(0.0 <= v <= 1.0 for v in by_position.values())
