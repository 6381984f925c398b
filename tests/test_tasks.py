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


def test_substitute_copies_multiples_of_four_and_writes_the_rest_as_symbols_no_source_holds():
    """tasks/substitute.py: sources hold even symbols only; the target copies the ones
    divisible by 4 and writes each other one as the next odd symbol, in copy's order."""
    batch = jax.device_get(TASKS["substitute"].random_batch(jax.random.PRNGKey(0), 64, 12,
                                                            1, 9))
    novel = copied = 0
    for src, tgt_in, tgt, length in zip(*batch):
        raw = [int(s) - data.NUM_SPECIAL for s in src[:length]]
        assert all(r % 2 == 0 and 0 <= r < 12 for r in raw)
        written = [r if r % 4 == 0 else r + 1 for r in raw]
        assert [int(t) - data.NUM_SPECIAL for t in tgt[:length]] == written
        assert tgt[length] == data.EOS and list(tgt_in[1:length + 1]) == list(tgt[:length])
        novel += sum(w % 2 for w in written)
        copied += sum(1 - w % 2 for w in written)
    assert 0.35 < novel / (novel + copied) < 0.65  # about half must be generated
    np.testing.assert_array_equal(  # the alignment is copy's
        TASKS["substitute"].alignment_targets(batch), TASKS["copy"].alignment_targets(batch))


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


def test_a_bad_eval_batch_size_is_refused():
    from tests.conftest import tiny_config
    config = tiny_config()
    config.task.eval_batch_size = 0
    with pytest.raises(ConfigError, match="task.eval_batch_size must be >= 1, got 0"):
        get_task("copy").validate(config)


def test_length_ranges_cut_the_longer_lengths_where_asked():
    from attention_research.tasks.synthetic import length_ranges
    assert length_ranges(20, 200) == [("len1-20", 1, 20), ("len21-200", 21, 200)]
    assert length_ranges(20, 200, (80,)) == [("len1-20", 1, 20), ("len21-80", 21, 80),
                                              ("len81-200", 81, 200)]
    assert length_ranges(25, 25) == [("len1-25", 1, 25)]


def test_token_accuracy_by_length_pools_the_tokens_of_each_length():
    from attention_research.training.evaluation.ranges import token_accuracy_by_length
    stats = {"correct": np.array([1, 3, 2]), "count": np.array([2, 4, 4])}
    assert token_accuracy_by_length(stats, np.array([1, 3, 3])) == {1: 0.5, 3: 5 / 8}


def test_range_ends_outside_the_longer_lengths_are_refused():
    from tests.conftest import tiny_config
    config = tiny_config()  # train 1-4, evaluate 1-6
    config.task.eval_range_ends = (6,)
    with pytest.raises(ConfigError, match=r"task.eval_range_ends \(6,\) must lie between"):
        get_task("copy").validate(config)
