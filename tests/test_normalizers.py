"""Softmax, sparsemax and 1.5-entmax against NumPy transcriptions of their papers, with
exact zeros outside the mask, and through a model."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research.attention.normalizers import NORMALIZERS


def sparsemax_reference(z):
    """Martins & Astudillo 2016, Algorithm 1: sort, find k(z), threshold τ."""
    ordered = np.sort(z)[::-1]
    cumulative = np.cumsum(ordered)
    k = np.arange(1, len(z) + 1)
    support = k[1 + k * ordered > cumulative].max()
    tau = (cumulative[support - 1] - 1) / support
    return np.maximum(z - tau, 0)


def entmax15_reference(z, iterations=200):
    """Peters et al. 2019, Eq. 10 with α = 1.5: p = [z/2 − τ]₊², Σ p = 1; τ by bisection."""
    low, high = z.max() / 2 - 1, z.max() / 2
    for _ in range(iterations):
        tau = (low + high) / 2
        if np.sum(np.maximum(z / 2 - tau, 0) ** 2) > 1:
            low = tau
        else:
            high = tau
    return np.maximum(z / 2 - tau, 0) ** 2


REFERENCES = {"sparsemax": sparsemax_reference, "entmax15": entmax15_reference,
              "softmax": lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum()}


@pytest.mark.parametrize("name", sorted(NORMALIZERS))
def test_each_normalizer_matches_its_equation_within_the_mask(name):
    rng = np.random.default_rng(0)
    scores = rng.normal(scale=2.0, size=(3, 4, 9)).astype(np.float32)
    lengths = np.array([9, 5, 1])
    mask = np.arange(9)[None, None, :] < lengths[:, None, None]
    weights = np.asarray(NORMALIZERS[name](jnp.asarray(scores), jnp.asarray(mask)))
    for b, length in enumerate(lengths):
        for t in range(4):
            expected = REFERENCES[name](scores[b, t, :length].astype(np.float64))
            np.testing.assert_allclose(weights[b, t, :length], expected, atol=2e-6)
            assert np.all(weights[b, t, length:] == 0.0)  # padding: exactly zero
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    # A row with nothing valid (a window past the source) is all zeros, not NaN.
    empty = NORMALIZERS[name](jnp.asarray(scores), jnp.zeros((3, 4, 9), bool))
    assert np.all(np.asarray(empty) == 0.0)


@pytest.mark.parametrize("name", ["sparsemax", "entmax15"])
def test_sparse_maps_give_exact_zeros_and_finite_gradients(name):
    scores = jnp.array([[3.0, 2.9, 0.0, -2.0, 1.0]])
    mask = jnp.array([[True, True, True, True, False]])
    weights = np.asarray(NORMALIZERS[name](scores, mask))
    assert weights[0, 2] == 0.0 and weights[0, 3] == 0.0 and weights[0, 0] > 0
    # A large margin: all the weight on one position, as argmax.
    peaked = NORMALIZERS[name](jnp.array([[10.0, 0.0, -1.0]]), jnp.ones((1, 3), bool))
    assert np.array_equal(np.asarray(peaked), [[1.0, 0.0, 0.0]])
    gradient = jax.grad(lambda s: jnp.sum(NORMALIZERS[name](s, mask) * jnp.arange(5.0)))(scores)
    assert np.all(np.isfinite(np.asarray(gradient)))
    assert np.asarray(gradient)[0, 4] == 0.0  # nothing reaches a masked score


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sparsemax", "entmax15"])
def test_a_model_attends_sparsely_with_exact_zeros_on_padding(name):
    from attention_research import models
    from attention_research.training.config_checks import validate
    from tests.conftest import tiny_config
    config = tiny_config()
    config.model.attention.normalizer = name
    validate(config)
    model = models.make_model(config, 12, 12)
    source = np.array([[5, 6, 7, 8, 0, 0]])
    params = model.init(jax.random.PRNGKey(0), source, source)["params"]
    _, weights = model.apply({"params": params}, source, source)
    weights = np.asarray(weights)
    assert np.all(weights[..., 4:] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)


def test_an_unknown_normalizer_is_refused_with_the_choices():
    from attention_research.training.config_checks import ConfigError, validate
    from tests.conftest import tiny_config
    config = tiny_config()
    config.model.attention.normalizer = "sparse"
    with pytest.raises(ConfigError, match="valid choices: softmax, sparsemax, entmax15"):
        validate(config)
