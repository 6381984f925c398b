"""experiments/lab/score_failed_members.py: a failed translation member scored with the
parameters it kept, written as a finished member's outputs and recorded with them."""

import json

import pytest

from attention_research.running import sweeps
from attention_research.running.sweep import run_sweep
from experiments.lab import score_failed_members


def test_a_failed_member_is_scored_once_with_its_kept_parameters(tmp_path):
    from attention_research.tasks.translation import datasets
    from tests.conftest import tiny_translation_config
    from tests.test_translation_data import _write_ding_file
    source = _write_ding_file(tmp_path / "de-en", count=400)
    corpus = datasets.load("ding_de_en", data_dir=str(tmp_path / "tfds"), data_path=str(source))
    run = tmp_path / "run"
    run_sweep(tiny_translation_config(corpus.data_dir.parents[1]),
              sweeps.axis("config.seed", [0, 1]), run, progress=False)
    # Seed 1 stands in for a member that failed after its last checkpoint: its summary
    # says so and its outputs are gone. Its kept parameters are the finished run's, so
    # scoring it again must give the run's own translations and BLEU.
    member = run / "members" / "seed-1"
    summary = json.loads((member / "summary.json").read_text())
    final = summary["members"][0]["final"]
    translations = {p.name: p.read_text() for p in (member / "translations").glob("test.*.txt")}
    for path in (member / "translations").glob("test.*.txt"):
        path.unlink()
    (member / "summary.json").write_text(json.dumps({**summary, "status": "failed"}))
    assert score_failed_members.score(run) == ["seed-1"]  # the finished seed 0 is not
    assert {p.name: p.read_text() for p in (member / "translations").glob("test.*.txt")} \
        == translations
    rescored = json.loads((member / score_failed_members.FILE).read_text())
    assert (rescored["bleu"], rescored["chrf"]) == (final["test/bleu"], final["test/chrf"])
    assert rescored["split"] == "test" and {"code", "software", "device"} <= set(rescored)
    assert score_failed_members.score(run) == []  # nothing twice
    # Recorded as any member: its rescoring beside its summary.
    from experiments.lab import record
    assert "rescored.json" in record.MEMBER_FILES


def test_a_wrong_folder_is_one_line(tmp_path):
    with pytest.raises(SystemExit, match="holds no members"):
        score_failed_members.main([str(tmp_path)])
