"""Local, hard and multi-head attention against NumPy references and exact expectations."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import attention
from attention_research.attention import monotonic, reinforce

B, T, S, D = 2, 6, 12, 8
LENGTHS = np.array([12, 9])
WINDOW = 2


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    queries = rng.normal(size=(B, T, D)).astype(np.float32)
    values = rng.normal(size=(B, S, D)).astype(np.float32)
    mask = np.arange(S)[None, :] < LENGTHS[:, None]
    return queries, values, mask


def _forward(m, q, v, k, positions=None):
    return m(q, m.prepare(v, k), positions)


def _make(alignment, score="dot", **kwargs):
    return attention.make_attention(score, query_dim=D, key_dim=D, attention_dim=5,
                                    max_length=S, alignment=alignment, window=WINDOW, **kwargs)


def _numpy_softmax(scores, allowed):
    scores = np.where(allowed, scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return np.where(allowed, weights / weights.sum(-1, keepdims=True), 0.0)


def test_local_m_is_the_softmax_inside_a_clipped_window_around_t():
    queries, values, mask = _inputs()
    module = _make("local_m")
    params = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    _, weights = module.apply(params, queries, values, mask, method=_forward)
    weights = np.asarray(weights)
    scores = np.einsum("btd,bsd->bts", queries, values)
    s, t = np.arange(S)[None, None, :], np.arange(T)[None, :, None]
    window = np.abs(s - t) <= WINDOW  # t = 0: [0, 2], clipped at the start
    expected = _numpy_softmax(scores, window & mask[:, None, :])
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-7)
    assert np.all(weights[~np.broadcast_to(window, weights.shape)] == 0.0)
    assert np.count_nonzero(weights[0, 0]) == WINDOW + 1
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-6)


def test_local_m_window_is_clipped_at_the_end_of_a_short_source():
    queries, values, mask = _inputs()
    module = _make("local_m")
    params = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    positions = jnp.full((B, T), 9)  # window [7, 11]; source 1 ends at 8
    _, weights = module.apply(params, queries, values, mask, positions, method=_forward)
    assert np.flatnonzero(np.asarray(weights)[1, 0]).tolist() == [7, 8]
    assert np.flatnonzero(np.asarray(weights)[0, 0]).tolist() == [7, 8, 9, 10, 11]


def test_local_p_predicts_the_centre_and_applies_the_gaussian():
    queries, values, mask = _inputs(seed=1)
    module = _make("local_p")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    _, weights = module.apply(variables, queries, values, mask, method=_forward)
    weights = np.asarray(weights)
    p = jax.tree_util.tree_map(np.asarray, variables["params"])
    # Luong Eq. 9: p_t = S · sigmoid(v_pᵀ tanh(W_p h_t)), S the source length.
    predicted = (np.tanh(queries @ p["W_p"]["kernel"]) @ p["v_p"]["kernel"])[..., 0]
    centres = LENGTHS[:, None] * (1 / (1 + np.exp(-predicted)))
    s = np.arange(S)[None, None, :]
    window = np.abs(s - centres[..., None]) <= WINDOW
    gaussian = np.exp(-(s - centres[..., None]) ** 2 / (2 * (WINDOW / 2) ** 2))  # Eq. 10
    scores = np.einsum("btd,bsd->bts", queries, values)
    expected = _numpy_softmax(scores, window & mask[:, None, :]) * gaussian
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-7)
    assert np.all(weights[~(window & mask[:, None, :])] == 0.0)
    assert np.all(weights.sum(-1) <= 1.0 + 1e-6)  # not renormalised, as in the paper


def test_local_p_centre_is_differentiable_through_the_gaussian():
    queries, values, mask = _inputs()
    module = _make("local_p")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)

    def total(params):
        context, _ = module.apply({"params": params}, queries, values, mask, method=_forward)
        return jnp.sum(context ** 2)

    grads = jax.grad(total)(variables["params"])
    assert np.any(np.asarray(grads["W_p"]["kernel"]) != 0)
    assert np.any(np.asarray(grads["v_p"]["kernel"]) != 0)


def test_hard_attention_takes_the_argmax_state_at_evaluation():
    queries, values, mask = _inputs()
    module = _make("hard")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    context, weights = module.apply(variables, queries, values, mask, method=_forward)
    chosen = np.argmax(np.asarray(weights), -1)
    np.testing.assert_allclose(context, values[np.arange(B)[:, None], chosen], rtol=1e-6)


def test_hard_attention_samples_a_valid_state_and_records_reinforce_terms():
    queries, values, mask = _inputs()
    module = _make("hard")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    (context, weights), records = module.apply(
        variables, queries, values, mask, method=_forward, rngs={"sample": jax.random.PRNGKey(3)},
        mutable=["reinforce"])
    context, weights = np.asarray(context), np.asarray(weights)
    # Every context is exactly one real source state, the one whose log α is recorded.
    matches = np.all(np.isclose(context[:, :, None, :], values[:, None, :, :]), axis=-1)
    assert np.all(matches.sum(-1) == 1)
    chosen = matches.argmax(-1)
    assert np.all(chosen < LENGTHS[:, None])
    log_prob = np.asarray(reinforce.recorded(records, "log_prob"))
    np.testing.assert_allclose(log_prob, np.log(np.take_along_axis(weights, chosen[..., None], -1)[..., 0]),
                               rtol=1e-5)
    entropy = np.asarray(reinforce.recorded(records, "entropy"))
    expected_entropy = -np.sum(np.where(weights > 0, weights * np.log(np.where(weights > 0, weights, 1)), 0), -1)
    np.testing.assert_allclose(entropy, expected_entropy, rtol=1e-5)


def test_hard_attention_soft_fraction_one_gives_the_expected_context():
    queries, values, mask = _inputs()
    module = _make("hard", soft_fraction=1.0)
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    (context, weights), _ = module.apply(variables, queries, values, mask, method=_forward,
                                         rngs={"sample": jax.random.PRNGKey(3)},
                                         mutable=["reinforce"])
    np.testing.assert_allclose(context, np.einsum("bts,bsd->btd", weights, values), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.slow
def test_reinforce_estimator_matches_the_exact_gradient_of_the_expected_reward():
    """E_s~α[(r(s) − b) ∇ log α(s)] = ∇ Σ_s α(s) r(s): the estimator through our sampling
    and surrogate, averaged over many samples, against the exact gradient."""
    rng = np.random.default_rng(0)
    q = rng.normal(size=(1, 1, 3)).astype(np.float32)
    v = rng.normal(size=(1, 4, 3)).astype(np.float32)
    mask = np.ones((1, 4), bool)
    rewards_by_position = jnp.array([1.0, -2.0, 0.5, 3.0])
    module = attention.make_attention("general", query_dim=3, key_dim=3, attention_dim=3,
                                      max_length=4, alignment="hard")
    params = module.init(jax.random.PRNGKey(0), q, v, mask, method=_forward)["params"]
    baseline = 0.7  # any constant baseline leaves the estimator unbiased

    def surrogate(p, key):
        (context, _), records = module.apply({"params": p}, q, v, mask, method=_forward,
                                             rngs={"sample": key}, mutable=["reinforce"])
        chosen = jnp.argmax(jnp.all(jnp.isclose(context[:, :, None], v[:, None]), -1), -1)
        reward = rewards_by_position[chosen]
        return reinforce.surrogate_loss(reinforce.recorded(records, "log_prob"),
                                        reinforce.recorded(records, "entropy"), reward,
                                        baseline, jnp.ones((1, 1)), 1.0, 0.0)

    keys = jax.random.split(jax.random.PRNGKey(1), 40_000)
    grads = jax.vmap(jax.grad(surrogate), in_axes=(None, 0))(params, keys)
    estimate = -np.asarray(grads["score_fn"]["W_a"]["kernel"])  # surrogate = −objective
    spread = estimate.std(axis=0) / np.sqrt(len(keys))

    def expected_reward(p):
        _, weights = module.apply({"params": p}, q, v, mask, method=_forward)
        return jnp.sum(weights[0, 0] * rewards_by_position)

    exact = np.asarray(jax.grad(expected_reward)(params)["score_fn"]["W_a"]["kernel"])
    assert np.all(np.abs(estimate.mean(axis=0) - exact) <= 4 * spread + 1e-4)
    assert np.abs(exact).max() > 10 * spread.max()  # the check has teeth


def test_hard_attention_records_log_alpha_only_on_the_steps_that_sampled():
    """soft_fraction 0.5 per step: a step that took the expected context records
    log α = 0 (no REINFORCE term); one that sampled records log α of its sample."""
    queries, values, mask = _inputs()
    module = _make("hard", soft_fraction=0.5)
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    (context, weights), records = module.apply(
        variables, queries, values, mask, method=_forward, rngs={"sample": jax.random.PRNGKey(3)},
        mutable=["reinforce"])
    context, weights = np.asarray(context), np.asarray(weights)
    log_prob = np.asarray(reinforce.recorded(records, "log_prob"))
    soft = np.all(np.isclose(context, np.einsum("bts,bsd->btd", weights, values), atol=1e-5), -1)
    assert 0 < soft.sum() < soft.size  # both kinds of step occur
    assert np.all(log_prob[soft] == 0.0)
    chosen = np.all(np.isclose(context[:, :, None, :], values[:, None, :, :]), -1).argmax(-1)
    expected = np.log(np.take_along_axis(weights, chosen[..., None], -1)[..., 0])
    np.testing.assert_allclose(log_prob[~soft], expected[~soft], rtol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["sequence", "batch"])
def test_a_soft_choice_holds_for_every_step_of_the_recurrent_decoder(unit):
    """soft_unit='sequence' or 'batch' (Xu et al.'s code): the decoder scans its steps
    with a fresh 'sample' key each, and one 'soft_choice' key, so a sequence is soft
    (log α = 0) at all its steps or at none; with 'batch', the whole minibatch is."""
    from attention_research import models
    from tests.conftest import tiny_config
    config = tiny_config()
    config.model.attention.alignment = "hard"
    config.model.attention.hard.update(soft_fraction=0.5, soft_unit=unit)
    model = models.make_model(config, 12, 12)
    rng = np.random.default_rng(0)
    source, target_inputs = rng.integers(3, 12, (16, 5)), rng.integers(3, 12, (16, 6))
    variables = model.init(jax.random.PRNGKey(0), source, target_inputs)
    firsts = []
    for key in range(6):
        _, records = model.apply(
            variables, source, target_inputs, train=True, mutable=["reinforce"],
            rngs={"sample": jax.random.PRNGKey(1), "dropout": jax.random.PRNGKey(2),
                  "soft_choice": jax.random.PRNGKey(3 + key)})
        sampled = np.asarray(reinforce.recorded(records, "log_prob")) != 0.0
        assert np.all(sampled == sampled[:, :1])  # one choice per sequence
        if unit == "batch":
            assert np.all(sampled == sampled[0, 0])  # one choice for the minibatch
        firsts.append(sampled[:, 0])
    if unit == "sequence":
        assert 0 < firsts[0].sum() < len(firsts[0])  # both choices within a minibatch
    else:
        assert 0 < sum(f.all() for f in firsts) < len(firsts)  # both across minibatches


def test_moving_average_baseline():
    b = reinforce.update_baseline(jnp.float32(1.0), jnp.array([[2.0, 9.0]]),
                                  jnp.array([[1.0, 0.0]]), 0.9)
    assert float(b) == pytest.approx(0.9 * 1.0 + 0.1 * 2.0)


@pytest.mark.parametrize("score", ["dot", "additive", "general", "cosine"])
def test_one_head_with_identity_projections_is_single_head_attention(score):
    queries, values, mask = _inputs()
    single = attention.make_attention(score, query_dim=D, key_dim=D, attention_dim=5,
                                      max_length=S)
    multi = attention.make_attention(score, query_dim=D, key_dim=D, attention_dim=5,
                                     max_length=S, projections=True)
    single_vars = single.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    multi_vars = multi.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    params = dict(multi_vars["params"])
    for name in ("query", "key", "value", "out"):
        params[name] = {"kernel": jnp.eye(D)}
    if "score_fn" in single_vars.get("params", {}):
        params["attention"] = single_vars["params"]
    context, weights = multi.apply({"params": params}, queries, values, mask, method=_forward)
    expected_context, expected_weights = single.apply(single_vars, queries, values, mask,
                                                      method=_forward)
    np.testing.assert_array_equal(np.asarray(weights), np.asarray(expected_weights))
    np.testing.assert_allclose(context, expected_context, rtol=1e-6, atol=1e-6)


def test_multi_head_shapes_and_head_averaged_weights():
    queries, values, mask = _inputs()
    module = attention.make_attention("scaled_dot", query_dim=D, key_dim=D, attention_dim=5,
                                      max_length=S, num_heads=4)
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    (context, weights), state = module.apply(variables, queries, values, mask, method=_forward,
                                             mutable=["intermediates"])
    assert context.shape == (B, T, D) and weights.shape == (B, T, S)
    per_head = state["intermediates"]["attention"]["attention_weights"][0]
    assert per_head.shape == (B * 4, T, S)
    np.testing.assert_allclose(weights, per_head.reshape(B, 4, T, S).mean(1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(weights).sum(-1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("num_heads", [1, 2])
def test_head_dim_sets_the_comparison_space_and_keeps_the_output_size(num_heads):
    """q and k compared in d_k = 32 dimensions whatever the model size (D)."""
    queries, values, mask = _inputs()
    module = attention.make_attention("dot", query_dim=D, key_dim=D, attention_dim=5,
                                      max_length=S, num_heads=num_heads, head_dim=32)
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    params = variables["params"]
    assert params["query"]["kernel"].shape == (D, num_heads * 32)
    assert params["out"]["kernel"].shape == (num_heads * 32, D)
    context, weights = module.apply(variables, queries, values, mask, method=_forward)
    assert context.shape == (B, T, D) and weights.shape == (B, T, S)


def test_unsupported_combinations_are_refused():
    with pytest.raises(ValueError, match="valid choices: global, local_m, local_p, hard"):
        _make("sliding")
    with pytest.raises(ValueError, match="not supported with projected heads"):
        _make("hard", num_heads=2)
    with pytest.raises(ValueError, match="not supported with projected heads"):
        _make("hard", head_dim=16)
    with pytest.raises(ValueError, match="must divide"):
        _make("global", num_heads=3)


def test_local_m_window_past_the_end_of_the_source_gives_zero_weights_and_context():
    """A window wholly past the source (t − D > L − 1) holds no position: zero weights
    and a zero context, as documented in attention.py."""
    queries, values, mask = _inputs()
    module = _make("local_m")
    params = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    positions = jnp.full((B, T), LENGTHS[1] - 1 + WINDOW + 1)  # row 1 (9 long): [9, 13], empty
    context, weights = module.apply(params, queries, values, mask, positions, method=_forward)
    assert np.all(np.asarray(weights)[1] == 0.0) and np.all(np.asarray(context)[1] == 0.0)
    assert np.flatnonzero(np.asarray(weights)[0, 0]).tolist() == [9, 10, 11]  # row 0: 12 long


def test_local_p_centres_use_each_rows_own_length_not_the_padded_width():
    """p_t = L · sigmoid(…) with L the row's true length: padding a row further (or
    sharing a batch with longer rows) must not move its centre or its weights."""
    queries, values, mask = _inputs(seed=2)
    module = _make("local_p")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    _, weights = module.apply(variables, queries, values, mask, method=_forward)
    short = LENGTHS[1]  # row 1 has 9 real positions in a batch 12 wide
    _, alone = module.apply(variables, queries[1:], values[1:, :short], mask[1:, :short],
                            method=_forward)
    np.testing.assert_allclose(np.asarray(weights)[1, :, :short], np.asarray(alone)[0],
                               rtol=1e-5, atol=1e-7)
    bound = module.bind(variables)
    centres = np.asarray(bound.centres(jnp.asarray(queries), bound.prepare(values, mask), None))
    alone_centres = bound.centres(jnp.asarray(queries[1:]),
                                  bound.prepare(values[1:, :short], mask[1:, :short]), None)
    np.testing.assert_allclose(centres[1], np.asarray(alone_centres)[0], rtol=1e-6)
    assert np.all(centres[1] <= short)


def test_hard_attention_can_evaluate_with_the_expected_context_as_xus_code_does():
    """hard.test_context='expected' (Xu et al.'s generate_caps.py: sampling=False reads
    α): at evaluation the context is Σ_s α_s v_s, the soft one."""
    queries, values, mask = _inputs()
    module = attention.make_attention("additive", query_dim=D, key_dim=D, attention_dim=5,
                                      max_length=S, alignment="hard", test_context="expected")
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    context, weights = module.apply(variables, queries, values, mask, method=_forward)
    np.testing.assert_allclose(context, np.einsum("bts,bsd->btd", weights, values), rtol=1e-5)


def test_hard_attention_evaluates_at_the_argmax_even_when_the_weights_are_nearly_flat():
    """Near-uniform α with a unique argmax: a sample would land elsewhere almost always,
    so only the argmax passes for every query."""
    queries, values, mask = _inputs()
    module = _make("hard")
    queries = 1e-3 * queries
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    context, weights = module.apply(variables, queries, values, mask, method=_forward)
    weights = np.asarray(weights)
    assert weights.max() < 2.0 / LENGTHS.min()  # nearly flat
    chosen = np.argmax(weights, -1)
    np.testing.assert_allclose(context, values[np.arange(B)[:, None], chosen], rtol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("reward", ["token", "sequence", "sequence_mean"])
def test_the_reinforce_signal_is_unbiased_over_several_decoder_steps(reward):
    """Three target steps, each with its own reward per position: the training signal's
    gradient, averaged over samples, equals ∇ Σ_t Σ_s α_t(s) r_t(s), whether each step
    is credited with its own reward or every step with their sum (Xu Eq. 12); with
    their mean (Xu's code), ∇ of that sum over the number of steps."""
    rng = np.random.default_rng(1)
    steps, positions = 3, 4
    q = rng.normal(size=(1, steps, 3)).astype(np.float32)
    v = rng.normal(size=(1, positions, 3)).astype(np.float32)
    mask = np.ones((1, positions), bool)
    rewards = jnp.asarray(rng.normal(size=(steps, positions)).astype(np.float32) * 2)
    module = attention.make_attention("general", query_dim=3, key_dim=3, attention_dim=3,
                                      max_length=positions, alignment="hard")
    params = module.init(jax.random.PRNGKey(0), q, v, mask, method=_forward)["params"]
    config = type("HardConfig", (), {"hard": type("Hard", (), dict(
        reinforce_weight=1.0, entropy_weight=0.0, baseline_decay=0.9, reward=reward))})
    signal = reinforce.Reinforce(config)

    def surrogate(p, key):
        (context, _), records = module.apply({"params": p}, q, v, mask, method=_forward,
                                             rngs={"sample": key}, mutable=["reinforce"])
        chosen = jnp.argmax(jnp.all(jnp.isclose(context[0][:, None], v[0][None]), -1), -1)
        reward = rewards[jnp.arange(steps), chosen][None]  # [1, T]
        loss, _ = signal(records, {"reward_baseline": jnp.float32(0.3)}, reward,
                         jnp.ones((1, steps)))
        return loss * steps  # the signal averages over tokens; the objective sums them

    keys = jax.random.split(jax.random.PRNGKey(2), 40_000)
    grads = jax.vmap(jax.grad(surrogate), in_axes=(None, 0))(params, keys)
    estimate = -np.asarray(grads["score_fn"]["W_a"]["kernel"])
    spread = estimate.std(axis=0) / np.sqrt(len(keys))

    def expected_reward(p):
        _, weights = module.apply({"params": p}, q, v, mask, method=_forward)
        return jnp.sum(weights[0] * rewards) / (steps if reward == "sequence_mean" else 1)

    exact = np.asarray(jax.grad(expected_reward)(params)["score_fn"]["W_a"]["kernel"])
    assert np.all(np.abs(estimate.mean(axis=0) - exact) <= 4 * spread + 1e-4)
    assert np.abs(exact).max() > 10 * spread.max()


def test_xu_codes_reward_is_each_sequences_mean_log_likelihood():
    """reward='sequence_mean': R / |y| per sequence, padding left out, so a sequence of 1
    token and one of 4 with the same per-token log-likelihood earn the same reward, and
    the one baseline tracks the mean of those rewards (arctic-captions' capgen.py)."""
    mask = jnp.array([[1, 0, 0, 0], [1, 1, 1, 1]], jnp.float32)
    log_likelihood = jnp.array([[-2.0, -9.0, -9.0, -9.0], [-1.0, -3.0, -2.0, -2.0]])
    log_prob = jnp.array([[-0.5, 0.0, 0.0, 0.0], [-0.1, -0.2, -0.3, -0.4]])
    records = {"reinforce": {"log_prob": log_prob, "entropy": jnp.zeros_like(log_prob)}}
    config = type("HardConfig", (), {"hard": type("Hard", (), dict(
        reinforce_weight=0.1, entropy_weight=0.0, baseline_decay=0.9,
        reward="sequence_mean"))})
    loss, state = reinforce.Reinforce(config)(records, {"reward_baseline": jnp.float32(-1.0)},
                                              log_likelihood, mask)
    rewards = np.array([-2.0, -2.0])  # both sequences: mean log-likelihood −2 per token
    advantage = rewards - (-1.0)
    expected = -0.1 * (advantage[0] * -0.5 + advantage[1] * -1.0) / 5
    np.testing.assert_allclose(float(loss), expected, rtol=1e-6)
    np.testing.assert_allclose(float(state["reward_baseline"]), 0.9 * -1.0 + 0.1 * -2.0,
                               rtol=1e-6)


@pytest.mark.parametrize("score", ["scaled_dot", "additive"])
def test_multi_head_attention_with_per_row_padding_matches_numpy_head_by_head(score):
    """Each row's padding must mask every one of that row's heads: folding heads into
    the batch as (row, head) and the mask in another order (tile for repeat) would
    hand row 0's heads row 1's mask."""
    queries, values, mask = _inputs(seed=4)
    heads, head_dim = 4, D // 4
    module = attention.make_attention(score, query_dim=D, key_dim=D, attention_dim=5,
                                      max_length=S, num_heads=heads)
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    (context, _), state = module.apply(variables, queries, values, mask, method=_forward,
                                       mutable=["intermediates"])
    p = jax.tree_util.tree_map(np.asarray, variables["params"])
    split = lambda x: x.reshape(x.shape[0], x.shape[1], heads, head_dim).transpose(0, 2, 1, 3)
    q, k, v = (split(x @ p[name]["kernel"]) for x, name in
               ((queries, "query"), (values, "key"), (values, "value")))  # [B, h, L, d]
    if score == "scaled_dot":
        scores = np.einsum("bhtd,bhsd->bhts", q, k) / np.sqrt(head_dim)
    else:
        s = p["attention"]["score_fn"]
        hidden = np.tanh((q @ s["W_a"]["kernel"])[..., :, None, :]
                         + (k @ s["U_a"]["kernel"] + s["U_a"]["bias"])[..., None, :, :])
        scores = (hidden @ s["v_a"]["kernel"])[..., 0]
    weights = _numpy_softmax(scores, np.broadcast_to(mask[:, None, None, :], scores.shape))
    heads_context = np.einsum("bhts,bhsd->bhtd", weights, v)
    expected = heads_context.transpose(0, 2, 1, 3).reshape(B, T, D) @ p["out"]["kernel"]
    np.testing.assert_allclose(context, expected, rtol=1e-4, atol=1e-5)
    sown = np.asarray(state["intermediates"]["attention"]["attention_weights"][0])
    np.testing.assert_allclose(sown.reshape(B, heads, T, S), weights, rtol=1e-5, atol=1e-6)
    assert np.all(sown.reshape(B, heads, T, S)[1, :, :, LENGTHS[1]:] == 0.0)


def _numpy_monotonic(p, previous):
    """Raffel et al. 2017, Eq. 9, term by term in float64:
    α_j = p_j Σ_{k≤j} α⁻_k Π_{l=k}^{j−1} (1 − p_l)."""
    p, previous = np.asarray(p, np.float64), np.asarray(previous, np.float64)
    alpha = np.zeros(p.shape)
    for b in range(p.shape[0]):
        for t in range(p.shape[1]):
            for j in range(p.shape[2]):
                alpha[b, t, j] = p[b, t, j] * sum(
                    previous[b, k] * np.prod(1.0 - p[b, t, k:j]) for k in range(j + 1))
    return alpha


def test_monotonic_expected_alignment_is_raffels_equation_9():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(B, T, S)).astype(np.float32)
    p = np.where(np.arange(S) < LENGTHS[:, None, None], p, 0.0)  # padding never stops
    previous = rng.dirichlet(np.ones(S), size=B).astype(np.float32) * 0.9  # Σ ≤ 1
    alpha = np.asarray(monotonic.expected_alignment(jnp.asarray(p), jnp.asarray(previous)))
    np.testing.assert_allclose(alpha, _numpy_monotonic(p, previous), rtol=1e-5, atol=1e-7)
    assert np.all(alpha[1, :, LENGTHS[1]:] == 0.0)
    assert np.all(alpha.sum(-1) <= 1 + 1e-6)


def test_monotonic_expected_alignment_stays_exact_where_raffels_cumprod_form_underflows():
    """100 hesitant positions (p = 0.2), then 100 confident ones (p = 0.999): Π(1 − p)
    falls to ~1e-310, below float32's range, where App. C.1's division by the
    cumulative product breaks; the scan multiplies numbers in [0, 1] only."""
    p = np.full((1, 1, 200), 0.999, np.float32)
    p[..., :100] = 0.2
    previous = np.zeros((1, 200), np.float32)
    previous[0, [0, 150]] = 0.5
    alpha = np.asarray(monotonic.expected_alignment(jnp.asarray(p), jnp.asarray(previous)))
    assert np.all(np.isfinite(alpha))
    np.testing.assert_allclose(alpha, _numpy_monotonic(p, previous), rtol=1e-4, atol=1e-9)
    exclusive = np.cumprod(np.concatenate([[1.0], 1 - p[0, 0, :-1]])).astype(np.float32)
    assert exclusive[-1] == 0.0  # the closed form would divide by this


def _monotonic_step(previous, noise_key=None, noise=0.0, bias=0.0, seed=2):
    """One decoder step of dot-score monotonic attention (one query per row)."""
    queries, values, mask = _inputs(seed)
    queries = queries[:, :1]
    module = _make("monotonic", monotonic_bias=bias, monotonic_noise=noise)
    history = attention.History(jnp.asarray(previous), jnp.zeros((B, S)))

    def forward(m, q, v, k):
        return m(q, m.prepare(v, k), history=history)

    rngs = {} if noise_key is None else {"sample": noise_key}
    variables = module.init(jax.random.PRNGKey(0), queries, values, mask, method=forward)
    context, weights = module.apply(variables, queries, values, mask, method=forward, rngs=rngs)
    energy = np.einsum("btd,bsd->bts", queries, values) + bias
    return np.asarray(context), np.asarray(weights), energy, values, mask


def test_monotonic_attention_in_training_is_the_expected_alignment_of_sigmoid_energies():
    previous = np.eye(S, dtype=np.float32)[[0, 3]]
    _, weights, energy, _, mask = _monotonic_step(previous, jax.random.PRNGKey(1), bias=-1.0)
    p = np.where(mask[:, None, :], 1 / (1 + np.exp(-energy)), 0.0)
    np.testing.assert_allclose(weights, _numpy_monotonic(p, previous), rtol=1e-5, atol=1e-7)
    assert np.all(weights[1, :, LENGTHS[1]:] == 0.0)
    # The pre-sigmoid noise (§2.4) changes the weights, and only in training.
    _, noisy, _, _, _ = _monotonic_step(previous, jax.random.PRNGKey(1), noise=1.0, bias=-1.0)
    assert not np.allclose(noisy, weights)


def test_monotonic_attention_at_test_attends_the_first_stop_from_where_it_last_stopped():
    starts = [2, 5]
    previous = np.eye(S, dtype=np.float32)[starts]
    context, weights, energy, values, mask = _monotonic_step(previous, bias=0.0, seed=4)
    for row, start in enumerate(starts):
        stops = [j for j in range(start, LENGTHS[row]) if energy[row, 0, j] >= 0]
        if stops:  # the one-hot of the first stop at or after t_{i−1}
            np.testing.assert_array_equal(weights[row, 0], np.eye(S)[stops[0]])
            np.testing.assert_allclose(context[row, 0], values[row, stops[0]], rtol=1e-6)
        else:  # ran off the end: no weight, zero context
            assert np.all(weights[row, 0] == 0) and np.all(context[row, 0] == 0)
    # A bias so low that nothing stops: the scan runs off the end of every row.
    context, weights, *_ = _monotonic_step(previous, bias=-1e3, seed=4)
    assert np.all(weights == 0) and np.all(context == 0)


def test_monotonic_attention_needs_the_decoders_history_and_one_head():
    queries, values, mask = _inputs()
    module = _make("monotonic")
    with pytest.raises(ValueError, match="only the RNN decoder carries"):
        module.init(jax.random.PRNGKey(0), queries, values, mask, method=_forward)
    with pytest.raises(ValueError, match="not supported with projected heads"):
        _make("monotonic", num_heads=2)
    with pytest.raises(ValueError, match="normalizer='softmax'"):
        history = attention.History(jnp.zeros((B, S)), jnp.zeros((B, S)))
        _make("monotonic", normalizer="sparsemax").init(
            jax.random.PRNGKey(0), queries, values, mask,
            method=lambda m, q, v, k: m(q, m.prepare(v, k), history=history))
