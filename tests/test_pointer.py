"""The pointer-generator (See et al. 2017, Eq. 8-9) against NumPy, and in the RNN model."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from attention_research import data, models
from attention_research.models import pointer
from tests.conftest import tiny_config

B, T, S, V = 2, 3, 5, 9


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(B, T, V)).astype(np.float32)
    source = np.array([[4, 5, 4, 8, 3], [6, 6, 7, 0, 0]], np.int32)  # repeats; padding
    scores = rng.normal(size=(B, T, S))
    weights = np.where(source[:, None, :] > 0, np.exp(scores), 0.0)
    weights = (weights / weights.sum(-1, keepdims=True)).astype(np.float32)
    gate = rng.normal(size=(B, T)).astype(np.float32)
    return logits, weights, gate, source


def test_the_mixture_is_see_et_als_equation_9():
    logits, weights, gate, source = _inputs()
    log_p = np.asarray(pointer.mix(jnp.asarray(logits), jnp.asarray(weights),
                                   jnp.asarray(gate), jnp.asarray(source)))
    p_gen = 1 / (1 + np.exp(-gate.astype(np.float64)))
    vocabulary = np.exp(logits - logits.max(-1, keepdims=True))
    vocabulary /= vocabulary.sum(-1, keepdims=True)
    copied = np.zeros((B, T, V))
    for b in range(B):
        for t in range(T):
            for i in range(S):  # Σ_{i: w_i = w} a_i^t
                copied[b, t, source[b, i]] += weights[b, t, i]
    expected = p_gen[..., None] * vocabulary + (1 - p_gen[..., None]) * copied
    np.testing.assert_allclose(np.exp(log_p), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.exp(log_p).sum(-1), 1.0, rtol=1e-5)
    # Padding has weight 0, so nothing is copied onto PAD: it keeps the generated share.
    np.testing.assert_allclose(np.exp(log_p)[..., data.PAD],
                               p_gen * vocabulary[..., data.PAD], rtol=1e-5)


def test_gradients_are_finite_where_nothing_is_copied():
    """Most words are in no source: their copy term is log 0; no NaN may leak back."""
    logits, weights, gate, source = _inputs(1)

    def loss(logits, weights, gate):
        return -jnp.sum(pointer.mix(logits, weights, gate, jnp.asarray(source))[..., [1, 2, 4]])

    grads = jax.grad(loss, argnums=(0, 1, 2))(jnp.asarray(logits), jnp.asarray(weights),
                                              jnp.asarray(gate))
    assert all(np.all(np.isfinite(np.asarray(g))) for g in grads)
    assert np.any(np.asarray(grads[2]) != 0)  # the gate learns
    assert np.any(np.asarray(grads[1]) != 0)  # so does the attention, through copying


@pytest.mark.slow
def test_a_pointer_generator_decoder_copies_a_source_symbol_its_vocabulary_never_gives():
    """With the vocabulary's logit for a symbol at −1e9 (unreachable by generating) and
    p_gen driven to 0 by the gate's bias, the model's P puts all its mass on the source
    symbols, weighted by attention: teacher forcing and greedy decoding agree."""
    config = tiny_config(task="copy")
    config.model.pointer_generator = True
    model = models.make_model(config, 6 + data.NUM_SPECIAL, 6 + data.NUM_SPECIAL)
    source = jnp.array([[5, 6, 7, 0], [8, 8, 4, 5]], jnp.int32)  # vocabulary: 9
    params = model.init(jax.random.PRNGKey(0), source, source)["params"]
    params["decoder"]["p_gen"]["bias"] = jnp.full((1,), -50.0)  # p_gen ≈ 0: copy only
    params["readout"]["bias"] = params["readout"]["bias"].at[7].set(-1e9)
    (log_p, weights), records = model.apply({"params": params}, source, source,
                                            mutable=["pointer"])
    probabilities = np.exp(np.asarray(log_p))
    np.testing.assert_allclose(probabilities.sum(-1), 1.0, rtol=1e-5)
    # Row 0 copies 5, 6 or 7 (7 only by copying); row 1 never outputs 6 or 7.
    assert np.all(probabilities[0][:, [0, 1, 2, 3, 4, 8]] < 1e-6)
    np.testing.assert_allclose(probabilities[0, :, 7], np.asarray(weights)[0, :, 2], rtol=1e-4)
    assert np.all(probabilities[1][:, [6, 7]] < 1e-6)
    copy_rate = np.asarray(jax.tree_util.tree_leaves(records["pointer"])[0])
    np.testing.assert_allclose(copy_rate, 1.0, atol=1e-6)  # 1 − p_gen


@pytest.mark.slow
def test_the_copy_share_is_split_between_tokens_a_source_holds_and_the_others():
    """issue 35: 1 − p_gen over the target tokens some source position holds
    (copyable) and over the others but EOS (novel), with their counts; with EOS they
    make up the whole share."""
    from attention_research.tasks import TASKS
    from attention_research.training.steps import teacher_forced
    config = tiny_config(task="substitute")
    config.model.pointer_generator = True
    task = TASKS["substitute"](config)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    batch = TASKS["substitute"].random_batch(jax.random.PRNGKey(3), 16, 6, 1, 4)
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    stats, _ = teacher_forced(model, params, batch)
    targets, source = np.asarray(batch.targets), np.asarray(batch.source)
    symbol = (targets != data.PAD) & (targets != data.EOS)
    held = (targets[:, :, None] == source[:, None, :]).any(-1)
    np.testing.assert_array_equal(stats["copyable"], (symbol & held).sum(1))
    np.testing.assert_array_equal(stats["novel"], (symbol & ~held).sum(1))
    assert stats["novel"].sum() > 0 and stats["copyable"].sum() > 0
    (_, _), records = model.apply({"params": params}, batch.source, batch.target_inputs,
                                  mutable=["pointer"])
    share = np.asarray(jax.tree_util.tree_leaves(records["pointer"])[0]).reshape(targets.shape)
    at_eos = (share * (targets == data.EOS)).sum(1)
    np.testing.assert_allclose(stats["copied_copyable"] + stats["copied_novel"] + at_eos,
                               stats["copied"], rtol=1e-5)
