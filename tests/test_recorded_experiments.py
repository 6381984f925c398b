"""Every recorded experiment is still what its sweep file builds: a member's committed
config.json equals the config the experiment now gives that member. A change of a
default (e.g. the translation recipe) must pin the experiments recorded before it, or a
rerun would train something else than the table it reports."""

import ast
import importlib
import re
from pathlib import Path

import pytest

from attention_research.running import config_files, sweeps
from attention_research.running.config_changes import RESOURCE_FIELDS
from attention_research.running.workdir import WorkDir
from experiments.lab import costs, pages, record

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
RECORDED = sorted(p.parent.name for p in RESULTS.glob("*/members"))
EXPERIMENTS = sorted(p.stem for p in (ROOT / "experiments").glob("*.py"))


def _command(results: Path) -> tuple[str, str | None, set[str]]:
    """(experiment, its argument, fields set with --config.FIELD=...) of the first
    launch command in ``results``/commands.txt."""
    launched = record.launched_experiment(results)
    assert launched, f"{results}/commands.txt: its first launch runs no experiment file"
    overridden = {w[len("--config."):].split("=")[0] for w in record.first_launch(results)
                  if w.startswith("--config.")}
    return *launched, overridden


def _launched_arguments(results: Path, experiment: str) -> list[str | None]:
    """Every argument (None for none) with which ``results``/commands.txt launched
    ``experiment``: a record filled by its gates' launches (``NAME.py:scale=64``) holds
    the members of each."""
    commands = (results / "commands.txt").read_text()
    found = re.findall(rf"--config=experiments/{experiment}\.py(?::(\S+))?", commands)
    return list(dict.fromkeys(arg or None for arg in found))


@pytest.mark.parametrize("name", RECORDED)
def test_a_recorded_member_is_what_its_experiment_builds(name, tmp_path):
    results = RESULTS / name
    experiment, first_arg, overridden = _command(results)
    module = importlib.import_module(f"experiments.{experiment}")
    members = {}
    for arg in [first_arg, *_launched_arguments(results, experiment)]:
        config, sweep = (module.get_config(arg), module.get_sweep(arg)) if arg else (
            module.get_config(), module.get_sweep())
        members.update({m.name: m for m in sweeps.expand(config, sweep, tmp_path / str(arg))})
    folders = sorted(p.parent for p in (results / "members").glob("*/config.json"))
    assert folders
    for folder in folders:
        assert folder.name in members, f"{folder} is no member of {experiment} now"
        changed = [(field, saved, now) for field, saved, now
                   in WorkDir(folder).changed_fields(members[folder.name].config)
                   if field not in RESOURCE_FIELDS and field not in overridden]
        assert not changed, f"{folder}: {changed}"


# Replications named before this test, recorded under their first run's name and moved
# by hand (their members' config.json says so; renaming them would refuse the record).
NAMED_AS_FIRST_RUN = {"default_recipe"}


@pytest.mark.parametrize("name", [n for n in EXPERIMENTS
                                  if "replicating(" in (ROOT / "experiments" / f"{n}.py")
                                  .read_text() and n not in NAMED_AS_FIRST_RUN])
def test_a_replication_records_apart_from_its_first_run(name):
    """fixed_vector_capacity:replicate kept its first run's name, so --record wrote its
    members into the first run's record (caught before it was committed)."""
    module = importlib.import_module(f"experiments.{name}")
    assert module.get_config("replicate").name.endswith("_replication")
    assert not module.get_config().name.endswith("_replication")


def _documented_launches(name: str) -> list[str]:
    """Every ``--config=experiments/NAME.py[:ARG]`` argument (ARG, '' for none) that the
    experiment's own docstring tells a reader to run."""
    doc = ast.get_docstring(ast.parse((ROOT / "experiments" / f"{name}.py").read_text())) or ""
    return sorted(set(re.findall(rf"--config=experiments/{name}\.py(?::([\w=,.-]*\w))?", doc)))


@pytest.mark.parametrize("name", [n for n in EXPERIMENTS if _documented_launches(n)])
def test_every_command_an_experiment_documents_expands(name, tmp_path):
    """luong_table4:corpus=multi30k,replicate named a baseline its two settings lack, so
    the command its header gives was refused before it ran."""
    module = importlib.import_module(f"experiments.{name}")
    if not hasattr(module, "get_sweep"):
        return
    for arg in _documented_launches(name):
        config = config_files.call(module.get_config, arg)
        sweeps.expand(config, config_files.call(module.get_sweep, arg), tmp_path / arg)


def _paragraph(doc: str, opening: str) -> str:
    """The paragraph of ``doc`` that opens with ``opening``, on one line ("" if none)."""
    return next((" ".join(p.split()) for p in re.split(r"\n\s*\n", doc)
                 if p.lstrip().startswith(opening)), "")


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_an_experiment_file_opens_with_its_command_its_cost_and_its_result(name):
    """big_vision's header: what it compares, the command that runs it, what it cost on
    the machine that ran it, and where its result is. A stated cost is each record's
    own (experiments/lab/costs.py reads it from the record's summary.md), so a header
    cannot quote a cost no run had."""
    doc = ast.get_docstring(ast.parse((ROOT / "experiments" / f"{name}.py").read_text()))
    assert doc, f"experiments/{name}.py has no docstring"
    assert f"experiments/{name}.py" in doc, f"experiments/{name}.py names no command"
    cost, result = _paragraph(doc, "Cost:"), _paragraph(doc, "Result:")
    assert cost, f"experiments/{name}.py states no Cost: paragraph"
    assert result, f"experiments/{name}.py states no Result: paragraph"
    assert re.search(r"results/|FINDINGS\.md|pending", result), result
    for recorded in costs.costs_by_experiment().get(name, []):
        assert recorded.words() in cost, (
            f"experiments/{name}.py's Cost: should state {recorded.words()!r} "
            "(python -m experiments.lab.costs)")


def test_no_record_commits_an_image_no_page_shows():
    """Records stay small (issue 70): a record keeps the figures some page shows (names
    their path: experiments/lab/pages.py); every member's heat maps and each report's
    other plots stay in the work directory that drew them (record() copies no other)."""
    shown = pages.shown_images()
    images = sorted(p for p in RESULTS.rglob("*") if p.suffix.lower() in (".png", ".svg", ".jpg"))
    unshown = [str(p.relative_to(ROOT)) for p in images if p.resolve() not in shown]
    assert not unshown, (f"{len(unshown)} image(s) under experiments/results/ that no page "
                         f"shows, e.g. {unshown[:3]}: show each in a page, or remove it")
