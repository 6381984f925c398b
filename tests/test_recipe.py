"""What the toolkits offer for small data, each on its own: label smoothing, tied
embeddings, token dropout, subword sampling, token-based batches, the best checkpoint
and checkpoint averaging."""

import jax
import numpy as np
import pytest

from attention_research.training.steps import smoothed_losses, token_losses


def test_label_smoothing_is_the_cross_entropy_against_the_smoothed_target():
    rng = np.random.default_rng(0)
    vocab, epsilon = 7, 0.1
    logits = rng.normal(size=(2, 3, vocab)).astype(np.float32)
    targets = np.array([[4, 5, 0], [6, 3, 2]])
    nll, _, _ = token_losses(logits, targets)
    got = np.asarray(smoothed_losses(logits, nll, epsilon))
    # By hand: q = (1 - eps) onehot(y) + eps / V, loss = -sum_k q_k log p_k.
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    q = (1 - epsilon) * np.eye(vocab)[targets] + epsilon / vocab
    np.testing.assert_allclose(got, -(q * log_p).sum(-1), rtol=1e-5)
    assert np.array_equal(np.asarray(smoothed_losses(logits, nll, 0.0)), np.asarray(nll))


def test_label_smoothing_changes_what_is_fitted_but_not_the_reported_loss():
    from attention_research import models
    from attention_research.attention import training_signal
    from attention_research.tasks import get_task
    from attention_research.training.steps import make_loss
    from tests.conftest import tiny_config
    config = tiny_config()
    task = get_task("copy")(config)
    batch = task.sample_batch(jax.random.PRNGKey(3))
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    params = model.init(jax.random.PRNGKey(0), batch.source, batch.target_inputs)["params"]
    signal = training_signal(config.model.attention)
    plain, (nll, *_) = make_loss(model, signal)(params, batch, {}, {})
    smoothed, (same_nll, *_) = make_loss(model, signal, 0.2)(params, batch, {}, {})
    assert float(plain) == pytest.approx(float(nll)) == pytest.approx(float(same_nll))
    assert float(smoothed) != pytest.approx(float(plain))
