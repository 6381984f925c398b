"""Config files: each loads, validates, overrides only the attention, documents its command.
And launch.py: the command line, its default work directory and its errors."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_research import attention
from attention_research.running import compilation_cache
from attention_research.training.config_checks import validate
from configs import base

ROOT = Path(__file__).resolve().parents[1]
# One config file per registered score (configs/NAME.py), and one for none.
FORMULATIONS = [*attention.SCORES, attention.NO_ATTENTION]


def _flat(config, prefix=""):
    out = {}
    for key, value in config.items():
        if hasattr(value, "items"):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("name", FORMULATIONS)
def test_formulation_config_overrides_only_its_attention(name):
    if not (ROOT / "configs" / f"{name}.py").is_file():
        pytest.fail(f"score {name!r} is registered but has no config file: add "
                    f"configs/{name}.py, as configs/dot.py (docs/extending.md)")
    module = importlib.import_module(f"configs.{name}")
    config = module.get_config()
    validate(config)
    assert config.model.attention.score == name
    differ = {k for k, v in _flat(config).items() if _flat(base.get_config())[k] != v}
    # Its attention alone: the score, and what belongs to it (coverage's own loss).
    assert all(k == "name" or k.startswith("model.attention.") for k in differ), differ
    assert f"python launch.py --config=configs/{name}.py" in module.__doc__


@pytest.mark.parametrize("arg, expected", [
    ("task=copy", {"task.name": "copy"}),
    ("task=copy,cell=gru,style=bahdanau",
     {"task.name": "copy", "model.cell": "gru", "model.decoder_style": "bahdanau"}),
])
def test_config_argument_sets_structural_choices(arg, expected):
    config = _flat(base.get_config(arg))
    assert {k: config[k] for k in expected} == expected


@pytest.mark.parametrize("arg, words", [("task=palindrome", "task must be one of copy, reverse"),
                                        ("colour=red", "key one of task, cell, style, or tiny"),
                                        ("task", "expected key=value"),
                                        ("task=revrse", r"did you mean 'reverse'\?"),
                                        ("tsk=copy", r"did you mean 'task'\?")])
def test_bad_config_argument_is_refused(arg, words):
    with pytest.raises(ValueError, match=words):
        base.get_config(arg)


def test_location_covers_the_longest_held_out_source_after_overrides():
    from attention_research.models import max_source_length
    config = base.get_config()
    config.task.eval_max_length = 80
    assert max_source_length(config) == 80
    config.model.max_source_length = 100
    assert max_source_length(config) == 100 and config.task.eval_max_length == 80


def _launch(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(ROOT / "launch.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_launch_records_the_corpus_path_absolute(tmp_path):
    # A relative task.data_path would break `use` (and --record) from another folder.
    (tmp_path / "corpus").mkdir()
    result = _launch(f"--config={ROOT / 'configs' / 'additive.py'}:task=translation",
                     "--config.task.dataset=plain_text", "--config.task.data_path=corpus",
                     "--print_config", cwd=tmp_path)
    assert f"data_path: {tmp_path / 'corpus'}" in result.stdout


@pytest.mark.slow
def test_launch_refuses_an_unknown_attention_before_compiling(tmp_path):
    # A probe nobody would name a score (issue 38: 'bilinear' was a natural new name)
    result = _launch("--config=configs/additive.py",
                     "--config.model.attention.score=no_such_score_probe",
                     f"--workdir={tmp_path / 'run'}")
    assert result.returncode != 0
    assert ("model.attention.score='no_such_score_probe' is not known; valid choices:"
            in result.stderr)
    assert "additive" in result.stderr and "cosine" in result.stderr
    assert not (tmp_path / "run").exists()


def test_a_near_miss_gets_a_did_you_mean():
    from attention_research.errors import ConfigError, choice
    with pytest.raises(ConfigError, match=r"'additve' is not known \(did you mean "
                                          r"'additive'\?\); valid choices: dot, additive"):
        choice("additve", ("dot", "additive"), "model.attention.score")


@pytest.mark.slow
def test_help_config_printing_and_a_dry_run_exit_before_anything_is_written(tmp_path):
    """--help exits 0 with the true default work directory and each config's arguments;
    --print_config prints the resolved config; --dry_run lists a sweep's cohorts; a
    value of the wrong type names the type; nothing is written (issue 38)."""
    result = _launch("--help")
    assert result.returncode == 0
    assert "runs/<config>[_<argument>]" in result.stdout
    assert "configs/transformer.py: task=" in result.stdout and "score=" in result.stdout
    assert "experiments/compare_attention.py: tiny, replicate" in result.stdout
    result = _launch("--config=configs/additive.py:tiny", "--config.train.num_steps=15",
                     "--print_config", f"--workdir={tmp_path / 'one'}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "num_steps: 15" in result.stdout and "score: additive" in result.stdout
    result = _launch("--config=configs/additive.py:tiny", "--config.model.attention.score=x",
                     "--print_config")  # printed, then refused with what is wrong
    assert result.returncode != 0 and "score: x" in result.stdout
    assert "model.attention.score='x' is not known" in result.stderr
    result = _launch("--config=experiments/benchmark_sweep.py:members=3,tiny", "--dry_run",
                     "--part=1/2", f"--workdir={tmp_path / 'sweep'}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert ("3 members in 1 cohort(s); this command (part 1/2) would train 3 of them in 1 "
            "cohort(s)") in result.stdout
    assert "  seed-2" in result.stdout
    result = _launch("--config=configs/additive.py:tiny", "--config.train.num_steps=abc")
    assert result.returncode != 0
    assert "--config.train.num_steps=abc: the field holds an integer, not 'abc'" in result.stderr
    assert not (tmp_path / "one").exists() and not (tmp_path / "sweep").exists()


def test_default_workdir_names_the_config_and_its_argument():
    sys.path.insert(0, str(ROOT))
    import launch
    assert launch.default_workdir("configs/additive.py") == "runs/additive"
    assert launch.default_workdir("configs/dot.py:task=copy,cell=gru") == "runs/dot_task-copy-cell-gru"


@pytest.mark.slow
def test_launch_runs_a_sweep_file_and_prints_the_comparison(tmp_path):
    result = _launch("--config=experiments/benchmark_sweep.py:members=3,tiny",
                     "--config.train.num_steps=10", f"--workdir={tmp_path}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "sweep: 3 members in 1 cohort(s)" in result.stdout
    assert "| base | 3 |" in result.stdout  # three seeds of one setting, one row
    assert sorted(p.name for p in (tmp_path / "members").iterdir()) == [
        "seed-0", "seed-1", "seed-2"]
    assert (tmp_path / "summary.csv").exists()
    assert (tmp_path / "commands.txt").read_text().startswith(
        "python launch.py --config=experiments/benchmark_sweep.py:members=3,tiny ")
    # The run stored its compiled programs in the cache the tests share (conftest.py).
    assert any(Path(os.environ[compilation_cache.ENVIRONMENT_VARIABLE]).iterdir())
    bad = _launch("--config=experiments/benchmark_sweep.py:members=many", f"--workdir={tmp_path}/x")
    assert bad.returncode != 0 and "expected members=N" in bad.stderr
    bad = _launch("--config=experiments/benchmark_sweep.py", "--part=3/2", f"--workdir={tmp_path}/x")
    assert bad.returncode != 0 and "expected K/N with 1 <= K <= N" in bad.stderr
    assert not (tmp_path / "x").exists()


def test_a_log_written_to_a_file_is_flushed_line_by_line(monkeypatch):
    """issue 71: with stdout a file (nohup, a batch job), Python buffers it and the log
    lagged a cohort behind the progress bar; launch.py makes it line-buffered before it
    prints anything (PYTHONUNBUFFERED=1, where set, hides the fault)."""
    import io
    import launch
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # a file: not a terminal
    monkeypatch.setattr(sys, "stdout", stream)
    monkeypatch.setattr(launch, "run", lambda: print("a line"))
    assert not stream.line_buffering
    launch.main(["launch.py"])
    assert stream.line_buffering
    assert stream.buffer.getvalue() == b"a line\n"  # there without a flush


ALL_CONFIGS = sorted(p.stem for p in (ROOT / "configs").glob("*.py")
                     if p.stem not in ("__init__", "base"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_CONFIGS)
def test_every_config_takes_task_translation(name):
    """configs/NAME.py:task=translation validates, and its model translates a batch."""
    import jax
    import numpy as np
    from attention_research import models
    from attention_research.training.decoding import greedy_decode
    config = importlib.import_module(f"configs.{name}").get_config("task=translation")
    validate(config)
    assert config.task.dataset == "multi30k" and not hasattr(config.task, "num_symbols")
    model = models.make_model(config, 40, 40)
    source = np.array([[5, 6, 7, 0], [8, 9, 0, 0]], np.int32)
    params = model.init(jax.random.PRNGKey(0), source, source)["params"]
    tokens, _ = greedy_decode(model, params, source, 6)
    assert tokens.shape == (2, 6)


@pytest.mark.parametrize("field, value, words", [
    ("length_buckets", (24, 16), "length_buckets must be increasing"),
    ("bleu_length_bins", (8, 4), "bleu_length_bins must be increasing word counts"),
    ("bleu_length_bins", (), "bleu_length_bins must be increasing word counts"),
    ("beam_size", 0, "beam_size must be >= 1"),
])
def test_bad_translation_fields_are_refused(field, value, words):
    from attention_research.training.config_checks import ConfigError
    config = base.get_config("task=translation")
    config.task[field] = value
    with pytest.raises(ConfigError, match=words):
        validate(config)


@pytest.mark.parametrize("arg, every, words", [
    ("task=translation", 1000, "task 'translation' has no such evaluation: set it to 0"),
    ("task=copy", 30, r"train.curve_eval_every \(30\) must be a multiple of "
                      r"train.steps_per_call \(25\)"),
    ("task=copy", -50, "train.curve_eval_every must be >= 0"),
])
def test_a_curve_evaluation_the_task_or_the_step_grid_cannot_give_is_refused(arg, every,
                                                                              words):
    from attention_research.training.config_checks import ConfigError
    config = base.get_config(arg)
    config.train.curve_eval_every = every
    with pytest.raises(ConfigError, match=words):
        validate(config)


def test_the_compilation_cache_directory_and_switch(monkeypatch, tmp_path):
    monkeypatch.setenv(compilation_cache.ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    assert compilation_cache.default_directory() == str(tmp_path / "cache")
    monkeypatch.delenv(compilation_cache.ENVIRONMENT_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compilation_cache.default_directory() == str(tmp_path / "attention_research" / "jax")
    assert compilation_cache.enable("off") is None
    monkeypatch.setenv(compilation_cache.ENVIRONMENT_VARIABLE, "off")
    assert compilation_cache.enable(None) is None


def test_compiling_fast_adds_only_the_flags_this_xla_knows():
    """An unknown flag in XLA_FLAGS kills the process: each fast-compile flag is looked
    up in jaxlib's library first. The suite runs with them (tests/conftest.py)."""
    assert compilation_cache.xla_knows("--xla_backend_optimization_level=0")
    assert not compilation_cache.xla_knows("--xla_no_flag_has_this_name=1")
    for flag in compilation_cache.FAST_COMPILE_FLAGS:
        assert (flag in os.environ["XLA_FLAGS"]) == compilation_cache.xla_knows(flag)


def test_record_refuses_a_single_run(tmp_path):
    result = _launch("--config=configs/additive.py:tiny", "--record", f"--workdir={tmp_path / 'x'}")
    assert result.returncode != 0 and "--adopt_from are for sweeps" in result.stderr
    assert not (tmp_path / "x").exists()


def test_adopt_from_names_what_a_sweep_directory_needs(tmp_path):
    """--adopt_from (running/adopt.py) takes another sweep's work directory; anything
    else is refused before anything is written."""
    (tmp_path / "run").mkdir()
    result = _launch("--config=experiments/luong_table4.py:tiny", "--dry_run",
                     f"--adopt_from={tmp_path / 'run'}", f"--workdir={tmp_path / 'x'}")
    assert result.returncode != 0 and "not a sweep's work directory" in result.stderr
    assert "members/ and cohorts/" in result.stderr and not (tmp_path / "x").exists()


# Issue 38: any single config's :tiny is a smoke run of under 15 s on a 2-core CPU
# (docs/configs.md gives the command that measures it). Its cost is set by these sizes,
# checked for every file.
TINY_BOUNDS = {"train.num_steps": 20, "train.batch_size": 8, "model.embed_dim": 8,
               "model.hidden_size": 8, "model.ff_dim": 16, "model.attention.dim": 8,
               "model.num_layers": 4, "task.eval_max_length": 6,
               "task.eval_examples_per_length": 2, "train.num_heatmaps": 2}


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "configs").glob("*.py")
                                        if p.stem != "__init__"))
def test_every_config_file_has_a_tiny_smoke_run(name):
    config = _flat(importlib.import_module(f"configs.{name}").get_config("tiny"))
    validate(importlib.import_module(f"configs.{name}").get_config("tiny"))
    too_big = {k: config[k] for k, bound in TINY_BOUNDS.items() if config[k] > bound}
    assert not too_big, f"configs/{name}.py:tiny is not a smoke run: {too_big}"
    assert config["train.eval_every"] <= config["train.num_steps"]  # it evaluates once
    assert config["train.fast_compile"]  # a smoke run compiles fast, runs briefly


def test_a_short_run_is_told_the_warm_up_that_fits():
    """issue 71: --config.train.num_steps=200 on translation (warm-up 200) named no fix."""
    from configs import base
    from attention_research.training.config_checks import ConfigError, validate
    config = base.get_config()
    config.train.update(num_steps=200, warmup_steps=200)
    with pytest.raises(ConfigError, match=r"needs a shorter warm-up, e\.g\. "
                                          r"--config\.train\.warmup_steps=20 "):
        validate(config)


@pytest.mark.parametrize("field, value", [("train.learning_rate", float("inf")),
                                          ("train.weight_decay", float("nan")),
                                          ("model.dropout", float("-inf"))])
def test_a_non_finite_value_is_refused_naming_the_field(field, value):
    """issue 72: --config.train.learning_rate=inf passed validation, failed at step 1 and
    wrote Infinity into config.json."""
    from attention_research.training.config_checks import ConfigError
    config = base.get_config()
    section, name = field.split(".")
    config[section][name] = value
    with pytest.raises(ConfigError, match=rf"{field}={value}: a config value must be a "
                                          r"finite number"):
        validate(config)
