"""The symbol tasks: batches, the fixed held-out set, alignment targets; the registry."""

import jax
import numpy as np
import pytest

from attention_research import data
from attention_research.errors import ConfigError
from attention_research.tasks import TASKS, get_task


@pytest.mark.parametrize("name", ["copy", "reverse"])
def test_batch_matches_the_task_definition(name):
    batch = jax.device_get(TASKS[name].random_batch(jax.random.PRNGKey(0), 64, 7, 1, 9))
    assert batch.source.shape == (64, 9) and batch.targets.shape == (64, 10)
    for src, tgt_in, tgt, length in zip(*batch):
        symbols = list(src[:length])
        assert all(data.NUM_SPECIAL <= s < data.NUM_SPECIAL + 7 for s in symbols)
        assert all(s == data.PAD for s in src[length:])
        body = symbols if name == "copy" else symbols[::-1]
        assert list(tgt[:length + 1]) == body + [data.EOS]
        assert all(t == data.PAD for t in tgt[length + 1:])
        assert list(tgt_in[:length + 1]) == [data.BOS] + body  # teacher forcing shifts by one


def test_lengths_cover_the_range_uniformly():
    batch = TASKS["copy"].random_batch(jax.random.PRNGKey(1), 4000, 5, 3, 6)
    counts = np.bincount(np.asarray(batch.source_lengths), minlength=7)
    assert counts[:3].sum() == 0 and np.all(counts[3:7] > 850)


def test_batches_are_a_pure_function_of_the_key():
    reverse = TASKS["reverse"]
    a = reverse.random_batch(jax.random.PRNGKey(5), 8, 5, 1, 6)
    b = reverse.random_batch(jax.random.PRNGKey(5), 8, 5, 1, 6)
    c = reverse.random_batch(jax.random.PRNGKey(6), 8, 5, 1, 6)
    np.testing.assert_array_equal(a.source, b.source)
    assert not np.array_equal(a.source, c.source)


def test_eval_set_has_every_length_and_is_fixed():
    one = TASKS["reverse"].make_eval_set(50, 1, 12, 3, seed=7)
    two = TASKS["reverse"].make_eval_set(50, 1, 12, 3, seed=7)
    np.testing.assert_array_equal(one.source, two.source)
    np.testing.assert_array_equal(np.bincount(one.source_lengths)[1:], [3] * 12)


@pytest.mark.parametrize("name, expected", [("copy", [0, 1, 2, -1, -1]),
                                            ("reverse", [2, 1, 0, -1, -1])])
def test_alignment_targets(name, expected):
    source = np.array([[3, 4, 5, 0]])
    batch = data.Batch(source, np.zeros((1, 5), np.int32), np.zeros((1, 5), np.int32),
                       np.array([3]))
    got = TASKS[name].alignment_targets(batch)
    np.testing.assert_array_equal(np.asarray(got)[0], expected)


def test_unknown_task_is_refused_with_the_registered_names():
    with pytest.raises(ConfigError, match="task.name='palindrome' is not known; valid choices: "
                       + ", ".join(TASKS)):
        get_task("palindrome")
