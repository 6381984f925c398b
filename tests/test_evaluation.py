"""The evaluations (training/evaluation/): one per kind of task, chosen by the task's
``evaluation``; the figures and sweep reports drawn from them (reports/figures.py),
handed in from above (attention_research.api) and never needed to score."""

import json

import numpy as np
import pytest

from attention_research import models
from attention_research.reports import figures
from attention_research.tasks import TASKS, get_task
from attention_research.training import evaluation
from attention_research.training.evaluation import make_evaluation


def test_every_task_has_an_evaluation_figures_and_a_sweep_report():
    for name in TASKS:
        task = TASKS[name]
        assert evaluation.evaluation_class(task).curve_evaluation in (True, False), name
        assert task.evaluation in figures.FIGURES and task.evaluation in figures.SWEEP_REPORTS


@pytest.mark.slow
def test_evaluation_in_chunks_equals_evaluation_in_one_call():
    """The held-out set scored in uneven chunks, each cut to its own longest example's
    widths, gives every metric, every length's accuracy and every heat-map example (on
    its own source and target steps) exactly as one call over the whole set does."""
    from attention_research.training.mesh import Placement, make_mesh
    from attention_research.training.state import create_train_state, make_optimizer
    from tests.conftest import tiny_config
    config = tiny_config(task="reverse")  # 12 held-out sequences, heat maps at 2 of them
    results = []
    # One call at the set's widths; chunks of 5, 5 and 2 (padded to 5 with repeats of
    # the shortest), of lengths up to 3, 5 and 6: three widths.
    for eval_batch_size in (512, 5):
        config.task.eval_batch_size = eval_batch_size
        task = get_task("reverse")(config)
        model = models.make_model(config, task.vocab_size, task.vocab_size)
        state = create_train_state(model, make_optimizer(config.train), task.example_batch(),
                                   [0, 1])
        evaluate = make_evaluation(task, model, Placement(make_mesh(config.mesh), 2))
        results.append(evaluate(state.params))
        # The seen lengths alone (train.curve_eval_every) score as they do in the whole.
        for seen, whole in zip(evaluate(state.params, seen_only=True), results[-1]):
            assert seen["metrics"] == pytest.approx(
                {k: v for k, v in whole["metrics"].items() if k.endswith("/len1-4")},
                rel=1e-6)
    assert len(results[0][0]["exact"]) == 12
    for whole, chunked in zip(*results):
        assert whole["metrics"] == pytest.approx(chunked["metrics"], rel=1e-6)
        assert whole["by_length"] == chunked["by_length"]
        np.testing.assert_array_equal(whole["exact"], chunked["exact"])
        # Past its chunk's width an example is zero-padded where the whole set's call
        # decoded on; its own steps (its length and EOS) and sources must agree.
        for row, index in enumerate(task.heatmap_indices):
            length = int(task.eval_lengths[index])
            np.testing.assert_array_equal(whole["examples"]["tokens"][row, :length + 1],
                                          chunked["examples"]["tokens"][row, :length + 1])
            np.testing.assert_allclose(
                whole["examples"]["weights"][row, :length + 1, :length],
                chunked["examples"]["weights"][row, :length + 1, :length], rtol=1e-6)


@pytest.mark.slow
def test_a_run_without_figures_scores_the_same_and_draws_nothing(tmp_path):
    """running.run.train with no figures handed in logs the same metrics, bit for bit,
    as attention_research.api.train, which draws the heat maps, the plots and
    TensorBoard's pictures."""
    from attention_research import api
    from attention_research.running import run
    from tests.conftest import tiny_config
    drawn, bare = tmp_path / "drawn", tmp_path / "bare"
    api.train(tiny_config(), drawn, progress=False)
    run.train(tiny_config(), bare, progress=False)
    read = lambda folder: [json.loads(line) for line in (folder / "metrics.jsonl").open()]
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time_s"
                           and not k.startswith("train/tokens_per_s")
                           and not k.startswith("train/gflop")} for r in rows]
    assert strip(read(drawn)) == strip(read(bare))
    assert {p.name for p in (drawn / "plots").glob("*.png")} >= {
        "attention.png", "seq_acc_by_length.png", "learning_curves.png"}
    assert not list((bare / "plots").glob("*.png")) if (bare / "plots").exists() else True
    assert list((drawn / "evaluations").glob("step_*")) and not (bare / "evaluations").exists()
