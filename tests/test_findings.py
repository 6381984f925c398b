"""experiments/FINDINGS.md is what the committed results give, byte for byte."""

import pytest

from experiments.lab import findings


@pytest.mark.slow
def test_the_committed_findings_page_is_what_the_committed_results_give():
    page = findings.page(findings.collect())
    committed = (findings.ROOT / "experiments" / "FINDINGS.md").read_text()
    assert page == committed, ("experiments/FINDINGS.md is stale: rebuild it with "
                               "python -m experiments.lab.findings")


def test_experiment_files_are_configs_and_their_claims_live_in_the_lab():
    """Issue 70: an experiment file holds its header, config and sweep; the code that
    decides its claims is its module in experiments/lab/claims/, which the page reads."""
    import ast
    experiments = findings.ROOT / "experiments"
    for path in sorted(experiments.glob("*.py")):
        names = {node.name for node in ast.parse(path.read_text()).body
                 if isinstance(node, ast.FunctionDef)}
        assert "findings" not in names, f"{path.name}: its findings belong in lab/claims/"
    claims = {path.stem for path in (experiments / "lab" / "claims").glob("*.py")} - {"__init__"}
    assert claims == {name for name, _ in findings.experiment_modules()}
    assert {"compare_attention", "length_generalization", "luong_table4"} <= claims


def test_a_finding_takes_only_the_known_verdicts():
    with pytest.raises(ValueError, match="expected one of"):
        findings.Finding("k", "t", "paper", "ours", "probably", "why")
    assert findings.pending("k", "t", "p", "5 seeds").verdict == "pending"


def test_a_check_by_construction_is_counted_apart_from_the_findings():
    """Issue 73: a paper's identity computed on the draws it assumes (Vaswani et al.'s
    footnote 4) verifies the code, not a claim about trained models: it takes 'verified',
    sits in its own section and is not among the reproduced."""
    check = findings.Finding("identity", "Scores spread as √d", "Vaswani et al. 2017: x",
                             "×8", "verified", "within 10%", construction="unit draws")
    claim = findings.Finding("claim", "A claim", "Someone 2020: y", "0.9", "reproduced", "t")
    with pytest.raises(ValueError):
        findings.Finding("bad", "t", "p: c", "o", "reproduced", "w", construction="by design")
    page = findings.page([("x", claim), ("score_scaling", check)])
    head, checks = page.split("## Checks by construction")
    assert "1 reproduced" in head and "[Scores spread as √d]" not in head
    assert "1 verified" in checks and "**By construction:** unit draws" in checks
    # A rule's verdict, a finding's or an observation's, in a check's words.
    assert [findings.as_check(v) for v in ("reproduced", "holds", "not reproduced",
                                           "does not hold", "inconclusive", "pending")] == [
        "verified", "verified", "not verified", "not verified", "inconclusive", "pending"]


def test_separated_needs_the_right_direction_and_a_test():
    assert findings.separated([0.9, 0.91, 0.92], [0.5, 0.52, 0.51])[0]
    assert not findings.separated([0.5, 0.52, 0.51], [0.9, 0.91, 0.92])[0]
    assert findings.separated([0.5, 0.52, 0.51], [0.9, 0.91, 0.92], higher=False)[0]
    assert findings.separated([0.9], [0.5, 0.6]) == (False, "under 2 seeds on a side: no test")


def test_a_rows_one_rule_reading_is_named_where_it_differs_from_its_registered_one():
    """Issue 73's ninth referee: an observation decided by Welch and Holm says what the
    lab's one rule gives on the same contrasts, and says so where the two differ."""
    far, power = findings.one_rule_reading(
        [([0.9, 0.91, 0.92], [0.5, 0.52, 0.51], True)], verdict="holds")
    assert far.endswith("gives holds") and str(power).startswith("detects ")
    # Separated by Welch but the interval holds +0.02: the one rule withholds it.
    near, power = findings.one_rule_reading(
        [([0.530, 0.540, 0.550, 0.535, 0.545], [0.500, 0.510, 0.520, 0.505, 0.515], True)],
        verdict="holds")
    assert near.endswith("gives inconclusive, not the registered verdict")
    assert "seeds an arm decide" in str(power)  # and its power cell says what would


def test_a_rule_written_after_its_first_seeds_says_so_on_its_row():
    """Issue 73's ninth referee: a claims module names the rows whose rules came after
    their records (RULES_AFTER_FIRST_RUN), and the page says which seeds confirm them."""
    import types
    row = findings.Finding("k", "T", None, "0.9", "holds", "Welch")
    module = types.SimpleNamespace(RULES_AFTER_FIRST_RUN={"k": "abc1234, 2026-11-24"})
    said = findings._written_after(module, row, "rec").why
    assert "written after its first seeds were recorded (abc1234, 2026-11-24" in said
    assert "results/rec/README.md" in said and "confirmatory test" in said
    module.NOT_REPLICATED = {"k": "costly"}
    assert "it is not replicated" in findings._written_after(module, row, "rec").why
    assert findings._written_after(types.SimpleNamespace(), row, "rec") is row


def test_every_plot_the_findings_page_shows_is_committed():
    import re
    experiments = findings.ROOT / "experiments"
    page = (experiments / "FINDINGS.md").read_text()
    missing = [path for path in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page)
               if not (experiments / path).is_file()]
    assert not missing, f"the findings page shows plots that are not committed: {missing}"


def _module(decide, replicated=("claim",), costly=None):
    """A stand-in experiment module: ``findings`` reads the seeds it is told to expect
    and the verdict ``decide(folder, seeds)`` gives."""
    from types import SimpleNamespace
    module = SimpleNamespace(SEEDS=[0, 1, 2, 3, 4], REPLICATED=replicated,
                             NOT_REPLICATED=costly or {})
    module.findings = lambda folder: [findings.Finding(
        "claim", "A claim", None, f"{len(module.SEEDS)} seeds",
        decide(folder, tuple(module.SEEDS)), "a test")]
    return module


@pytest.mark.parametrize("fresh, verdict, word", [
    ("holds", "holds", "yes"),
    ("inconclusive", "inconclusive", "not confirmed"),  # not repeated: the verdict falls
    ("does not hold", "inconclusive", "contradicted"),  # the opposite: it falls too
    ("pending", "holds", "pending"),
])
def test_a_verdict_stands_only_if_fresh_seeds_repeat_it(tmp_path, fresh, verdict, word):
    (tmp_path / "x_replication").mkdir()
    module = _module(lambda folder, seeds: fresh if seeds == findings.REPLICATION_SEEDS
                     else "holds")
    own = module.findings(tmp_path / "x")
    found, = findings.with_replication(module, own, tmp_path / "x_replication")
    assert (found.verdict, found.replicated) == (verdict, word)
    assert module.SEEDS == [0, 1, 2, 3, 4]  # restored
    if word == "yes":
        assert "seeds 100–102 (holds): 3 seeds" in found.replication


def test_an_unconfirmed_replications_power_counts_its_fresh_seeds_alone(tmp_path):
    """Its seeds that would decide are the fresh seeds' (a replication is never pooled
    with the first run), and the cell says so (a referee read them as the whole cost)."""
    import dataclasses

    from experiments.lab import rule
    (tmp_path / "x_replication").mkdir()
    module = _module(lambda folder, seeds: "inconclusive" if seeds == findings.REPLICATION_SEEDS
                     else "holds")
    plain = module.findings

    def with_power(folder):
        return [dataclasses.replace(f, power=rule.Power.of("detects 1.5; about 9 seeds an "
                                                           "arm decide", 9)) for f in plain(folder)]
    module.findings = with_power
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication")
    assert found.power == ("fresh seeds alone (the first 5 not pooled): detects 1.5; about 9 "
                           "seeds an arm decide")


@pytest.mark.parametrize("fresh, verdict, word", [
    ("does not hold", "does not hold", "yes"),
    ("holds", "inconclusive", "contradicted"),
    ("inconclusive", "inconclusive", "not confirmed"),
])
def test_a_claim_found_false_is_replicated_too(tmp_path, fresh, verdict, word):
    """A separation the other way ("does not hold", "not reproduced") is a finding as
    well where the experiment's test reached it (SEPARATES_BOTH_WAYS): fresh seeds must
    repeat it, and "holds" contradicts it. Elsewhere (a rule whose contrary verdict no
    test separated) it is not replicated, but fresh seeds that were trained are shown
    ('ran: '), and a contradiction still brings it down (a referee found one committed
    and never shown)."""
    (tmp_path / "x_replication").mkdir()
    module = _module(lambda folder, seeds: fresh if seeds == findings.REPLICATION_SEEDS
                     else "does not hold")
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication")
    assert found.replicated == f"ran: {fresh}"
    assert found.replication.startswith("does not hold is not replicated here")
    assert found.verdict == ("inconclusive" if fresh == "holds" else "does not hold")
    module.SEPARATES_BOTH_WAYS = ("claim",)
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication")
    assert (found.verdict, found.replicated) == (verdict, word)
    if word == "not confirmed":
        # A verdict against the claim, not confirmed, is no evidence for the claim
        # either; and the replication's 3 seeds are fewer than the first run's 5 (issue
        # 73, an audit as Luong).
        assert "no evidence for it either (with fewer seeds" in found.replication
        assert "not evidence against the claim" not in found.replication


def test_a_verdict_without_a_replication_says_why(tmp_path):
    module = _module(lambda folder, seeds: "holds", replicated=())
    found, = findings.with_replication(module, module.findings(tmp_path), tmp_path / "no")
    assert found.replicated == "not yet" and found.verdict == "holds"
    module = _module(lambda folder, seeds: "holds", costly={"claim": "8 CPU-hours"})
    found, = findings.with_replication(module, module.findings(tmp_path), tmp_path / "no")
    assert found.replication == ("not replicated (cost: 8 CPU-hours); until fresh seeds "
                                 "repeat it, the row is exploratory")
    # Only verdicts that separate need one.
    module = _module(lambda folder, seeds: "inconclusive")
    found, = findings.with_replication(module, module.findings(tmp_path), tmp_path / "no")
    assert found.replication is None and found.replicated == ""


def test_a_replication_of_another_config_counts_as_none(tmp_path):
    """The replicate must rerun the same experiment: a setting whose config differs from
    the first run's in anything but the seed is no replication."""
    import json
    for folder, seed, rate in (("x", 0, 0.003), ("x_replication", 100, 0.01)):
        member = tmp_path / folder / "members" / f"score-dot_seed-{seed}"
        member.mkdir(parents=True)
        (member / "config.json").write_text(json.dumps(
            {"seed": seed, "name": folder, "train": {"learning_rate": rate}}))
    assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication") == [
        "score-dot"]
    module = _module(lambda folder, seeds: "holds")
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication", tmp_path / "x")
    assert found.replicated == "not (config)" and "score-dot" in found.replication
    (tmp_path / "x_replication" / "members" / "score-dot_seed-100" / "config.json").write_text(
        json.dumps({"seed": 100, "name": "x_replication", "train": {"learning_rate": 0.003}}))
    assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication") == []
    # A field added after the first run, at the value that run had, is no difference;
    # a resource field (the evaluation chunk) is none either; another value is one.
    replicate = tmp_path / "x_replication" / "members" / "score-dot_seed-100" / "config.json"
    for extra, differs in (({"gradient_batches": 0}, False), ({"gradient_batches": 5}, True)):
        replicate.write_text(json.dumps(
            {"seed": 100, "name": "x_replication", "train": {"learning_rate": 0.003, **extra},
             "task": {"eval_batch_size": 7}}))
        assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication") == (
            ["score-dot"] if differs else [])
    # A field the experiment lets its replication add (REPLICATION_ADDS: more outputs
    # beside the ones the first run's rule read) is no difference; another field still is.
    replicate.write_text(json.dumps(
        {"seed": 100, "name": "x_replication", "train": {"learning_rate": 0.003},
         "task": {"length_penalty_search": [0.0, 1.0]}}))
    assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication") == [
        "score-dot"]
    adds = {"task.length_penalty_search": (0.0, 1.0)}
    assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication", adds) == []
    # At another value than the experiment requires, the added field is a difference.
    other = {"task.length_penalty_search": (0.6,)}
    assert findings.config_differences(tmp_path / "x", tmp_path / "x_replication", other) == [
        "score-dot"]
    module.REPLICATION_ADDS = adds
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication", tmp_path / "x")
    assert found.replicated != "not (config)"


def test_a_finding_that_reads_other_records_is_replicated_in_theirs(tmp_path):
    """REPLICATION_READS: the finding's replication is other experiments' fresh seeds,
    each checked against its own first run's config; no folder of its own is needed."""
    import json
    for folder, seed, rate in (("a", 0, 0.003), ("a_replication", 100, 0.01)):
        member = tmp_path / folder / "members" / f"score-dot_seed-{seed}"
        member.mkdir(parents=True)
        (member / "config.json").write_text(json.dumps(
            {"seed": seed, "name": folder, "train": {"learning_rate": rate}}))
    module = _module(lambda folder, seeds: "holds")
    module.REPLICATION_READS = {"a": "a.py:replicate"}
    own = module.findings(tmp_path / "x")
    found, = findings.with_replication(module, own, tmp_path / "x_replication",
                                       tmp_path / "x")
    assert found.replicated == "not (config)" and "a score-dot" in found.replication
    config = tmp_path / "a_replication" / "members" / "score-dot_seed-100" / "config.json"
    config.write_text(json.dumps({"seed": 100, "name": "a_replication",
                                  "train": {"learning_rate": 0.003}}))
    found, = findings.with_replication(module, own, tmp_path / "x_replication",
                                       tmp_path / "x")
    assert found.replicated == "yes"  # decided although x_replication does not exist
    module.findings = lambda folder: [findings.pending("claim", "A claim", None, "0 of 3")]
    found, = findings.with_replication(module, own, tmp_path / "x_replication",
                                       tmp_path / "x")
    assert found.replicated == "pending" and "--config=experiments/a.py:replicate" in (
        found.replication)



def test_one_finding_may_read_its_fresh_seeds_from_another_record(tmp_path):
    """REPLICATION_SOURCES: luong_table4's alignment row is replicated in
    compare_attention_replication, not in luong_table4_replication; it is decided, and
    linked, from there, whether or not the experiment's own replication exists."""
    (tmp_path / "other_replication" / "members").mkdir(parents=True)
    module = _module(lambda folder, seeds: "holds")
    module.REPLICATION_SOURCES = {"claim": {"other": "other.py:replicate"}}
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication", tmp_path / "x")
    assert found.replicated == "yes" and found.replication_records == ("other_replication",)
    # An inconclusive row whose fresh seeds ran anyway links the record that holds them
    # too (a tenth referee found one linking the experiment's own replication).
    module.findings = lambda folder: [findings.Finding("claim", "A claim", None, "5 seeds",
                                                       "inconclusive", "a test")]
    found, = findings.with_replication(module, module.findings(tmp_path / "x"),
                                       tmp_path / "x_replication", tmp_path / "x")
    assert found.replicated.startswith("ran: ")
    assert found.replication_records == ("other_replication",)
    module.findings = lambda folder: [findings.pending("claim", "A claim", None, "0 of 3")]
    found, = findings.with_replication(module, [findings.Finding(
        "claim", "A claim", None, "5 seeds", "holds", "a test")], tmp_path / "x_replication")
    assert found.replicated == "pending" and "experiments/other.py:replicate" in (
        found.replication)


def test_every_row_of_the_committed_page_says_what_its_design_detects():
    """Issue 73, item 4, for the observations too (a fresh referee found their table had
    no power column): every inconclusive row of either table has a power cell, and (a
    tenth referee found decided observations without one) so has every decided row."""
    page = (findings.ROOT / "experiments" / "FINDINGS.md").read_text()
    tables = ("| finding | paper | verdict | replicated | power (80%) |",
              "| observation | verdict | replicated | power (80%) |")
    for table in tables:
        assert table in page, table
    rows = [line for table in tables
            for line in page.split(table)[1].split("\n\n")[0].splitlines()
            if line.startswith("| [") and "| **pending**" not in line]
    assert any("| **inconclusive**" in line for line in rows)
    assert any("| **holds**" in line for line in rows)
    for line in rows:
        assert not line.rstrip().endswith("| — |"), line

