"""The sort task: its batches, its alignment targets (ties left to right), a run."""

import jax
import numpy as np
import pytest

from attention_research import data
from attention_research.tasks import TASKS
from configs import base

Sort = TASKS["sort"]


def test_the_output_is_the_source_in_ascending_order_then_eos():
    batch = jax.device_get(Sort.random_batch(jax.random.PRNGKey(0), 64, 4, 1, 9))
    for source, target_inputs, targets, length in zip(*batch):
        symbols = list(source[:length])
        assert list(targets[:length + 1]) == sorted(symbols) + [data.EOS]
        assert all(t == data.PAD for t in targets[length + 1:])
        assert list(target_inputs[:length + 1]) == [data.BOS] + sorted(symbols)


def test_alignment_targets_are_the_source_positions_of_the_emitted_symbols_ties_left_first():
    source = np.array([[7, 5, 7, 5, 6, 0, 0]], np.int32)  # 5 at 1 and 3, 7 at 0 and 2
    batch = data.Batch(source, np.zeros((1, 8), np.int32), np.zeros((1, 8), np.int32),
                       np.array([5]))
    targets = np.asarray(Sort.alignment_targets(batch))[0]
    np.testing.assert_array_equal(targets, [1, 3, 4, 0, 2, -1, -1, -1])
    # Every step's target holds the symbol that step emits.
    full = Sort.make_batch(jax.numpy.asarray(source - data.NUM_SPECIAL).clip(0),
                           jax.numpy.asarray([5]))
    np.testing.assert_array_equal(source[0, targets[:5]], np.asarray(full.targets)[0, :5])


def test_alignment_matches_are_every_position_holding_the_emitted_symbol():
    source = np.array([[7, 5, 7, 5, 6, 0, 0]], np.int32)
    full = Sort.make_batch(jax.numpy.asarray(source - data.NUM_SPECIAL).clip(0),
                           jax.numpy.asarray([5]))
    batch = data.Batch(full.source, full.target_inputs, full.targets, full.source_lengths)
    matches = np.asarray(Sort.alignment_matches(batch))[0]
    # Steps emit 5, 5, 6, 7, 7, then EOS: each 5 may be read at 1 or 3, each 7 at 0 or 2.
    held = [np.flatnonzero(row).tolist() for row in matches[:6]]
    assert held == [[1, 3], [1, 3], [4], [0, 2], [0, 2], []]


def test_sort_is_a_task_choice_of_every_config():
    assert "sort" in base.ARGUMENTS["task"]
    config = base.get_config("task=sort")
    assert config.task.name == "sort" and config.task.num_symbols == 50


@pytest.mark.slow
def test_a_sort_run_scores_alignment_against_the_sorted_positions(tmp_path):
    from attention_research.api import train
    config = base.get_config("task=sort,tiny")
    summary = train(config, tmp_path, progress=False)
    final = summary["members"][0]["final"]
    assert summary["task"] == "sort"
    assert 0.0 <= final["eval/align_acc/len1-4"] <= 1.0 and 0.0 <= final["eval/seq_acc/len1-4"]
    assert final["eval/align_acc/len1-4"] <= final["eval/align_acc_any/len1-4"] <= 1.0
    assert (tmp_path / "plots" / "attention.png").stat().st_size > 10_000
