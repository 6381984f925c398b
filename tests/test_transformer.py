"""The Transformer: causal masking, padding, the fused path, incremental decoding, refusals."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import attention, data, models
from attention_research.training.config_checks import ConfigError, validate
from attention_research.training.decoding import greedy_decode
from attention_research.models.transformer import sinusoidal_positions
from attention_research.tasks import TASKS
from configs import transformer

SCORES = attention.transformer_scores()  # every score registered as usable here
VOCAB = 6 + data.NUM_SPECIAL


def _model(score="scaled_dot", **overrides):
    config = transformer.get_config(f"score={score}")
    config.model.hidden_size = 16
    config.model.ff_dim = 32
    config.model.attention.dim = 8
    config.task.eval_max_length = 10
    config.model.update(overrides)
    return models.make_model(config, VOCAB, VOCAB)


def _setup(score="scaled_dot", seed=0, **overrides):
    model = _model(score, **overrides)
    batch = TASKS["reverse"].random_batch(jax.random.PRNGKey(seed), 4, 6, 1, 6)
    params = model.init(jax.random.PRNGKey(1), batch.source, batch.target_inputs)["params"]
    return model, params, batch


@pytest.mark.slow
@pytest.mark.parametrize("score", SCORES)
def test_changing_a_future_target_token_changes_no_earlier_output(score):
    model, params, batch = _setup(score)
    logits, _ = model.apply({"params": params}, batch.source, batch.target_inputs)
    changed = batch.target_inputs.at[:, 4].set(5)
    changed_logits, _ = model.apply({"params": params}, batch.source, changed)
    np.testing.assert_allclose(changed_logits[:, :4], logits[:, :4], atol=1e-6)
    assert not np.allclose(changed_logits[:, 4:], logits[:, 4:])


@pytest.mark.parametrize("score", SCORES)
def test_source_padding_changes_nothing(score):
    model, params, batch = _setup(score)
    logits, weights = model.apply({"params": params}, batch.source, batch.target_inputs)
    padded = jnp.pad(batch.source, ((0, 0), (0, 3)))
    padded_logits, padded_weights = model.apply({"params": params}, padded, batch.target_inputs)
    np.testing.assert_allclose(padded_logits, logits, atol=1e-5)
    assert np.all(np.asarray(padded_weights)[..., 6:] == 0)


@pytest.mark.parametrize("score", SCORES)
def test_incremental_decoding_equals_teacher_forcing_on_its_own_output(score):
    model, params, batch = _setup(score, seed=3)
    tokens, weights = jax.jit(lambda p, s: greedy_decode(model, p, s, 7))(params, batch.source)
    inputs = jnp.concatenate([jnp.full((4, 1), data.BOS), tokens[:, :-1]], axis=1)
    logits, forced_weights = model.apply({"params": params}, batch.source, inputs)
    forced = np.asarray(jnp.argmax(logits.at[..., :data.EOS].set(-jnp.inf), -1))
    tokens = np.asarray(tokens)
    assert not np.any(tokens[:, 0] == data.PAD)  # decoding never emits PAD or BOS
    for row in range(4):
        stop = list(tokens[row]).index(data.EOS) + 1 if data.EOS in tokens[row] else 7
        np.testing.assert_array_equal(tokens[row, :stop], forced[row, :stop])
        np.testing.assert_allclose(weights[row, :stop], forced_weights[row, :stop], atol=1e-5)


@pytest.mark.parametrize("positions", [p for p in models.POSITIONS if p != "sinusoidal"])
def test_every_position_scheme_decodes_incrementally_as_it_teacher_forces(positions):
    """The cache, the offsets, ALiBi's per-step bias, RoPE's rotation and the relative
    tables agree with the full pass (sinusoidal: the test over every score above)."""
    model, params, batch = _setup("scaled_dot", seed=3, positions=positions)
    tokens, weights = jax.jit(lambda p, s: greedy_decode(model, p, s, 7))(params, batch.source)
    inputs = jnp.concatenate([jnp.full((4, 1), data.BOS), tokens[:, :-1]], axis=1)
    logits, forced_weights = model.apply({"params": params}, batch.source, inputs)
    forced = np.asarray(jnp.argmax(logits.at[..., :data.EOS].set(-jnp.inf), -1))
    for row in range(4):
        row_tokens = list(np.asarray(tokens[row]))
        stop = row_tokens.index(data.EOS) + 1 if data.EOS in row_tokens else 7
        np.testing.assert_array_equal(np.asarray(tokens)[row, :stop], forced[row, :stop])
        np.testing.assert_allclose(weights[row, :stop], forced_weights[row, :stop], atol=1e-5)
    # Causal: a future target token changes no earlier output, in every scheme.
    logits, _ = model.apply({"params": params}, batch.source, batch.target_inputs)
    changed, _ = model.apply({"params": params}, batch.source,
                             batch.target_inputs.at[:, 4].set(5))
    np.testing.assert_allclose(changed[:, :4], logits[:, :4], atol=1e-6)


def test_alibi_penalises_distance_with_one_slope_per_head():
    from attention_research.models.transformer import alibi_bias, alibi_slopes
    np.testing.assert_allclose(alibi_slopes(8), [2.0 ** -k for k in range(1, 9)])
    for heads in (1, 2, 4, 16):  # the paper's 2^(-8h/H) wherever H is a power of 2
        np.testing.assert_allclose(alibi_slopes(heads),
                                   2.0 ** (-8.0 * np.arange(1, heads + 1) / heads), rtol=1e-6)
    # Elsewhere the authors' get_slopes (issue 73: their values at 6 heads), not 2^(-8h/6).
    np.testing.assert_allclose(alibi_slopes(6), [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125])
    bias = np.asarray(alibi_bias(4, jnp.arange(3), jnp.arange(5)))
    expected = -np.array([0.25, 1 / 16, 1 / 64, 1 / 256])[:, None, None] * np.abs(
        np.arange(3)[:, None] - np.arange(5)[None, :])
    np.testing.assert_allclose(bias, expected, rtol=1e-6)
    # The decoder has no position table: its order comes from the bias alone. Without
    # the bias (nope) the same parameters give other outputs.
    model, params, batch = _setup(positions="alibi")
    nope = _model(positions="nope")
    logits, _ = model.apply({"params": params}, batch.source, batch.target_inputs)
    without, _ = nope.apply({"params": params}, batch.source, batch.target_inputs)
    assert not np.allclose(logits[:, 1:], without[:, 1:], atol=1e-4)
    np.testing.assert_allclose(logits[:, 0], without[:, 0], atol=1e-5)  # one key: no distance


def test_rope_makes_the_dot_product_depend_on_the_offset_alone():
    from attention_research.attention.attention import rotate
    rng = np.random.default_rng(0)
    q, k = (jnp.asarray(rng.normal(size=(1, 8)), jnp.float32) for _ in range(2))
    score = lambda m, n: float(jnp.sum(rotate(q, jnp.array([m])) * rotate(k, jnp.array([n]))))
    assert score(3, 7) == pytest.approx(score(10, 14), abs=1e-5)  # same offset n − m = 4
    assert score(3, 7) != pytest.approx(score(7, 3), abs=1e-3)  # left is not right
    assert score(0, 0) == pytest.approx(float(jnp.sum(q * k)), abs=1e-6)  # no turn at 0
    # Rotation keeps lengths, pair by pair (Su et al. Eq. 34 is a block rotation).
    turned = rotate(q, jnp.array([5]))
    np.testing.assert_allclose(np.asarray(turned[0, 0::2] ** 2 + turned[0, 1::2] ** 2),
                               np.asarray(q[0, 0::2] ** 2 + q[0, 1::2] ** 2), rtol=1e-5)


@pytest.mark.parametrize("score", ["additive", "cosine"])
def test_rope_is_refused_for_scores_that_are_not_relative_under_it(score):
    """cosine too (issue 35): W R_m q · R_n k depends on m and n, not on n − m alone."""
    config = transformer.get_config(f"score={score}")
    config.model.positions = "rope"
    with pytest.raises(ConfigError, match="Valid scores with rope: dot, scaled_dot$"):
        validate(config)


def test_relative_positions_learn_one_vector_per_clipped_offset():
    """Shaw et al. 2018: a^K and a^V per offset clip(j − i, ±k), shared by the heads;
    the model sees order only through them (no table), so a reversed source changes
    the output; additive is refused."""
    model, params, batch = _setup(positions="relative", max_relative_distance=3)
    tables = params["encoder_0"]
    assert tables["relative_keys"]["embedding"].shape == (7, 16 // 4)
    assert "position_embed" not in params
    full = jnp.all(batch.source[:, :6] > 0, axis=1)
    flipped = batch.source.at[:, :6].set(batch.source[:, :6][:, ::-1])
    logits, _ = model.apply({"params": params}, batch.source, batch.target_inputs)
    other, _ = model.apply({"params": params}, flipped, batch.target_inputs)
    assert bool(full.any()) and not np.allclose(logits[full], other[full], atol=1e-4)
    layer = model.bind({"params": params}).encoder_layers[0]
    keys, _ = layer.relative(2, 6)
    table = params["encoder_0"]["relative_keys"]["embedding"]
    np.testing.assert_allclose(keys[0, 5], table[3 + 3])  # offset 5 clipped to k = 3
    np.testing.assert_allclose(keys[1, 0], table[3 - 1])  # offset −1
    config = transformer.get_config("score=additive")
    config.model.positions = "relative"
    with pytest.raises(ConfigError, match="Valid scores with relative: dot, scaled_dot"):
        validate(config)


@pytest.mark.slow
def test_fused_dot_product_attention_agrees_with_the_plain_path():
    model, params, batch = _setup("scaled_dot")
    fused = _model("scaled_dot", fused_attention=True)
    logits, _ = model.apply({"params": params}, batch.source, batch.target_inputs)
    fused_logits, fused_weights = fused.apply({"params": params}, batch.source,
                                              batch.target_inputs)
    assert fused_weights is None  # the fused kernel records no weights
    np.testing.assert_allclose(fused_logits, logits, rtol=1e-5, atol=1e-5)
    plain_tokens, _ = greedy_decode(model, params, batch.source, 7)
    fused_tokens, _ = greedy_decode(fused, params, batch.source, 7)
    np.testing.assert_array_equal(fused_tokens, plain_tokens)


def test_sinusoidal_positions_follow_vaswani_section_3_5():
    table = np.asarray(sinusoidal_positions(7, 6))
    pos, i = np.arange(7)[:, None], np.arange(3)[None, :]
    np.testing.assert_allclose(table[:, 0::2], np.sin(pos / 10000 ** (2 * i / 6)), atol=1e-6)
    np.testing.assert_allclose(table[:, 1::2], np.cos(pos / 10000 ** (2 * i / 6)), atol=1e-6)


def test_learned_positions_are_parameters():
    _, params, _ = _setup(positions="learned")
    assert params["position_embed"]["embedding"].shape == (12, 16)


@pytest.mark.parametrize("field, value, words", [
    ("model.attention.score", "location", "cannot drive Transformer"),
    ("model.attention.score", "none", "cannot drive Transformer"),
    ("model.attention.alignment", "local_p", "attends globally"),
    ("model.positions", "rotary", "valid choices: sinusoidal, learned, alibi, nope, relative, rope"),
    ("model.attention.num_heads", 3, "must divide model.hidden_size"),
])
def test_transformer_refuses_what_makes_no_sense(field, value, words):
    config = transformer.get_config()
    section, name = field.rsplit(".", 1)
    node = config
    for part in section.split("."):
        node = node[part]
    node[name] = value
    with pytest.raises(ConfigError, match=words):
        validate(config)


def test_fused_attention_needs_scaled_dot():
    config = transformer.get_config("score=additive")
    config.model.fused_attention = True
    with pytest.raises(ConfigError, match="scaled_dot attention only"):
        validate(config)


def test_transformer_config_argument_picks_the_score():
    assert transformer.get_config("score=additive").model.attention.score == "additive"
    assert transformer.get_config("task=copy").task.name == "copy"
    with pytest.raises(ValueError, match="score must be one of"):
        transformer.get_config("score=location")
