"""Sweeps: expansion, cohorts, members equal to solo runs, the report, resume."""

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attention_research.running import sweeps
from attention_research.training.config_checks import ConfigError
from attention_research.running.names import compared_setting
from attention_research.api import run_sweep, train, train_cohort
from attention_research.running.config_changes import ConfigMismatchError
from attention_research.running.sweep import cohort_checkpoints
from tests.conftest import tiny_config
from tests.test_configs import _flat


def test_axis_product_and_zip():
    seeds = sweeps.axis("config.seed", [0, 1])
    scores = sweeps.axis("config.model.attention.score", ["dot", "additive"])
    assert sweeps.product(scores, seeds) == [
        {"config.model.attention.score": "dot", "config.seed": 0},
        {"config.model.attention.score": "dot", "config.seed": 1},
        {"config.model.attention.score": "additive", "config.seed": 0},
        {"config.model.attention.score": "additive", "config.seed": 1}]
    assert sweeps.zip_axes(scores, seeds) == [
        {"config.model.attention.score": "dot", "config.seed": 0},
        {"config.model.attention.score": "additive", "config.seed": 1}]
    with pytest.raises(ValueError, match="one length"):
        sweeps.zip_axes(scores, sweeps.axis("config.seed", [0, 1, 2]))


def test_members_group_into_cohorts_by_structure(tmp_path):
    sweep = sweeps.product(sweeps.axis("config.model.attention.score", ["dot", "general"]),
                           sweeps.axis("config.seed", [0, 1]),
                           sweeps.axis("config.train.learning_rate", [1e-3, 3e-3]))
    members = sweeps.expand(tiny_config(), sweep, tmp_path)
    assert members[0].name == "score-dot_seed-0_learning_rate-0.001"
    assert members[0].workdir == tmp_path / "members" / members[0].name
    groups = sweeps.cohorts(members)
    assert [len(g) for g in groups] == [4, 4]
    assert {m.config.model.attention.score for m in groups[1]} == {"general"}
    assert len({sweeps.cohort_id(g) for g in groups}) == 2
    split = sweeps.cohorts(members, max_members=3)
    assert [len(g) for g in split] == [3, 1, 3, 1]
    assert len({sweeps.cohort_id(g) for g in split}) == 4


@pytest.mark.slow
def test_a_cohort_keeps_its_checkpoints_when_a_config_field_is_added(tmp_path):
    """A field added with the value older runs had (config_changes.ADDED_FIELDS), or a resource
    field, leaves a cohort's name as it was; a cohort begun under the older naming (a
    digest of the whole structure, read from its first member's saved config) is found."""
    members = sweeps.expand(tiny_config(), sweeps.axis("config.seed", [0, 1]), tmp_path)
    before = sweeps.cohort_id(members)
    for field, value in (("train.curve_eval_every", 0), ("task.eval_batch_size", 7)):
        config = tiny_config()
        section, name = field.split(".")
        config[section][name] = value
        assert sweeps.cohort_id(sweeps.expand(config, [{}], tmp_path)) == before
    config = tiny_config()
    config.train.curve_eval_every = config.train.steps_per_call
    assert sweeps.cohort_id(sweeps.expand(config, [{}], tmp_path)) != before
    assert cohort_checkpoints(tmp_path, members) == tmp_path / "cohorts" / before / "checkpoints"
    saved = json.loads(members[0].config.to_json())
    del saved["train"]["curve_eval_every"]  # a config written before the field existed
    members[0].workdir.mkdir(parents=True)
    (members[0].workdir / "config.json").write_text(json.dumps(saved))
    (legacy,) = [name for name in sweeps.legacy_cohort_ids(members, saved)
                 if name != sweeps.legacy_cohort_ids(members, None)[0]]
    (tmp_path / "cohorts" / legacy / "checkpoints").mkdir(parents=True)
    assert cohort_checkpoints(tmp_path, members) == tmp_path / "cohorts" / legacy / "checkpoints"


def test_bad_sweeps_are_refused_with_the_member_named(tmp_path):
    with pytest.raises(ConfigError, match="no field 'model.attention.colour'"):
        sweeps.expand(tiny_config(), [{"config.model.attention.colour": 1}], tmp_path)
    with pytest.raises(ConfigError, match=r"sweep member 1 .*valid choices"):
        sweeps.expand(tiny_config(), sweeps.axis("config.model.attention.score",
                                                 ["dot", "no_such_score_probe"]), tmp_path)
    with pytest.raises(ConfigError, match="same overrides"):
        sweeps.expand(tiny_config(), [{"config.seed": 1}, {"config.seed": 1}], tmp_path)


def test_member_names_keep_every_value_exactly(tmp_path):
    """Issue 37: a learning rate of 1e35 was named 'learning_rate-1e-35', and a sweep
    over [1e-20, 1e20] was refused as two members with the same overrides."""
    name = lambda value: sweeps.member_name({"config.train.learning_rate": value})
    assert name(1e35) == "learning_rate-1e35" and name(1e-35) == "learning_rate-1e-35"
    assert name(0.1 + 0.2) == "learning_rate-0.30000000000000004"  # every digit
    members = sweeps.expand(tiny_config(), sweeps.axis("config.train.learning_rate",
                                                       [1e-20, 1e20]), tmp_path)
    assert [m.name for m in members] == ["learning_rate-1e-20", "learning_rate-1e20"]
    # Settings that differ only in characters a folder name cannot hold still get two
    # names (each with a digest of its overrides); equal settings are still refused.
    members = sweeps.expand(tiny_config(), sweeps.axis("config.name", ["a b", "a-b"]),
                            tmp_path)
    first, second = (m.name for m in members)
    assert first != second and first.startswith("config-a-b_") and second.startswith("config-a-b_")
    assert [m.config.name for m in members] == ["a b", "a-b"]


def _curve(workdir):
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    return [(r["step"], r.get("train/loss"), r.get("eval/loss/len1-4")) for r in records]


@pytest.mark.slow
def test_a_member_trained_in_a_cohort_equals_training_it_alone(tmp_path):
    """vmap over members changes nothing but the speed: same seed and learning rate,
    same losses to float tolerance, same accuracies."""
    configs = []
    for seed, learning_rate in [(3, 1e-2), (4, 2e-3)]:
        config = tiny_config()
        config.seed, config.train.learning_rate = seed, learning_rate
        configs.append(config)
    together = train_cohort(configs, [tmp_path / "a", tmp_path / "b"], tmp_path / "ckpt",
                            progress=False)
    for config, name, summary in zip(configs, "ab", together):
        alone = train(config, tmp_path / f"alone_{name}", progress=False)
        got, expected = _curve(tmp_path / name), _curve(tmp_path / f"alone_{name}")
        assert [g[0] for g in got] == [e[0] for e in expected]
        # None (a line without that metric) becomes NaN, which equals NaN here.
        np.testing.assert_allclose(np.array([g[1:] for g in got], float),
                                   np.array([e[1:] for e in expected], float), rtol=2e-4)
        for key, value in alone["members"][0]["final"].items():
            assert summary["members"][0]["final"][key] == pytest.approx(value, rel=2e-4, abs=1e-6)
    # The two members really differ: different seeds and learning rates.
    assert _curve(tmp_path / "a") != _curve(tmp_path / "b")


class Interrupted(Exception):
    pass


@pytest.mark.slow
def test_a_sweep_reports_and_resumes_without_retraining_finished_members(tmp_path):
    base = tiny_config()
    sweep = sweeps.product(sweeps.axis("config.model.attention.score", ["dot", "additive"]),
                           sweeps.axis("config.seed", [0, 1]))
    calls = []

    def interrupt_second_cohort(step):
        calls.append(step)
        if len(calls) == 6:  # cohort 1 runs 4 calls; stop cohort 2 after its checkpoint
            raise Interrupted()

    with pytest.raises(Interrupted):
        run_sweep(base, sweep, tmp_path, progress=False, hooks=[interrupt_second_cohort])
    first_cohort_summary = (tmp_path / "members" / "score-dot_seed-0" / "summary.json")
    written = first_cohort_summary.stat().st_mtime_ns
    calls.clear()
    summaries = run_sweep(base, sweep, tmp_path, progress=False, hooks=[calls.append])
    assert calls == [15, 20]  # only the rest of cohort 2; cohort 1 was not retrained
    assert first_cohort_summary.stat().st_mtime_ns == written
    assert [s["name"] for s in summaries] == ["tiny-additive"] * 4  # name is the base's
    assert [s["members"][0]["seed"] for s in summaries] == [0, 1, 0, 1]

    # The resumed cohort ends as an uninterrupted one would.
    alone_config = tiny_config()
    alone_config.model.attention.score, alone_config.seed = "additive", 1
    alone = train(alone_config, tmp_path / "alone", progress=False)
    resumed = summaries[3]["members"][0]["final"]
    for key, value in alone["members"][0]["final"].items():
        assert resumed[key] == pytest.approx(value, rel=2e-4, abs=1e-6)

    table = (tmp_path / "summary.md").read_text()
    assert "| score-dot | 2 |" in table and "| score-additive | 2 |" in table
    # Issue 39: the phases summed over the two cohorts, each counted once.
    assert "## Where the time went" in table and "over 2 of 2 cohort(s)" in table
    assert "| training |" in table and "| train_compile |" in table
    rows = (tmp_path / "summary.csv").read_text().splitlines()
    assert len(rows) == 5 and rows[0].startswith("member,setting,seed")
    for plot in ("seq_acc_by_length.png", "learning_curves.png", "token_acc_by_position.png"):
        assert (tmp_path / "plots" / plot).stat().st_size > 10_000
    # Issue 38: each member's settings are TensorBoard's hparams, beside its final metrics.
    from tests.conftest import tensorboard_events
    member = tmp_path / "members" / "score-additive_seed-1"
    assert json.loads((member / "hparams.json").read_text()) == {"score": "additive", "seed": 1}
    hparams = {tag: value.SerializeToString() for _, tag, _, value
               in tensorboard_events(member) if tag.startswith("_hparams_/")}
    assert sorted(hparams) == ["_hparams_/experiment", "_hparams_/session_end_info",
                               "_hparams_/session_start_info"]
    assert b"eval/seq_acc/len1-4" in hparams["_hparams_/experiment"]  # a metric column
    assert b"additive" in hparams["_hparams_/session_start_info"]  # its setting

    # Issue 72: with every member's config.json deleted, a rerun under another model
    # said "finished before, not retrained" and rewrote the report under the new
    # command. Each cohort's checkpoint now checks its finished members.
    for saved in (tmp_path / "members").glob("*/config.json"):
        saved.unlink()
    other = tiny_config()
    other.model.hidden_size = 16
    report = (tmp_path / "summary.md").read_text()
    with pytest.raises(ConfigMismatchError, match=r"config.json is missing and no checkpoint "
                                                  r"in .*cohorts/cohort-000-.* records"):
        run_sweep(other, sweep, tmp_path, progress=False)  # its cohort is another's id
    assert (tmp_path / "summary.md").read_text() == report
    assert run_sweep(base, sweep, tmp_path, progress=False)[3]["members"][0]["final"] == \
        summaries[3]["members"][0]["final"]


def test_the_report_reads_the_seen_accuracy_at_a_short_budget_and_tests_it():
    """With a curve grid, the table adds the seen-length accuracy at a third of the run
    (the short budget of compare_attention: step 500 of 1,500), and the separation
    table tests it: here it separates the two settings the final accuracy does not."""
    from attention_research.reports import tables
    config = tiny_config()
    config.train.num_steps, config.train.curve_eval_every = 1500, 50
    assert tables.early_budget(config) == 500
    config.train.curve_eval_every = 0
    assert tables.early_budget(config) is None
    rows = [{"setting": setting, "task": "copy", "seed": seed, "status": "finished",
             "steps": 1500, "step_to_0.99": None, "seq_acc/len1-4": 1.0,
             "seq_acc/len5-6": 0.1, "seq_acc/len1-4@step500": early + 0.01 * seed}
            for setting, early in (("score-fast", 0.9), ("score-slow", 0.5))
            for seed in range(5)]
    table = tables.markdown(rows, ["len1-4", "len5-6"], 1.0, 250, 50)
    # With the members' config, the verdicts name settings as a person reads them.
    readable = tables.markdown(rows, ["len1-4", "len5-6"], 1.0, 250, 50, config=config)
    assert "**fast** (separated from slow by +0.400" in readable
    assert "| seq acc 1-4 at step 500 |" in table.splitlines()[2]
    assert "| score-fast | 5 | 0.920 ± 0.020 |" in table
    assert ("| copy | seq acc 1-4 at step 500 | **score-fast** (separated from "
            "score-slow by +0.400 [+0.377, +0.423]; p < 0.001) |") in table
    assert "| copy | seq acc 1-4 | none: the best mean, score-fast (1.000), is not " in table
    assert "area under" not in table.split("separates")[1]  # no member has the metric


@pytest.mark.slow
def test_parts_of_a_sweep_train_disjoint_cohorts_and_the_last_writes_the_report(tmp_path):
    """Part 2 of 2 trains cohort 2; ``only`` then trains the one left by name."""
    base = tiny_config()
    sweep = sweeps.axis("config.model.attention.score", ["dot", "additive"])
    with pytest.raises(ConfigError, match="in no member's name; the members are: score-dot, "
                                          "score-additive"):
        run_sweep(base, sweep, tmp_path, progress=False, only="score-cosine")
    calls = []
    assert run_sweep(base, sweep, tmp_path, progress=False, part=(2, 2),
                     hooks=[calls.append]) is None  # cohort 1 (dot) is part 1's
    assert (tmp_path / "members" / "score-additive" / "summary.json").exists()
    assert not (tmp_path / "members" / "score-dot").exists()
    assert not (tmp_path / "summary.md").exists() and len(calls) == 4
    # The members --only names are all finished: their own report, while the sweep's waits.
    assert run_sweep(base, sweep, tmp_path, progress=False, only="score-additive") is None
    only = (tmp_path / "only" / "score-additive" / "summary.md").read_text()
    assert "| score-additive | 1 |" in only and "score-dot" not in only
    assert not (tmp_path / "summary.md").exists() and len(calls) == 4
    calls.clear()
    summaries = run_sweep(base, sweep, tmp_path, progress=False, only="score-dot",
                          hooks=[calls.append])
    assert len(calls) == 4  # dot only; additive was part 2's and finished
    assert [s["members"][0]["seed"] for s in summaries] == [0, 0]
    assert "| score-additive | 1 |" in (tmp_path / "summary.md").read_text()
    with pytest.raises(ConfigError, match="part 3/2"):
        run_sweep(base, sweep, tmp_path, progress=False, part=(3, 2))


@pytest.mark.slow
def test_a_member_another_sweep_trained_is_adopted_not_retrained(tmp_path):
    """``adopt_from`` (running/adopt.py): a member whose config differs from a finished
    member of another sweep only in its name and analysis fields starts from that
    member's last checkpoint and logs, trains nothing, and ends with the same
    parameters (the best kept ones here) and final metrics; a member the other sweep
    lacks trains. Its parameters may be kept by another metric where the donor's log
    shows that metric keeps the same step. Nothing in the other sweep's directory is
    written."""
    from attention_research.running.adopt import kept
    from attention_research.running.sweep import plan

    def base(name, implicit, best_metric):
        config = tiny_config()
        config.name, config.max_cohort_members = name, 1
        config.train.best_metric = best_metric  # the kept parameters ride along
        config.analysis.implicit = implicit
        return config

    donor_dir, workdir = tmp_path / "donor", tmp_path / "sweep"
    run_sweep(base("donor", "", "eval/seq_acc/len1-4"), sweeps.axis("config.seed", [1]),
              donor_dir, progress=False)
    # A donor begun before a field was added: its config.json lacks it, its checkpoint
    # (saved later) holds it at the value that keeps the old behaviour.
    donor_config = donor_dir / "members" / "seed-1" / "config.json"
    saved = json.loads(donor_config.read_text())
    del saved["train"]["curve_eval_every"]  # config_changes.ADDED_FIELDS: 0
    donor_config.write_text(json.dumps(saved))
    before = {p: p.stat().st_mtime_ns for p in donor_dir.rglob("*") if p.is_file()}
    logged = [json.loads(line) for line in
              (donor_dir / "members" / "seed-1" / "metrics.jsonl").read_text().splitlines()]
    # The test's premise, from this tiny run's log: token accuracy keeps the step
    # sequence accuracy kept (10: both at their best first there), the loss another.
    assert kept(logged, "eval/seq_acc/len1-4")[0] == kept(logged, "eval/token_acc/len1-4")[0] \
        == 10 != kept(logged, "eval/loss/len1-4")[0], "pick metrics that agree here"
    by_loss = plan(base("recipient", "", "eval/loss/len1-4"), sweeps.axis("config.seed", [1]),
                   workdir, adopt_from=[donor_dir])
    assert "to adopt" not in by_loss and ", to train:" in by_loss
    # The recipient adds an analysis of the final parameters (its own work).
    recipient = base("recipient", "gradient", "eval/token_acc/len1-4")
    sweep = sweeps.axis("config.seed", [1, 2])
    preview = plan(recipient, sweep, workdir, adopt_from=[donor_dir])
    assert preview.count("to adopt from") == 1 and preview.count(", to train:") == 1
    assert "members/seed-1 (its step 20" in preview
    assert "would train 1 of them in 1 cohort(s) and adopt 1 from" in preview
    calls = []
    summaries = run_sweep(recipient, sweep, workdir, progress=False, hooks=[calls.append],
                          adopt_from=[donor_dir])
    assert calls == [5, 10, 15, 20]  # seed 2 alone trained; seed 1 was adopted
    adopted, trained = summaries
    assert adopted["adopted_from"]["member"] == str((donor_dir / "members" / "seed-1").absolute())
    assert adopted["adopted_from"]["step"] == 20 and "adopted_from" not in trained
    assert adopted["adopted_from"]["same_final"] and adopted["adopted_from"]["name"] == "donor"
    assert adopted["name"] == "recipient" and adopted["steps"] == 20
    donor = json.loads((donor_dir / "members" / "seed-1" / "summary.json").read_text())
    final, donor_final = adopted["members"][0]["final"], donor["members"][0]["final"]
    analysed = set(final) - set(donor_final)
    assert analysed and all(k.startswith(("eval/implicit", "eval/overlap_"))
                            or "ablation_drop" in k for k in analysed)
    assert {k: final[k] for k in donor_final} == donor_final
    assert donor["members"][0]["selected"]["step"] == 10
    # The kept value as BestParameters stores it (float32), and the member equals one
    # trained from scratch under its own config.
    assert adopted["members"][0]["selected"] == {
        "metric": "eval/token_acc/len1-4", "step": 10,
        "value": float(np.float32(kept(logged, "eval/token_acc/len1-4")[1]))}
    alone_config = base("recipient", "gradient", "eval/token_acc/len1-4")
    alone_config.seed = 1
    alone = train(alone_config, tmp_path / "alone", progress=False)
    assert alone["members"][0]["final"] == final
    assert alone["members"][0]["selected"] == adopted["members"][0]["selected"]
    assert "adopted_from" not in alone
    # An adoption cut short before its checkpoint leaves its mark; a run that then
    # trains from step 0 drops it, so its summary claims no adoption.
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "adopted.json").write_text((workdir / "members" / "seed-1" / "adopted.json")
                                        .read_text())
    alone_config.train.num_steps = 10
    assert "adopted_from" not in train(alone_config, stale, progress=False)
    assert not (stale / "adopted.json").exists()
    train_rows = lambda folder: [  # noqa: E731
        {k: v for k, v in r.items() if k != "time_s"} for r in map(
            json.loads, (folder / "metrics.jsonl").read_text().splitlines())
        if "train/loss" in r]
    assert train_rows(workdir / "members" / "seed-1") == train_rows(donor_dir / "members" / "seed-1")
    rows = (workdir / "members" / "seed-1" / "metrics.jsonl").read_text().splitlines()
    donor_rows = (donor_dir / "members" / "seed-1" / "metrics.jsonl").read_text().splitlines()
    assert rows[:len(donor_rows)] == donor_rows  # its history, then only what is its own
    assert [set(json.loads(r)) - {"step", "member", "time_s"}
            for r in rows[len(donor_rows):]] == [analysed]
    saved = json.loads((workdir / "members" / "seed-1" / "config.json").read_text())
    assert saved["name"] == "recipient" and saved["analysis"]["implicit"] == "gradient"
    assert saved["train"]["best_metric"] == "eval/token_acc/len1-4"
    assert {p: p.stat().st_mtime_ns for p in donor_dir.rglob("*") if p.is_file()} == before
    # Finished: a rerun retrains and re-adopts nothing.
    calls.clear()
    run_sweep(recipient, sweep, workdir, progress=False, hooks=[calls.append],
              adopt_from=[donor_dir])
    assert calls == []
    # Not adopted: another evaluation batch (it bounds greedy decoding), or a donor
    # resumed under changed fields (its config history).
    other = base("recipient", "gradient", "eval/token_acc/len1-4")
    other.task.eval_batch_size += 1
    assert "to adopt" not in plan(other, sweeps.axis("config.seed", [1]), tmp_path / "b",
                                  adopt_from=[donor_dir])
    (donor_dir / "members" / "seed-1" / "config_history.json").write_text("[]")
    assert "to adopt" not in plan(recipient, sweeps.axis("config.seed", [1]), tmp_path / "c",
                                  adopt_from=[donor_dir])


def test_adoption_ignores_only_what_cannot_change_the_training():
    """adopt.training_differences: the name, analysis fields, task.also_translate and the
    tuned length penalty's search are read after training, and a Transformer ignores the
    RNN's fields; an RNN does not. Beam search's own length penalty is not ignored."""
    from attention_research.running.adopt import training_differences
    from configs import base
    for family, ignored in (("transformer", []), ("rnn", ["model.decoder_style"])):
        config = base.get_config("task=translation,tiny", family=family)
        saved = json.loads(config.to_json())
        saved.update(name="elsewhere")
        saved["analysis"]["implicit"] = "gradient"
        saved["task"]["also_translate"] = ["test2017"]
        saved["task"].update(length_penalty_search=[0.0, 1.0], length_penalty_min_ratio=1.0,
                             length_penalty_select="smallest", length_penalty_long_words=9)
        saved["model"]["decoder_style"] = "bahdanau" if config.model.decoder_style == "luong" \
            else "luong"
        assert [d[0] for d in training_differences(saved, config)] == ignored
        saved["train"]["learning_rate"] = 0.5
        saved["task"]["length_penalty"] = config.task.length_penalty + 0.5
        assert {"train.learning_rate", "task.length_penalty"} <= {
            d[0] for d in training_differences(saved, config)}


def test_every_experiment_sweep_expands_into_valid_cohorts(tmp_path):
    """The sweeps under experiments/ are refused before anything trains if they are wrong;
    every experiment is a sweep file that launch.py runs."""
    import importlib
    from pathlib import Path

    from attention_research.running import config_files
    root = Path(__file__).resolve().parents[1]
    expected = {"compare_attention": (360, 72), "length_generalization": (180, 36),
                "fixed_vector": (12, 4),
                "score_scaling": (40, 8), "benchmark_sweep": (8, 1),
                "formulations_check": (90, 18), "local_attention": (9, 3),
                "hard_vs_soft": (130, 26), "transformer_scores": (15, 3),
                "translation_de_en": (8, 8), "translation_recipe": (10, 5),
                "luong_table4": (24, 8), "luong_location_multi30k": (11, 2),
                "explicit_vs_implicit": (198, 66),
                "pointer_generator": (25, 5), "multi30k_recipe": (12, 6),
                "default_recipe": (30, 2), "benchmark": (1, 1), "translation_length": (12, 4),
                "multi30k_goals": (6, 2), "luong_table6": (60, 5), "relative_positions": (80, 8),
                "hard_vs_soft_converged": (30, 3), "fixed_vector_capacity": (20, 4),
                "dot_vs_additive": (6, 2), "hard_vs_soft_sort50": (50, 5),
                "hard_vs_soft_multi30k": (18, 3)}
    # Time a train step, an evaluation, the implicit analysis, predicting; run a peer
    # toolkit; compare device counts: no sweep.
    tools = {"step_speed", "eval_speed", "joeynmt_peer", "implicit_cost", "device_parity",
             "predict_speed"}
    assert sorted(expected) == sorted(p.stem for p in (root / "experiments").glob("*.py")
                                      if p.stem not in tools)
    for name, (num_members, num_cohorts) in expected.items():
        module = config_files.load(root / "experiments" / f"{name}.py")
        members = sweeps.expand(module.get_config(), module.get_sweep(), tmp_path / name)
        assert (len(members), len(sweeps.cohorts(members))) == (num_members, num_cohorts), name
        # Every experiment takes the tiny argument (a sweep through launch.py runs in
        # test_configs); its tiny members validate too, and are a smoke run's handful
        # (issue 38: at most SMOKE_MEMBERS; issue 71: two seeds a setting where the sweep
        # has them, so that its report shows intervals; at tiny sizes).
        baseline = module.get_config("tiny").baseline  # validated by expand, listed first
        tiny = sweeps.expand(module.get_config("tiny"),
                             sweeps.smoke(module.get_sweep(), baseline=baseline),
                             tmp_path / "t" / name)
        assert not baseline or compared_setting(tiny[0].name) == baseline, name
        settings = {m.name.rsplit("_seed-", 1)[0] for m in tiny}
        assert 1 <= len(tiny) <= sweeps.SMOKE_MEMBERS, name
        seeds = {m.name.rsplit("_seed-", 1)[0]: [] for m in tiny}
        for m in tiny:
            seeds[m.name.rsplit("_seed-", 1)[0]].append(m.config.seed)
        if len(settings) > 1:  # each setting its first seeds, at most SMOKE_SEEDS
            assert all(len(s) <= sweeps.SMOKE_SEEDS for s in seeds.values()), name
            many = [s for s in seeds if sum(m.name.startswith(s + "_seed-") for m in members
                                            if m.config.task.name == tiny[0].config.task.name)
                    >= sweeps.SMOKE_SEEDS]
            assert all(len(seeds[s]) == sweeps.SMOKE_SEEDS for s in many), name
        assert all(m.config.train.num_steps <= 20 for m in tiny), name
        assert len({m.config.task.name for m in tiny}) == 1, name  # one task
        # ... at the tiny config's sizes, whatever the sweep's settings set.
        sizes = [field.removeprefix("config.") for field in sweeps.SMOKE_TAKES_FROM_TINY]
        shrunk = _flat(module.get_config("tiny"))
        for member in tiny:
            grown = {f: v for f, v in _flat(member.config).items()
                     if f in sizes and v != shrunk[f]}
            assert not grown, f"{name}: smoke member {member.name} is not tiny: {grown}"
    # The goal runs time each model alone: one member a cohort.
    module = importlib.import_module("experiments.multi30k_goals")
    goals = sweeps.expand(module.get_config(), module.get_sweep(), tmp_path / "goals")
    assert len(sweeps.cohorts(goals, module.get_config().max_cohort_members)) == 6
    # A sweep file may take an argument: luong_table4 on Multi30k, and explicit_vs_implicit's
    # translation sweep.
    module = importlib.import_module("experiments.luong_table4")
    members = sweeps.expand(module.get_config("corpus=multi30k"),
                            module.get_sweep("corpus=multi30k"), tmp_path / "lt4")
    assert (len(members), len(sweeps.cohorts(members))) == (24, 8)
    assert members[0].config.task.dataset == "multi30k"
    assert members[0].config.name == "luong_table4_multi30k"
    module = importlib.import_module("experiments.explicit_vs_implicit")
    for arg, count, dataset in (("task=translation", (9, 3), "ding_de_en"),
                                ("task=translation,tiny", (9, 3), "ding_de_en"),
                                ("task=translation,replicate", (3, 1), "ding_de_en"),
                                ("task=translation,corpus=multi30k", (9, 3), "multi30k")):
        members = sweeps.expand(module.get_config(arg), module.get_sweep(arg), tmp_path / arg)
        assert (len(members), len(sweeps.cohorts(members))) == count
        assert {m.config.task.name for m in members} == {"translation"}
        assert {m.config.task.dataset for m in members} == {dataset}
    assert members[0].config.name == "explicit_vs_implicit_translation_multi30k"
    assert {m.config.model.family for m in members} == {"rnn", "transformer"}
    with pytest.raises(ValueError, match="ask for task=translation,corpus=multi30k"):
        module.get_config("corpus=multi30k")
    # Its replication: the same three settings on fresh seeds, under its own name.
    arg = "task=translation,corpus=multi30k,replicate"
    members = sweeps.expand(module.get_config(arg), module.get_sweep(arg), tmp_path / arg)
    assert members[0].config.name == "explicit_vs_implicit_translation_multi30k_replication"
    from experiments.lab.findings import REPLICATION_SEEDS
    assert {m.config.seed for m in members} == set(REPLICATION_SEEDS)
    assert {m.name.rsplit("_seed-", 1)[0] for m in members} == {
        sweeps.member_name(s) for s in module._multi30k_formulations()}
    # translation_length's replication trains all four settings its two rules read.
    module = importlib.import_module("experiments.translation_length")
    members = sweeps.expand(module.get_config("replicate"), module.get_sweep("replicate"),
                            tmp_path / "tl")
    assert (len(members), len(sweeps.cohorts(members))) == (12, 4)
    assert {m.config.seed for m in members} == {100, 101, 102}


_INIT_EIGHT_DEFAULT_MEMBERS = """
import jax
from attention_research import data, models
from attention_research.tasks import TASKS
from attention_research.training.state import create_train_state, make_optimizer
from configs import additive
config = additive.get_config()
vocab = config.task.num_symbols + data.NUM_SPECIAL
model = models.make_model(config, vocab, vocab)
example = TASKS["reverse"].random_batch(jax.random.PRNGKey(0), 1, 8, 1, 8)
state = create_train_state(model, make_optimizer(config.train), example, list(range(8)))
jax.block_until_ready(state)
print("initialised", jax.tree.leaves(state.params)[0].shape[0])
"""


@pytest.mark.slow
def test_a_cohort_of_eight_default_size_members_initialises(tmp_path):
    """Regression: vmapping the orthogonal initialiser over 8 members made one batched
    LAPACK QR that deadlocked jaxlib on a 2-core CPU; a subprocess turns a hang into
    a failure."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _INIT_EIGHT_DEFAULT_MEMBERS], cwd=root,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "initialised 8" in done.stdout


def test_a_record_of_multi30k_keeps_no_text_of_the_corpus(tmp_path):
    """Multi30k's licence: its files are never committed. A record keeps the member's
    hypotheses and each sentence's BLEU statistics (which give back every BLEU the
    findings compute), not the sources and references, nor the samples' texts."""
    import json

    from experiments.lab.record import record
    from attention_research.tasks.translation import metrics
    run, results = tmp_path / "run", tmp_path / "results"
    member = run / "members" / "seed-0"
    (member / "translations").mkdir(parents=True)
    (member / "config.json").write_text(json.dumps({"task": {"dataset": "multi30k"}}))
    (member / "summary.json").write_text(json.dumps({"status": "finished", "members": [
        {"samples": [{"source": "ein hund", "reference": "a dog", "translation": "a dog"}]}]}))
    texts = {"source": ["ein hund läuft", "zwei katzen"], "reference": ["a dog runs", "two cats"],
             "hypothesis": ["a dog runs", "two dogs"]}
    for kind, lines in texts.items():
        (member / "translations" / f"test.{kind}.txt").write_text("\n".join(lines) + "\n")
    assert record(run, results) == ["seed-0"]
    kept = results / "members" / "seed-0"
    assert sorted(p.name for p in (kept / "translations").iterdir()) == [
        "test.hypothesis.txt", "test.sentences.tsv"]
    assert json.loads((kept / "summary.json").read_text())["members"][0]["samples"] == [
        {"translation": "a dog"}]
    words, statistics = metrics.read_sentence_table(kept / "translations" / "test.sentences.tsv")
    assert list(words) == [3, 2]
    assert metrics.bleu_from_statistics(statistics.sum(0)) == pytest.approx(
        metrics.corpus_scores(texts["hypothesis"], texts["reference"])["bleu"])
    # A fresh machine resumes the sweep with the recorded members copied into its work
    # directory (they are not retrained), then records again: their tables are kept.
    rerun = tmp_path / "rerun"
    shutil.copytree(results / "members", rerun / "members")
    assert record(rerun, tmp_path / "again") == ["seed-0"]
    assert (tmp_path / "again" / "members" / "seed-0" / "translations" / "test.sentences.tsv"
            ).read_text() == (kept / "translations" / "test.sentences.tsv").read_text()


def test_a_record_without_a_readme_gets_one_made_from_its_files(tmp_path):
    """Issue 38: every record says what it is. The README comes from the record's own
    files (here its commands and members) and is never written over."""
    from experiments.lab.record import GENERATED, write_readme
    results = tmp_path / "experiments" / "results" / "some_sweep_replication"
    (results / "members" / "m_seed-100").mkdir(parents=True)
    (results / "members" / "m_seed-100" / "summary.json").write_text("{}")
    (results / "commands.txt").write_text("python launch.py --config=x.py:replicate\n")
    assert write_readme(results)
    text = (results / "README.md").read_text()
    assert "python launch.py --config=x.py:replicate" in text and GENERATED in text
    assert "The replication of [`some_sweep`]" in text and "1 finished member(s)" in text
    (results / "members" / "m_seed-101").mkdir()  # the record grows: so does its README
    (results / "members" / "m_seed-101" / "summary.json").write_text("{}")
    assert write_readme(results) and "2 finished member(s)" in (results / "README.md").read_text()
    (results / "README.md").write_text("notes of my own\n")
    assert not write_readme(results)
    assert (results / "README.md").read_text() == "notes of my own\n"


@pytest.mark.slow
def test_record_keeps_the_recorded_commands_of_a_sweep_resumed_elsewhere(tmp_path):
    """commands.txt gains the work directory's new lines: a work directory that extends
    the record, or one made afresh on another machine (it holds only its own launches),
    whose lines follow the record's, which are not lost."""
    from experiments.lab.record import record
    run, results = tmp_path / "run", tmp_path / "results"
    run.mkdir()
    (run / "commands.txt").write_text("a\nb\n")
    # With no finished member, --record writes nothing, not even the folder (issue 37).
    assert record(run, results) == [] and not results.exists()
    (run / "members" / "m").mkdir(parents=True)
    (run / "members" / "m" / "summary.json").write_text('{"status": "finished"}')
    record(run, results)
    (run / "commands.txt").write_text("a\nb\nc\n")  # the same work directory, resumed
    record(run, results)
    assert (results / "commands.txt").read_text() == "a\nb\nc\n"
    (run / "commands.txt").write_text("e\nf\n")  # a fresh work directory elsewhere
    record(run, results)
    assert (results / "commands.txt").read_text() == "a\nb\nc\ne\nf\n"
    (run / "commands.txt").write_text("e\nf\ng\n")  # recorded again as it goes on
    assert record(run, results) == ["m"]
    assert (results / "commands.txt").read_text() == "a\nb\nc\ne\nf\ng\n"


def test_a_command_refused_by_a_cohort_in_training_logs_nothing(tmp_path):
    """A cohort another run holds refuses the command before its line reaches
    commands.txt, which lists the commands that ran the sweep."""
    from attention_research.running.lock import DirectoryLock, WorkDirLockedError
    base = tiny_config()
    sweep = sweeps.axis("config.model.attention.score", ["dot", "additive"])
    members = sweeps.expand(base, sweep, tmp_path)
    dot, _ = sweeps.cohorts(members, base.max_cohort_members)
    with DirectoryLock(cohort_checkpoints(tmp_path, dot).parent):  # "dot" trains elsewhere
        with pytest.raises(WorkDirLockedError, match="in use by another run"):
            run_sweep(base, sweep, tmp_path, progress=False, only="score-dot", command="x")
        assert not (tmp_path / "commands.txt").exists()
        assert not (tmp_path / "members" / "score-dot").exists()  # nothing written
    # The probe held nothing: the lock is free once its holder lets it go.
    DirectoryLock(cohort_checkpoints(tmp_path, dot).parent).check_free()


@pytest.mark.slow
def test_a_record_of_two_work_directories_reports_every_member(tmp_path):
    """A record filled from two work directories (a sweep, then a gate's seeds trained
    apart): the second's finished report does not replace the first's rows; the record's
    report lists every recorded member."""
    from experiments.lab.record import record
    results = tmp_path / "results"
    run_sweep(tiny_config(), sweeps.axis("config.seed", [0, 1]), tmp_path / "first",
              progress=False)
    record(tmp_path / "first", results)
    run_sweep(tiny_config(), sweeps.axis("config.seed", [2]), tmp_path / "apart",
              progress=False)
    assert record(tmp_path / "apart", results) == ["seed-2"]
    with open(results / "summary.csv", newline="") as table:
        assert sorted(row["member"] for row in csv.DictReader(table)) == [
            "seed-0", "seed-1", "seed-2"]
    assert "3 members" in (results / "summary.md").read_text()


@pytest.mark.slow
def test_a_sweep_keeps_its_command_and_its_record_resumes_without_retraining(tmp_path):
    """commands.txt holds the command line; record() copies the report and finished
    members, deleting nothing; members copied back into a work directory are not
    retrained."""
    import shutil
    from experiments.lab.record import record
    sweep = sweeps.axis("config.seed", [0, 1])
    summaries = run_sweep(tiny_config(), sweep, tmp_path / "run", progress=False,
                          command="python launch.py --config=experiments/x.py")
    assert (tmp_path / "run" / "commands.txt").read_text() == (
        "python launch.py --config=experiments/x.py\n")
    results = tmp_path / "results"
    (results / "plots").mkdir(parents=True)
    # Of the figures, a record keeps those a page shows (experiments/lab/pages.py).
    notes = ("notes by hand: plots/learning_curves.png, plots/attention_base.png, "
             "only/seed-0/plots/a.png and only/seed-1/plots/learning_curves.png")
    (results / "README.md").write_text(notes)
    (results / "plots" / "older.png").write_bytes(b"kept")
    (tmp_path / "run" / "only" / "seed-0" / "plots").mkdir(parents=True)  # an --only report
    (tmp_path / "run" / "only" / "seed-0" / "plots" / "a.png").write_bytes(b"png")
    (tmp_path / "run" / "only" / "seed-0" / "plots" / "b.png").write_bytes(b"png")
    assert record(tmp_path / "run", results) == ["seed-0", "seed-1"]
    assert (results / "only" / "seed-0" / "plots" / "a.png").read_bytes() == b"png"
    assert (results / "README.md").read_text() == notes
    assert (results / "plots" / "older.png").read_bytes() == b"kept"
    for name in ("summary.md", "summary.csv", "commands.txt", "plots/learning_curves.png",
                 "plots/attention_base.png", "members/seed-1/summary.json",
                 "members/seed-1/metrics.jsonl", "members/seed-1/config.json"):
        assert (results / name).is_file(), name
    # The figures no page shows stay in the work directory.
    left = {p.name for p in (tmp_path / "run" / "plots").glob("*.png")} - {"learning_curves.png"}
    assert left and not any((results / "plots" / name).exists() for name in left)
    assert not (results / "only" / "seed-0" / "plots" / "b.png").exists()
    assert not list(results.rglob("checkpoints"))  # small files only
    resumed = tmp_path / "resumed"
    shutil.copytree(results / "members", resumed / "members")
    calls = []
    again = run_sweep(tiny_config(), sweep, resumed, progress=False, hooks=[calls.append])
    assert calls == [] and again == json.loads(json.dumps(summaries))  # as read back
    table = lambda workdir: (workdir / "summary.md").read_text().split("\n", 1)[1]  # no title
    assert table(resumed) == table(tmp_path / "run")
    # A recorded member of another config (the sweep changed since) is refused, named,
    # before anything trains, and kept as it is.
    from attention_research.running.config_changes import ConfigMismatchError
    changed = tiny_config()
    changed.train.curve_eval_every = 5
    with pytest.raises(ConfigMismatchError, match=r"(?s)train.curve_eval_every: was 0, now "
                                                  r"5.*move .*seed-0 away to train this member"):
        run_sweep(changed, sweep, resumed, progress=False, hooks=[calls.append])
    assert calls == [] and (resumed / "members" / "seed-0" / "summary.json").is_file()
    # The record alone redraws the same report (python -m experiments.lab.findings
    # --redraw), its plots included.
    from experiments.lab.record import redraw
    written = (results / "summary.md").read_text()
    (results / "plots" / "learning_curves.png").unlink()
    (results / "only" / "seed-1").mkdir(parents=True)  # an --only report, drawn long ago
    (results / "only" / "seed-1" / "summary.csv").write_text("member\nold\n")
    assert redraw(results) == 2
    assert (results / "summary.md").read_text() == written
    assert (results / "plots" / "learning_curves.png").stat().st_size > 10_000
    # ... and each --only report from the members its text names, as --only chose them
    with open(results / "only" / "seed-1" / "summary.csv", newline="") as table:
        assert [row["member"] for row in csv.DictReader(table)] == ["seed-1"]
    assert (results / "only" / "seed-1" / "plots" / "learning_curves.png").is_file()
    assert not any((results / "plots" / name).exists() for name in left)  # redrawn, not kept
    assert not (results / "only" / "seed-0" / "summary.md").exists()  # no table: left alone
    # Heat maps need the parameters: redraw_heatmaps trains the member each was drawn
    # from again (its whole cohort, --only) and keeps the new map only if its logs are
    # the record's, timings aside.
    from experiments.lab import redraw_heatmaps
    assert redraw_heatmaps.drawn_members(results) == {"seed-0": "base"}
    assert redraw_heatmaps.training_arguments(results) == ["--config=experiments/x.py"]
    launched = []

    def launch(arguments):
        launched.append(arguments)
        flags = dict(a.split("=", 1) for a in arguments)
        run_sweep(tiny_config(), sweep, Path(flags["--workdir"]), progress=False,
                  only=flags["--only"])

    (results / "plots" / "attention_base.png").write_bytes(b"drawn before the overlay")
    assert redraw_heatmaps.redraw_heatmaps(results, tmp_path / "maps", launch=launch) == {
        "seed-0": "redrawn"}
    assert launched == [["--config=experiments/x.py", f"--workdir={tmp_path / 'maps'}",
                         "--only=seed-0"]]
    assert ((results / "plots" / "attention_base.png").read_bytes()
            == (tmp_path / "maps" / "members" / "seed-0" / "plots" / "attention.png").read_bytes())
    # A member whose logs differ is another model: its map is not the record's.
    logs = results / "members" / "seed-0" / "metrics.jsonl"
    lines = logs.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if "train/loss" in line)
    changed = json.loads(lines[index])
    changed["train/loss"] += 1e-6
    logs.write_text("\n".join(lines[:index] + [json.dumps(changed)] + lines[index + 1:]) + "\n")
    (results / "plots" / "attention_base.png").write_bytes(b"drawn before the overlay")
    said = redraw_heatmaps.redraw_heatmaps(results, tmp_path / "maps", launch=launch)
    assert said["seed-0"].startswith(
        f"not redrawn: its logs differ from the record's: line {index + 1} ")
    assert "both on " in said["seed-0"]  # the same CPU and jaxlib, both recorded
    assert (results / "plots" / "attention_base.png").read_bytes() == b"drawn before the overlay"
    logs.write_text("\n".join(lines) + "\n")
    # A finished sweep trained on for more steps, on purpose: its cohort resumes from
    # its checkpoint (found under the name it began with) and records the change.
    longer = tiny_config()
    longer.train.num_steps = 30
    with pytest.raises(ConfigMismatchError, match="resume_with"):
        run_sweep(longer, sweep, tmp_path / "run", progress=False)
    calls.clear()
    extended = run_sweep(longer, sweep, tmp_path / "run", progress=False, hooks=[calls.append],
                         resume_with=frozenset({"train.num_steps"}))
    assert calls == [25, 30] and [s["steps"] for s in extended] == [30, 30]
    assert extended[0]["config_history"] == [
        {"step": 20, "field": "train.num_steps", "was": 20, "now": 30}]


def test_a_report_pivots_settings_against_tasks_by_short_names_and_a_baseline():
    """Issue 38: settings × tasks with names a person reads, the difference from the
    sweep's first setting with its Welch interval, and failed seeds counted."""
    from attention_research.reports import setting_names, stats, tables, verdicts
    from configs import transformer
    config = transformer.get_config()
    settings = ["family-transformer_score-scaled_dot_num_heads-4_positions-sinusoidal",
                "family-transformer_score-scaled_dot_num_heads-4_positions-rope",
                "score-additive_alignment-local_m", "score-additive",
                "score-additive_pointer_generator-True", "score-coverage_coverage_loss-1.0",
                "score-coverage_coverage_loss-0.0_coverage_loss_from-0.8"]
    assert list(setting_names.display_names(settings, config).values()) == [
        "Transformer · sinusoidal", "Transformer · RoPE", "additive · local_m", "additive",
        "additive · pointer-generator", "coverage · coverage loss 1.0",
        "coverage · coverage loss 0.0 · coverage loss from 0.8"]
    values = {"score-additive": [0.90, 0.92, 0.94], "score-dot": [0.80, 0.82, None],
              "score-cosine": [0.95, 0.01, 0.97]}
    rows = [{"setting": f"{setting}_task-{task}", "task": task, "seq_acc/len1-4": value}
            for task in ("copy", "reverse") for setting, seeds in values.items()
            for value in seeds]
    text = tables.pivot_section(rows, "seq_acc/len1-4", "seq acc 1-4", config)
    assert "| setting | copy | reverse |" in text
    cosine = stats.t_interval([0.95, 0.01, 0.97]).cell()
    assert f"| cosine | {cosine} (1 of 3 failed) | {cosine} (1 of 3 failed) |" in text
    assert "**additive** (the sweep's first setting; " in text
    difference = stats.difference_interval([0.80, 0.82], [0.90, 0.92, 0.94])
    assert (f"| dot | {difference.mean:+.3f} [{difference.low:+.3f}, {difference.high:+.3f}]"
            in text)
    # Beside a "not separated", how many of each setting's seeds failed.
    samples = {s: v for s, v in values.items()}
    assert "score-cosine (" in verdicts.verdict(samples, rule=stats.ACCURACY)
    assert "1 of 3 seeds failed" in verdicts.verdict(samples, rule=stats.ACCURACY)


def test_an_experiment_names_the_baseline_its_reports_read_the_others_against(tmp_path):
    """Issue 38: ``config.baseline`` names the setting a report's differences and small
    multiples are read against, whatever the sweep lists first (a replication may list
    another first); a name that is no setting is refused before anything runs, with the
    settings and the one probably meant; a smoke run lists it first; it is no part of a
    cohort's structure, and a member trained before it was named resumes."""
    from attention_research.reports import setting_names, tables
    from attention_research.running.workdir import WorkDir
    config = tiny_config()
    values = {"score-additive": [0.90, 0.92, 0.94], "score-dot": [0.80, 0.82, 0.84]}
    rows = [{"setting": f"{setting}_task-{task}", "task": task, "seq_acc/len1-4": value}
            for task in ("copy", "reverse") for setting, seeds in values.items()
            for value in seeds]
    config.baseline = "score-dot"
    text = tables.pivot_section(rows, "seq_acc/len1-4", "seq acc 1-4", config)
    assert "**dot** (the experiment's `config.baseline`)" in text
    assert "| additive | +0.100 [" in text and "| dot | +" not in text
    assert setting_names.panels(list(values), config).reference == "score-dot"
    config.baseline = "score-cosine"  # not among these rows (an --only report): the first
    text = tables.pivot_section(rows, "seq_acc/len1-4", "seq acc 1-4", config)
    assert "**additive** (the sweep's first setting; an experiment names" in text
    assert setting_names.panels(list(values), config).reference == "score-additive"
    # Refused at expansion (launch.py, --dry_run included), nothing written.
    sweep = sweeps.product(sweeps.axis("config.model.attention.score", ["dot", "additive"]),
                           sweeps.axis("config.task.name", ["copy", "reverse"]),
                           sweeps.axis("config.seed", [0, 1]))
    config.baseline = "score-additve"
    with pytest.raises(ConfigError, match=r"config.baseline='score-additve' is no setting of "
                       r"this sweep \(did you mean 'score-additive'\?\); its settings .*: "
                       r"score-dot, score-additive$"):
        sweeps.expand(config, sweep, tmp_path / "refused")
    assert not (tmp_path / "refused").exists()
    config.baseline = "score-additive"
    assert [sweeps.baseline_name(o) for o in sweeps.smoke(sweep, baseline="score-additive")] \
        == ["score-additive", "score-additive", "score-dot", "score-dot"]  # 2 seeds each
    named = sweeps.expand(config, sweep, tmp_path / "run")
    config.baseline = ""
    unnamed = sweeps.expand(config, sweep, tmp_path / "run")
    assert ([sweeps.cohort_id(c) for c in sweeps.cohorts(named)]
            == [sweeps.cohort_id(c) for c in sweeps.cohorts(unnamed)])
    # A member's config.json from before the field, or with another baseline, resumes.
    member = named[0]
    saved = json.loads(member.config.to_json())
    del saved["baseline"]
    member.workdir.mkdir(parents=True)
    (member.workdir / "config.json").write_text(json.dumps(saved))
    WorkDir(member.workdir).check_config(member.config)


def test_a_redrawn_record_reads_the_baseline_its_experiment_names_today(tmp_path, capsys):
    """record.experiment_baseline: the baseline of the experiment file (and argument) the
    record's first launch names, so that ``findings --redraw`` reads even members trained
    before the field against it; the members' own where that file is gone."""
    from experiments.lab.record import experiment_baseline
    assert experiment_baseline(tmp_path) is None  # no commands.txt
    (tmp_path / "commands.txt").write_text(
        "python launch.py --config=experiments/luong_table4.py:replicate --part=1/2\n"
        "python launch.py --config=experiments/luong_table4.py:corpus=multi30k --part=2/2\n")
    assert experiment_baseline(tmp_path) == "score-location"
    # A gate's sweep recorded later holds its own arm alone, which its config names as
    # its baseline: the record's report keeps the first launch's (a redraw read the
    # ruled arms against the gate's arm).
    (tmp_path / "commands.txt").write_text(
        "python launch.py --config=experiments/hard_vs_soft_multi30k.py --part=1/2\n"
        "python launch.py --config=experiments/hard_vs_soft_multi30k.py:scale=64 --record\n")
    assert experiment_baseline(tmp_path) == "alignment-global"
    (tmp_path / "commands.txt").write_text("python launch.py --config=experiments/gone.py\n")
    assert experiment_baseline(tmp_path) is None
    assert "experiments/gone.py could not be read" in capsys.readouterr().err


def test_an_adoption_of_an_adopted_run_still_names_the_run_that_trained_it(tmp_path):
    """adopt.mark: a donor that was itself adopted passes on where its training came
    from (donor_adopted_from), and compare_final carries it into the summary."""
    from attention_research.running import adopt
    donor = tmp_path / "donor"
    donor.mkdir()
    trained_by = {"member": "/elsewhere/seed-0", "name": "first_sweep", "same_final": True}
    (donor / "summary.json").write_text(json.dumps({
        "name": "second_sweep", "wall_time_s": 5.0, "code": {"commit": "abc", "changed": False},
        "adopted_from": trained_by, "members": [{"final": {"eval/x": 1.0}}]}))
    member = tmp_path / "member"
    member.mkdir()
    adopt.mark(adopt.Donor(donor, tmp_path / "checkpoints", 8, None), member)
    record = adopt.adopted(member)
    assert record["donor_adopted_from"] == trained_by
    assert adopt.compare_final(record, {"eval/x": 1.0})["donor_adopted_from"] == trained_by
