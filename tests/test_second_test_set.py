"""experiments/lab/second_test_set.py: a record's members scored on a fresh held-out set."""

import json

import pytest

from attention_research.running import sweeps
from attention_research.running.sweep import run_sweep
from experiments.lab import second_test_set


def test_members_are_scored_once_on_the_second_set(tiny, tmp_path, capsys):
    run = tmp_path / "run"
    run_sweep(tiny(), sweeps.axis("config.seed", [0, 1]), run, progress=False)
    # The sweep's own folder stands in for its record: members/*/summary.json.
    assert len(second_test_set.score(run, run, eval_seed=7)) == 2
    saved = json.loads((run / second_test_set.FILE).read_text())
    assert saved["eval_seed"] == 7 and set(saved["members"]) == {"seed-0", "seed-1"}
    scores = second_test_set.read(run)["seed-0"]
    assert set(scores["seq_acc_by_length"]) == {str(n) for n in range(1, 7)}
    assert {"seq_acc", "token_acc", "code", "software", "device"} <= set(scores)
    assert second_test_set.score(run, run, eval_seed=7) == []  # nothing twice
    with pytest.raises(SystemExit, match="eval_seed 7, not 8: pass --eval_seed=7"):
        second_test_set.score(run, run, eval_seed=8)
    with pytest.raises(SystemExit, match="holds no recorded members"):
        second_test_set.main([str(tmp_path / "nowhere"), f"--workdir={run}", "--eval_seed=7"])
