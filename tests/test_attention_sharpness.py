"""experiments/lab/attention_sharpness.py: a translation member's attention entropy and
largest weight, teacher-forced on validation with its final parameters, recorded."""

import json
import math

import pytest

from attention_research.running import sweeps
from attention_research.running.sweep import run_sweep
from experiments.lab import attention_sharpness


def test_each_finished_member_is_measured_once(tmp_path):
    from attention_research.tasks.translation import datasets
    from tests.conftest import tiny_translation_config
    from tests.test_translation_data import _write_ding_file
    source = _write_ding_file(tmp_path / "de-en", count=400)
    corpus = datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"), data_path=str(source))
    run = tmp_path / "run"
    config = tiny_translation_config(corpus.data_dir.parents[1])
    run_sweep(config, sweeps.axis("config.seed", [0, 1]), run, progress=False)
    assert attention_sharpness.score(run, only="seed-1") == ["seed-1"]
    assert attention_sharpness.score(run) == ["seed-0"]  # seed 1's is not measured twice
    for seed in (0, 1):
        figures = json.loads((run / "members" / f"seed-{seed}" / "attention.json").read_text())
        assert figures["split"] == "validation" and figures["tokens"] > 0
        assert {"parameters", "code", "software", "device"} <= set(figures)
        # A distribution over at most the longest source's positions (and EOS) ...
        assert 0 < figures["entropy"] <= math.log(max(config.task.length_buckets) + 1)
        # ... whose largest weight is at least exp(-H) on every token, so on the mean too
        # (Jensen: the mean of exp(-H) is at least exp of the mean's minus).
        assert math.exp(-figures["entropy"]) <= figures["max_weight"] <= 1
        assert figures["nll_per_token"] > 0
    from experiments.lab import record
    assert attention_sharpness.FILE in record.MEMBER_FILES


def test_a_wrong_folder_is_one_line(tmp_path):
    with pytest.raises(SystemExit, match="holds no members"):
        attention_sharpness.main([str(tmp_path)])
