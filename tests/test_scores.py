"""Every attention score against a NumPy transcription of its paper's equation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import attention

B, T, S, D, A, MAX_LEN = 3, 2, 7, 6, 5, 9
LENGTHS = np.array([7, 4, 1])


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    queries = rng.normal(size=(B, T, D)).astype(np.float32)
    values = rng.normal(size=(B, S, D)).astype(np.float32)
    mask = np.arange(S)[None, :] < LENGTHS[:, None]
    return queries, values, mask


def _history(mask, seed=0):
    """A decoder's attention history: some previous weights α_{t−1} on the real
    positions, and a coverage that has passed 1 in places."""
    rng = np.random.default_rng(seed + 100)
    previous = np.where(mask, rng.uniform(size=mask.shape), 0.0)
    previous = (previous / previous.sum(-1, keepdims=True)).astype(np.float32)
    coverage = np.where(mask, rng.uniform(0, 2, size=mask.shape), 0.0).astype(np.float32)
    return attention.History(jnp.asarray(previous), jnp.asarray(coverage))


def _attend(module, queries, values, mask, history=None):
    """Every attention gets a history; those that do not read it ignore it."""
    history = _history(mask) if history is None else history

    def forward(m, q, v, k):
        return m(q, m.prepare(v, k, v[:, 0]), history=history)
    variables = module.init(jax.random.PRNGKey(1), queries, values, mask, method=forward)
    (context, weights), state = module.apply(variables, queries, values, mask, method=forward,
                                             mutable=["intermediates", "coverage"])
    return variables.get("params", {}), np.asarray(context), np.asarray(weights), state


def _correlate(x, kernel):
    """x [B, S], kernel [width, 1, F] -> [B, S, F]: Σ_j x[s + j − (width − 1)/2] K[j],
    zero beyond the ends (Flax's 'SAME' cross-correlation, written out)."""
    width, half = kernel.shape[0], kernel.shape[0] // 2
    padded = np.pad(x, ((0, 0), (half, half)))
    return np.stack([sum(padded[:, s + j, None] * kernel[j, 0] for j in range(width))
                     for s in range(x.shape[1])], axis=1)


def _softplus(x):
    return np.log1p(np.exp(x))


def _numpy_scores(name, p, q, k, history):
    """The score equations, written out on NumPy arrays; Dense kernels are [in, out]."""
    s = p.get("score_fn", {})
    previous, coverage = (np.asarray(a) for a in history)
    if name == "dot":  # Luong 2015 Eq. 8
        return np.einsum("btd,bsd->bts", q, k)
    if name == "scaled_dot":  # Vaswani 2017 Eq. 1
        return np.einsum("btd,bsd->bts", q, k) / np.sqrt(k.shape[-1])
    if name == "general":  # Luong 2015 Eq. 8: h_tᵀ W_a h̄_s
        return np.einsum("btd,bsd->bts", q, k @ s["W_a"]["kernel"])
    if name == "additive":  # Bahdanau 2015 Eq. 6: v_aᵀ tanh(W_a s + U_a h)
        hidden = np.tanh((q @ s["W_a"]["kernel"])[:, :, None, :]
                         + (k @ s["U_a"]["kernel"] + s["U_a"]["bias"])[:, None, :, :])
        return (hidden @ s["v_a"]["kernel"])[..., 0]
    if name == "location":  # Luong 2015 Eq. 8: a_t = softmax(W_a h_t)
        return (q @ s["W_a"]["kernel"] + s["W_a"]["bias"])[..., :k.shape[1]]
    if name == "cosine":  # Graves 2014 Eq. 5-6: β K(key, M(i)), β = softplus(w_βᵀ q)
        eps = 1e-6
        key = q @ s["W"]["kernel"]
        key = key / np.sqrt((key ** 2).sum(-1, keepdims=True) + eps)
        memory = k / np.sqrt((k ** 2).sum(-1, keepdims=True) + eps)
        beta = _softplus(q @ s["w_beta"]["kernel"] + s["w_beta"]["bias"])
        return beta * np.einsum("btd,bsd->bts", key, memory)
    if name == "location_aware":  # Chorowski 2015 Eq. 8-9: wᵀ tanh(W q + V h + U (F ∗ α) + b)
        features = _correlate(previous, s["F"]["kernel"]) @ s["U"]["kernel"]  # [B, S, A]
        hidden = np.tanh((q @ s["W"]["kernel"])[:, :, None, :]
                         + (k @ s["V"]["kernel"] + s["V"]["bias"])[:, None, :, :]
                         + features[:, None, :, :])
        return (hidden @ s["w"]["kernel"])[..., 0]
    if name == "coverage":  # See 2017 Eq. 11: vᵀ tanh(W_h h + W_s s + w_c c + b)
        covered = coverage[..., None] * s["w_c"]["kernel"][0]  # [B, S, A]
        hidden = np.tanh((q @ s["W_s"]["kernel"])[:, :, None, :]
                         + (k @ s["W_h"]["kernel"] + s["W_h"]["bias"])[:, None, :, :]
                         + covered[:, None, :, :])
        return (hidden @ s["v"]["kernel"])[..., 0]
    raise AssertionError(
        f"score {name!r} is registered but has no NumPy reference: add one to "
        f"_numpy_scores in tests/test_scores.py (its paper's equation, in plain NumPy), as "
        f"for the scores above (docs/extending.md, 'Adding a formulation')")


def _numpy_attention(scores, values, mask):
    scores = np.where(mask[:, None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.einsum("bts,bsd->btd", weights, values), weights


def _make(name):
    # Filters of width 5 on 7 positions: the reference test reaches past both ends.
    return attention.make_attention(name, query_dim=D, key_dim=D, attention_dim=A,
                                    max_length=MAX_LEN, filters=3, filter_width=5)


SCORES = sorted(attention.SCORES)


@pytest.mark.parametrize("name", SCORES)
def test_score_matches_numpy_reference(name):
    queries, values, mask = _inputs()
    params, context, weights, _ = _attend(_make(name), queries, values, mask)
    params = jax.tree_util.tree_map(np.asarray, params)
    expected_context, expected_weights = _numpy_attention(
        _numpy_scores(name, params, queries, values, _history(mask)), values, mask)
    np.testing.assert_allclose(weights, expected_weights, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(context, expected_context, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", SCORES)
def test_weights_sum_to_one_and_padding_gets_exactly_zero(name):
    queries, values, mask = _inputs(seed=3)
    values[~mask] = 1e3  # garbage in padding must not leak into anything
    _, context, weights, state = _attend(_make(name), queries, values, mask)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-6)
    assert np.all(weights[np.broadcast_to(~mask[:, None, :], weights.shape)] == 0.0)
    assert np.all(np.abs(context) < 10)
    recorded = state["intermediates"]["attention_weights"][0]
    np.testing.assert_array_equal(np.asarray(recorded), weights)


def test_location_weights_ignore_key_contents():
    queries, values, mask = _inputs()
    _, _, weights, _ = _attend(_make("location"), queries, values, mask)
    _, _, weights_other_keys, _ = _attend(_make("location"), queries, -3 * values + 1, mask)
    np.testing.assert_array_equal(weights, weights_other_keys)


def test_location_refuses_sources_longer_than_it_was_built_for():
    module = attention.make_attention("location", query_dim=D, key_dim=D, attention_dim=A,
                                      max_length=S - 1)
    with pytest.raises(ValueError, match="at most 6 positions"):
        _attend(module, *_inputs())


def test_cosine_key_strength_sharpens_the_weights():
    queries, values, mask = _inputs()
    module = _make("cosine")
    params, _, weights, _ = _attend(module, queries, values, mask)
    sharper = jax.tree_util.tree_map(np.asarray, params)
    sharper["score_fn"]["w_beta"]["bias"] = sharper["score_fn"]["w_beta"]["bias"] + 20.0

    def forward(m, q, v, k):
        return m(q, m.prepare(v, k, v[:, 0]))
    _, sharp_weights = module.apply({"params": sharper}, queries, values, mask, method=forward)
    assert np.asarray(sharp_weights)[0].max(-1).mean() > weights[0].max(-1).mean()


def test_none_returns_the_fixed_summary_and_no_weights():
    queries, values, mask = _inputs()
    module = attention.make_attention("none", query_dim=D, key_dim=D, attention_dim=A,
                                      max_length=MAX_LEN)
    summary = np.arange(B * D, dtype=np.float32).reshape(B, D)
    context, weights = module.apply({}, queries, values, mask,
                                    method=lambda m, q, v, k: m(q, m.prepare(v, k, summary)))
    assert weights is None
    np.testing.assert_array_equal(np.asarray(context), np.broadcast_to(summary[:, None], (B, T, D)))


@pytest.mark.parametrize("name", ["location_aware", "coverage"])
def test_history_scores_read_the_history(name):
    """Another α_{t−1} (location-aware) or coverage changes the weights; no history is
    refused, naming the decoder that has one."""
    queries, values, mask = _inputs()
    _, _, weights, _ = _attend(_make(name), queries, values, mask)
    _, _, other, _ = _attend(_make(name), queries, values, mask, _history(mask, seed=7))
    assert np.abs(weights - other).max() > 1e-4
    module = _make(name)
    with pytest.raises(ValueError, match="only the RNN decoder carries"):
        module.init(jax.random.PRNGKey(0), queries, values, mask,
                    method=lambda m, q, v, k: m(q, m.prepare(v, k, v[:, 0])))


def test_the_coverage_loss_is_recorded_as_see_et_al_write_it():
    """Σ_s min(α_{t,s}, c_{t,s}) (See et al. 2017, Eq. 12) for every query."""
    queries, values, mask = _inputs()
    history = _history(mask)
    _, _, weights, state = _attend(_make("additive"), queries, values, mask, history)
    recorded = np.asarray(state["coverage"]["coverage_loss"][0])
    expected = np.minimum(weights, np.asarray(history.coverage)[:, None, :]).sum(-1)
    np.testing.assert_allclose(recorded, expected, rtol=1e-6)


def test_location_aware_filters_must_be_centred():
    module = attention.make_attention("location_aware", query_dim=D, key_dim=D,
                                      attention_dim=A, max_length=MAX_LEN, filter_width=4)
    with pytest.raises(ValueError, match="must be odd; got 4"):
        _attend(module, *_inputs())


def test_history_scores_refuse_projected_heads():
    with pytest.raises(ValueError, match="not supported with projected heads"):
        attention.make_attention("coverage", query_dim=D, key_dim=D, attention_dim=A,
                                 max_length=MAX_LEN, num_heads=2)


def test_concat_is_an_alias_of_additive():
    assert attention.canonical_score("concat") == "additive"


def test_unknown_score_names_the_valid_choices():
    with pytest.raises(ValueError) as error:
        attention.make_attention("no_such_score_probe", query_dim=D, key_dim=D, attention_dim=A,
                                 max_length=MAX_LEN)
    message = str(error.value)
    assert "no_such_score_probe" in message
    for name in ("additive", "dot", "scaled_dot", "general", "location", "cosine", "none"):
        assert name in message


def test_dot_refuses_mismatched_sizes():
    with pytest.raises(ValueError, match="same size"):
        attention.make_attention("dot", query_dim=4, key_dim=6, attention_dim=A, max_length=9)


def test_masked_softmax_row_without_valid_positions_is_zero_not_nan():
    weights = attention.masked_softmax(jnp.ones((2, 3)), jnp.array([[True, False, True],
                                                                      [False, False, False]]))
    np.testing.assert_allclose(np.asarray(weights), [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]])
