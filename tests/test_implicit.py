"""Implicit attention (analysis/implicit.py): exact on hand-built functions, complete
(integrated gradients), and through the models' perturbation handle."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import data, models
from attention_research.analysis import implicit
from attention_research.tasks import TASKS
from configs import transformer
from tests.conftest import tiny_config

B, T, S, E = 2, 3, 5, 4


def _embeddings(seed=0):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.normal(size=(B, S, E)).astype(np.float32))
    real = jnp.asarray(np.arange(S)[None, :] < np.array([[5], [4]]))
    return x, real


def _reads_one_position(x):
    """Output t depends on source position (t + 1) only, nonlinearly: f_t = tanh(w·x_{t+1})."""
    w = 0.2 * jnp.arange(1.0, E + 1)  # small enough that tanh never saturates
    return jnp.tanh(jnp.einsum("bte,e->bt", x[:, 1:T + 1], w))


@pytest.mark.parametrize("method", implicit.METHODS)
def test_an_output_that_reads_one_position_puts_all_its_implicit_attention_there(method):
    x, real = _embeddings()
    attribution = implicit.attributions(_reads_one_position, x, real, method, steps=16)
    distribution = np.asarray(implicit.as_distribution(attribution, real))
    expected = np.zeros((B, T, S))
    expected[:, np.arange(T), np.arange(T) + 1] = 1.0
    np.testing.assert_allclose(distribution, expected, atol=1e-6)


def test_the_gradient_norm_is_the_exact_jacobian_norm():
    x, real = _embeddings(1)
    attribution = np.asarray(implicit.attributions(_reads_one_position, x, real, "gradient"))
    w = 0.2 * np.arange(1.0, E + 1)
    pre = np.einsum("bte,e->bt", np.asarray(x)[:, 1:T + 1], w)
    expected = (1 - np.tanh(pre) ** 2) * np.linalg.norm(w)  # |tanh'| ‖w‖
    np.testing.assert_allclose(attribution[:, np.arange(T), np.arange(T) + 1], expected,
                               rtol=1e-5)


def test_integrated_gradients_is_complete():
    """Sundararajan et al., Proposition 1: Σ_s IG_{t,s} = f_t(x) − f_t(x'), here for a
    function that mixes every position; padding keeps its value and gets nothing."""
    x, real = _embeddings(2)
    mixing = jnp.asarray(np.random.default_rng(3).normal(size=(T, S, E)).astype(np.float32))

    def log_probs(x):
        return jax.nn.log_sigmoid(jnp.einsum("bse,tse->bt", jnp.tanh(x), mixing))

    attribution = implicit.attributions(log_probs, x, real, "integrated_gradients", steps=256)
    baseline = jnp.where(real[..., None], 0.0, x)
    difference = np.asarray(log_probs(x) - log_probs(baseline))
    np.testing.assert_allclose(np.asarray(attribution).sum(-1), difference, rtol=2e-2,
                               atol=2e-3)
    assert np.all(np.asarray(attribution)[1, :, 4:] == 0.0)


def test_several_methods_at_once_are_each_method_alone():
    """attributions_by_method shares one Jacobian at x between gradient and gradient x
    input (the analysis reads both beside its own method): the same maps as alone."""
    x, real = _embeddings(4)
    together = implicit.attributions_by_method(_reads_one_position, x, real,
                                               implicit.METHODS, steps=8)
    assert list(together) == list(implicit.METHODS)
    for method in implicit.METHODS:
        np.testing.assert_allclose(together[method], implicit.attributions(
            _reads_one_position, x, real, method, steps=8), rtol=1e-6, atol=1e-7)


def test_unknown_methods_are_refused():
    x, real = _embeddings()
    with pytest.raises(ValueError, match="valid choices: gradient, gradient_x_input"):
        implicit.attributions(_reads_one_position, x, real, "lrp")


@pytest.mark.slow
@pytest.mark.parametrize("family", ["rnn", "transformer"])
def test_a_models_implicit_maps_are_its_gradients_with_respect_to_source_embeddings(family):
    """The perturbation handle leaves the model as it is and gives the gradient of the
    teacher-forced log-probability with respect to the source embeddings. The
    no-attention model has implicit attention too."""
    if family == "rnn":
        config = tiny_config("none")
    else:
        config = transformer.get_config("score=scaled_dot")
        config.model.update(hidden_size=16, ff_dim=32)
        config.task.eval_max_length = 10
    vocab = 6 + data.NUM_SPECIAL
    model = models.make_model(config, vocab, vocab)
    batch = TASKS["reverse"].random_batch(jax.random.PRNGKey(0), 2, 6, 2, 5)
    # Everything jitted: one program each, where op-by-op dispatch compiled hundreds of
    # small ones (most of the time the test took on the Transformer).
    params = jax.jit(model.init)(jax.random.PRNGKey(1), batch.source,
                                 batch.target_inputs)["params"]
    x, log_probs = implicit.model_log_probs(model, params, batch.source, batch.target_inputs,
                                            batch.targets)
    logits, _ = jax.jit(model.apply)({"params": params}, batch.source, batch.target_inputs)
    plain = -jax.nn.log_softmax(logits)  # unperturbed: the model as it always runs
    np.testing.assert_allclose(
        jax.jit(log_probs)(x),
        -np.take_along_axis(np.asarray(plain), batch.targets[..., None], -1)[..., 0],
        rtol=1e-5, atol=1e-6)
    maps = np.asarray(jax.jit(lambda params, batch: implicit.implicit_maps(
        model, params, batch, "gradient_x_input"))(params, batch))
    assert maps.shape == batch.targets.shape + batch.source.shape[1:]
    assert np.all(maps[np.broadcast_to(~np.asarray(batch.source > 0)[:, None, :], maps.shape)] == 0)
    # Gradient x input at (example 0, source position 1) is the derivative along x
    # restricted to that position: forward mode (jax.jvp) must agree with the maps'
    # reverse mode.
    tangent = jnp.zeros_like(x).at[0, 1].set(x[0, 1])
    _, forward = jax.jit(lambda x, tangent: jax.jvp(log_probs, (x,), (tangent,)))(x, tangent)
    np.testing.assert_allclose(maps[0, :, 1], np.asarray(forward)[0], rtol=1e-4, atol=1e-6)
    assert np.any(maps[0, :, 1] != 0)  # the source reaches the output
