"""Run one experiment config, or a whole sweep.

    python launch.py --config=configs/additive.py
    python launch.py --config=configs/additive.py:task=copy --config.train.num_steps=500
    python launch.py --config=configs/dot.py --workdir=/tmp/dot
    python launch.py --config=experiments/compare_attention.py
    python launch.py --config=experiments/compare_attention.py --part=2/3   # one of 3 jobs
    python launch.py --config=experiments/compare_attention.py --record     # then record it

A config file that also defines get_sweep() is a sweep: every member is trained
(members that differ only in seed or optimiser hyperparameters together, in one
compiled program) and the run ends with summary.md / summary.csv. Overrides on
the command line apply to the base config under every member. Without --workdir
the run goes to runs/<config>[_<argument>]; running the same command again
resumes it from its last checkpoint. Compiled programs are cached on disk
(attention_research/running/compilation_cache.py), so a second run skips compiling.

An error (a bad config, a missing file, a locked or unwritable work directory, a
non-finite loss, a full disk) ends the run with one line, "error: …", that says what
to do; --verbose shows the full traceback instead. SIGTERM or Ctrl-C stops at the next
log with a checkpoint, prints one line and exits 143 or 130; a second stops at once
(attention_research/running/preemption.py).
"""

import time

START_TIME = time.time()  # before the heavy imports: start-up counts in the run's time

from attention_research.running import config_files  # noqa: E402  (light: no JAX)
from attention_research.running import preemption  # noqa: E402  (light: no JAX)

preemption.install_stop_now()  # Ctrl-C or SIGTERM while starting: exit, nothing written

import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from absl import app, flags, logging  # noqa: E402
from ml_collections import config_flags  # noqa: E402

_CONFIG = config_flags.DEFINE_config_file("config", None, "Experiment config file[:argument].",
                                          lock_config=True)
_WORKDIR = flags.DEFINE_string(
    "workdir", None, "Work directory; default runs/<config>[_<argument>], e.g. "
    "runs/additive_task-copy for configs/additive.py:task=copy.")
_PRINT_CONFIG = flags.DEFINE_bool(
    "print_config", False, "Print the resolved config (file, argument and overrides) and "
    "exit: nothing is compiled or written. A sweep prints its base config; see --dry_run.")
_DRY_RUN = flags.DEFINE_bool(
    "dry_run", False, "Sweeps: list the members, their cohorts and parts, what is finished "
    "and the cost (steps, and the wall time measured where a member was trained or "
    "recorded before), and exit: nothing is compiled or written.")
_DISTRIBUTED = flags.DEFINE_bool(
    "distributed", False, "Run as one of several processes (jax.distributed.initialize): "
    "Slurm, Cloud TPU and Kubernetes are detected; elsewhere give the three flags below or "
    "JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and JAX_PROCESS_ID.")
_COORDINATOR = flags.DEFINE_string("coordinator_address", None, "host:port of process 0.")
_NUM_PROCESSES = flags.DEFINE_integer("num_processes", None, "How many processes in all.")
_PROCESS_ID = flags.DEFINE_integer("process_id", None, "This process's index, from 0.")
_PART = flags.DEFINE_string(
    "part", "1/1", "K/N: train only cohorts K, K+N, K+2N, … of a sweep, so that N independent "
    "jobs share one work directory (a job array; single-core processes on a small CPU). "
    "The report is written once every member is finished.")
_ONLY = flags.DEFINE_string(
    "only", "", "Sweeps: train only the cohorts with a member whose name contains this "
    "text (e.g. alignment-monotonic: a formulation just added to a sweep); with --part, "
    "both apply. Once those members are all finished, their own report goes to "
    "only/<text>/ in the work directory.")
_RECORD = flags.DEFINE_bool(
    "record", False, "Sweeps: afterwards, copy the report and every finished member into "
    "results/<name>/ beside the sweep file (experiments/results/NAME/), replacing files of "
    "the same name and deleting nothing (experiments/lab/record.py).")
_COMPILATION_CACHE = flags.DEFINE_string(
    "compilation_cache", None, "Directory of JAX's persistent compilation cache; 'off' turns "
    "it off. Default: $ATTENTION_RESEARCH_COMPILATION_CACHE, else "
    "~/.cache/attention_research/jax.")
_RESUME_WITH = flags.DEFINE_string(
    "resume_with", "", "Comma-separated training fields (e.g. train.num_steps,"
    "train.learning_rate) that may differ, on resume, from the config the checkpoint was "
    "trained with: the run goes on from its last checkpoint under the new values, and "
    "config_history.json and summary.json record each change with its step. Without it a "
    "differing config is refused. 'mesh' accepts another device mesh than the checkpoint's "
    "(summary.json's segments record both).")
_ADOPT_FROM = flags.DEFINE_string(
    "adopt_from", "", "Sweeps: comma-separated work directories of other sweeps (e.g. "
    "runs/luong_table4_multi30k,runs/translation_length). A member alone in its cohort "
    "that a finished member there trained (the same config but for its name, analysis "
    "and other fields read after training; attention_research/running/adopt.py) starts "
    "from that member's last checkpoint and logs, and only runs its own final evaluation "
    "and analysis; the rest train. Nothing there is written.")
_REFINISH = flags.DEFINE_bool(
    "refinish", False, "A single run that has already finished is not touched by a rerun "
    "(it prints 'already finished'); with this flag its final parameters are evaluated "
    "again and its plots and summary.json rewritten.")
_VERBOSE = flags.DEFINE_bool("verbose", False, "On an error, show the full traceback, not "
                             "just the one-line explanation.")
flags.mark_flag_as_required("config")

# Where the configs live, for an error that names a config file that is not there.
ROOT = Path(__file__).resolve().parent


def parse_part(text: str) -> tuple[int, int]:
    """'2/3' -> (2, 3)."""
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise app.UsageError(f"--part={text}: expected K/N with 1 <= K <= N, e.g. --part=1/2")
    return int(match[1]), int(match[2])


def default_workdir(config_spec: str) -> str:
    """runs/additive for configs/additive.py; runs/additive_task-copy for ...:task=copy."""
    path, _, argument = config_spec.partition(":")
    name = Path(path).stem
    if argument:
        name += "_" + re.sub(r"[^A-Za-z0-9.]+", "-", argument)
    return str(Path("runs") / name)


def load_sweep(config_spec: str, baseline: str = ""):
    """get_sweep() of the config file (given the config argument if it takes one), or
    None for a single run; with ``tiny`` in the argument, its smoke-run members only
    (``sweeps.smoke``: the first seed of a few settings, the ``baseline`` first)."""
    path, _, argument = config_spec.partition(":")
    module = config_files.load(path, "_launched_config")
    if not hasattr(module, "get_sweep"):
        return None
    sweep = config_files.call(module.get_sweep, argument)
    from attention_research.running.sweeps import smoke
    from configs.base import TINY
    return smoke(sweep, baseline=baseline) if TINY in argument.split(",") else sweep


def record_destination(config_spec: str, name: str | None = None) -> Path:
    """results/<name> beside the sweep file: experiments/results/NAME for
    experiments/NAME.py, or the config's own name where it gives one (NAME_replication
    for ``:replicate``, explicit_vs_implicit_translation for ``:task=translation``)."""
    path = Path(config_spec.partition(":")[0])
    return path.parent / "results" / (name or path.stem)


def available_configs() -> str:
    found = [f"{folder}/{p.name}" for folder in ("configs", "experiments")
             for p in sorted((ROOT / folder).glob("*.py"))
             if not p.name.startswith("_") and p.name != "base.py"]
    return ", ".join(found)


def explain_flag_error(error: Exception, argv) -> str:
    """One line for an error raised while the flags are parsed: absl's own (a bad
    value; a config file whose get_config raised, with the traceback in its text) or
    ml_collections' (a mistyped --config override key)."""
    text = str(error.args[0] if error.args else error)
    if isinstance(error, flags.Error):
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        flag = re.match(r"flag (--\S+?): ", lines[0])
        reason = lines[-1] if len(lines) > 1 else lines[0].removeprefix(flag[0] if flag else "")
        # A value of the wrong type: name the type the field holds, not Python's parser.
        for pattern, expected in ((r"invalid literal for int\(\)", "an integer"),
                                  (r"could not convert string to float", "a number"),
                                  (r"(?i)boolean", "true or false")):
            if re.search(pattern, reason):
                value = flag[1].partition("=")[2] if flag else ""
                reason = f"the field holds {expected}, not {value!r}"
                break
        return f"{flag[1] + ': ' if flag else ''}{reason}"
    if isinstance(error, (KeyError, AttributeError)):  # a mistyped override key
        text = text.strip("'\"").replace("\\n", " ").replace("\\'", "'")
        key = re.search(r"'?([A-Za-z_][A-Za-z0-9_]*)'?", text)
        argument = next((a for a in argv[1:] if a.startswith("--config.") and key
                         and re.search(rf"\.{key[1]}(\.|$)", a.split("=")[0])), None)
        suggestion = re.search(r'Did you mean "([^"]+)"', text)
        return (f"{argument or 'a --config override'}: the config has no field "
                f"{key[1] if key else text!r}"
                + (f"; did you mean {suggestion[1]!r}?" if suggestion else "")
                + " (python launch.py --config=FILE --print_config lists the fields)")
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


HELP = ("--help", "-h", "-?", "--helpshort", "--helpfull")


def config_arguments() -> str:
    """Each config file's arguments (FILE:ARGUMENT), for --help: the files under configs/
    take base.ARGUMENTS or their own ARGUMENTS; every file takes tiny, the sweep files
    with a replication (REPLICATED) replicate, and their own ARGUMENTS where defined."""
    from configs import base
    lines = []
    for folder in ("configs", "experiments"):
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name.startswith("_"):
                continue
            module = config_files.load(path, f"_help_{path.stem}")
            own = getattr(module, "ARGUMENTS", base.ARGUMENTS if folder == "configs" else {})
            words = [f"{key}={'|'.join(map(str, values))}" for key, values in own.items()]
            words += [base.TINY] + ([base.REPLICATE] if hasattr(module, "REPLICATED") else [])
            lines.append(f"  {folder}/{path.name}: {', '.join(words)}")
    return "\n".join(lines)


def print_help():
    """--help: this file's guide, its flags, and each config's arguments; exit 0 (absl's
    own exits 1)."""
    print(__doc__)
    print("Flags:\n" + flags.FLAGS.module_help(sys.modules[__name__]))
    print("\nConfig arguments (--config=FILE:key=value,...; tiny shrinks any config to a "
          "smoke run):\n" + config_arguments())
    print("\nEvery config field is an override: --config.train.num_steps=500; "
          "--print_config lists them.")


def parse_flags(argv):
    """Parse the flags; any error in them (a bad value, a config file that fails, a
    mistyped override) is one line, or the full traceback with --verbose."""
    if any(a in HELP for a in argv[1:]):
        print_help()
        sys.exit(0)
    try:
        return flags.FLAGS(argv)
    except Exception as error:  # noqa: BLE001 — ml_collections raises KeyError, …
        if "--verbose" in argv:
            raise
        print(f"error: {explain_flag_error(error, argv)}", file=sys.stderr)
        sys.exit(2)


def load_config():
    """The --config file's config; a file that is missing or fails to load is one line."""
    config = _CONFIG.value
    try:
        config.name  # ml_collections defers a failed load to the first access
    except OSError as error:
        if _VERBOSE.value:
            raise
        path = Path(config_flags.get_config_filename(flags.FLAGS["config"]).partition(":")[0])
        if not path.is_file():
            raise SystemExit(f"error: no config file {path}; the configs are "
                             f"{available_configs()}") from None
        reason = str(error).strip().splitlines()[-1].strip()
        raise SystemExit(f"error: the config file {path} failed to load: {reason} "
                         "(rerun with --verbose for the traceback)") from None
    return config


def absolute_data_path(config):
    """``config`` with task.data_path made absolute, as config.json records it: a run's
    corpus is then found from any working directory (``python -m attention_research.use``
    rebuilds the task from it). A resource field (running/config_changes.py), so a run
    begun with the relative path still resumes."""
    path = config.task.get("data_path")
    if path:
        config.task.data_path = str(Path(path).expanduser().absolute())
    return config


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    # A log written to a file (nohup, a batch job) shows each line as it is printed, not
    # a cohort behind the progress bar (issue 71): Python buffers a non-terminal stdout.
    sys.stdout.reconfigure(line_buffering=True)
    try:
        run()
    except app.UsageError as error:
        raise SystemExit(f"error: {error}") from None
    except KeyboardInterrupt:  # where Python could not install the handlers
        print("interrupted: rerun the same command to resume from the last checkpoint",
              file=sys.stderr)
        sys.exit(130)
    except Exception as error:  # noqa: BLE001 — every error is explained in one line
        from attention_research.running.preemption import Preempted
        if isinstance(error, Preempted):  # SIGTERM or Ctrl-C: stopped cleanly
            print(error, file=sys.stderr)
            sys.exit(error.exit_code)
        if _VERBOSE.value:
            raise
        from attention_research.errors import explain
        raise SystemExit(f"error: {explain(error)}") from None


def quiet_library_tracebacks(record) -> bool:
    """A logging filter: orbax logs the traceback of a failed write from each of its
    threads before the error reaches us (a full disk gave ~1,000 lines). The error
    is raised and explained anyway, so those records are dropped; --verbose keeps them."""
    return not (record.exc_info and "/orbax/" in record.pathname)


def quiet_closed_event_loops(previous_hook):
    """sys.unraisablehook without orbax's echoes of a failed write: when a save fails (a
    full disk, ``ulimit -f``), tensorstore's threads go on calling into orbax's closed
    event loop, and each call printed a "RuntimeError: Event loop is closed" traceback
    (about 290, burying the one line that says what happened, issue 72). The error itself
    is raised and explained anyway; --verbose keeps them."""
    def hook(unraisable):
        if isinstance(unraisable.exc_value, RuntimeError) and \
                str(unraisable.exc_value) == "Event loop is closed":
            return
        previous_hook(unraisable)
    return hook


def run():
    logging.set_verbosity(logging.WARNING)  # orbax logs every save at INFO
    if not _VERBOSE.value:
        logging.get_absl_handler().addFilter(quiet_library_tracebacks)
        sys.unraisablehook = quiet_closed_event_loops(sys.unraisablehook)
    if _DISTRIBUTED.value:
        from attention_research.training.mesh import initialize_distributed
        initialize_distributed(_COORDINATOR.value, _NUM_PROCESSES.value, _PROCESS_ID.value)
    from attention_research.running import compilation_cache
    from attention_research.training.config_checks import validate
    from attention_research.running.config_changes import parse_resume_with

    compilation_cache.enable(_COMPILATION_CACHE.value)

    part = parse_part(_PART.value)
    config = absolute_data_path(load_config())
    if _PRINT_CONFIG.value:  # before validation: a config with a bad value prints too,
        print(config)  # and then fails with what is wrong in it
        validate(config)
        return
    validate(config)  # before anything is compiled or written
    if config.train.fast_compile:  # a sweep's base config decides for all its members
        compilation_cache.compile_fast()
    resume_with = parse_resume_with(_RESUME_WITH.value, config)  # refused before any write
    # config_filename keeps the ':argument' part, which names the default workdir.
    spec = config_flags.get_config_filename(flags.FLAGS["config"])
    workdir = _WORKDIR.value or default_workdir(spec)
    sweep = load_sweep(spec, config.get("baseline", ""))
    if sweep is None and (part != (1, 1) or _RECORD.value or _ONLY.value
                          or _ADOPT_FROM.value):
        raise app.UsageError("--part, --only, --record and --adopt_from are for sweeps; "
                             "this config has no get_sweep()")
    adopt_from = _adopt_from(workdir)
    if _DRY_RUN.value:
        if sweep is None:
            raise app.UsageError("--dry_run is for sweeps; --print_config shows a single "
                                 "run's config")
        from attention_research.running.sweep import plan
        print(plan(config, sweep, workdir, part, _ONLY.value,
                   record_destination(spec, config.name), adopt_from))
        return
    print(f"work directory: {workdir}")
    with preemption.stop_on_signals():  # from the first write on: a clean stop
        _run(config, spec, workdir, sweep, part, resume_with, adopt_from)


def _finished(config, workdir, resume_with) -> bool:
    """Whether a single run in ``workdir`` has finished under this config (and
    --refinish is not asked): it is then only read, so a read-only directory still
    prints "already finished" (issue 72). Any doubt (a mismatch, a damaged file) is
    False: the run then meets it, with its one-line error."""
    from attention_research.running.run import finished_summaries
    if _REFINISH.value:
        return False
    try:
        return finished_summaries([config], [workdir], resume_with,
                                  Path(workdir) / "checkpoints") is not None
    except Exception:  # noqa: BLE001 — explained when train() meets it
        return False


def _adopt_from(workdir) -> tuple[Path, ...]:
    """--adopt_from's directories, each checked to be another sweep's work directory."""
    sources = tuple(Path(text) for text in _ADOPT_FROM.value.split(",") if text.strip())
    if not sources:
        return ()
    import jax
    for source in sources:
        if not (source / "members").is_dir() or not (source / "cohorts").is_dir():
            raise app.UsageError(f"--adopt_from={source}: not a sweep's work directory (it "
                                 "needs members/ and cohorts/, as launch.py writes them)")
        if source.resolve() == Path(workdir).resolve():
            raise app.UsageError(f"--adopt_from={source} is this sweep's own work directory")
    if jax.process_count() > 1:
        raise app.UsageError("--adopt_from runs in one process (without --distributed)")
    return sources


def _run(config, spec, workdir, sweep, part, resume_with, adopt_from):
    import jax
    from experiments.lab.record import record
    from attention_research.api import run_sweep, train
    from attention_research.metric_names import (FIRST_STEP_SOLVED, SOLVED_SEQ_ACC,
                                                 TIME_TO_SOLVED, as_column)
    from attention_research.running.sweep import failure_line
    from attention_research.running.kinds import claim
    from attention_research.running.workdir import ensure_writable

    if jax.process_index() == 0:
        if not (sweep is None and _finished(config, workdir, resume_with)):
            ensure_writable(workdir)  # a clear error now, not after compiling
        file, _, argument = spec.partition(":")
        claim(workdir, "run" if sweep is None else "sweep",
              Path(file).name + (f":{argument}" if argument else ""))
    if sweep is not None:
        command = shlex.join(["python", Path(sys.argv[0]).name, *sys.argv[1:]])
        finished = run_sweep(config, sweep, workdir, part=part, only=_ONLY.value,
                             command=command, resume_with=resume_with,
                             adopt_from=adopt_from, overrides=overridden_fields(sys.argv))
        if finished and jax.process_index() == 0:
            print((Path(workdir) / "summary.md").read_text())
        if _RECORD.value and jax.process_index() == 0:
            destination = record_destination(spec, config.name)
            members = record(workdir, destination)
            print(f"recorded {len(members)} finished member(s)"
                  + (" and the report" if finished else "") + f" into {destination}"
                  if members else "no finished member: nothing recorded")
        failure = failure_line(workdir) if jax.process_index() == 0 else None
        if failure:
            raise SystemExit(failure)  # exit status 1, as a failed single run
        return
    summary = train(config, workdir, start_time=START_TIME, resume_with=resume_with,
                    refinish=_REFINISH.value, overrides=overridden_fields(sys.argv))
    for member in summary["members"]:
        wanted = ("seq_acc", "/bleu", "/chrf")
        final = ", ".join(f"{as_column(k)}={v:.4f}"
                          for k, v in member["final"].items() if any(w in k for w in wanted))
        print(f"member {member['member']} (seed {member['seed']}): {final}")
        solved = member.get(TIME_TO_SOLVED)
        if solved is not None:
            print(f"  reached {SOLVED_SEQ_ACC} sequence accuracy on seen lengths at step "
                  f"{member[FIRST_STEP_SOLVED]}, {solved:.1f} s after start")
    memory = summary["memory"]
    print(f"wall time {summary['wall_time_s']:.1f} s; peak memory: " +
          ", ".join(f"{k} {v:.0f}" for k, v in memory.items()))
    from attention_research.training.timing import describe
    print(describe(summary["time"]))
    for warning in summary.get("warnings", []):  # last, where a reader looks
        print(f"warning: {warning}")


def overridden_fields(argv) -> list[str]:
    """The config fields the command line sets: ``--config.train.learning_rate=1e-3`` ->
    'train.learning_rate'."""
    return [a[len("--config."):].partition("=")[0] for a in argv[1:]
            if a.startswith("--config.")]


def exit_now(code) -> None:
    """Exit as ``sys.exit(code)`` would, without Python's module-by-module teardown of
    JAX, XLA, orbax and matplotlib (about a second, after the run's summary is written;
    issue 39). Every file the run writes is closed by then; the exit handlers (orbax's,
    JAX's, logging's) still run, and a message is printed as Python prints one."""
    import atexit
    import os
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    try:
        app.run(main, flags_parser=parse_flags)
    except SystemExit as stop:
        exit_now(stop.code)
    exit_now(0)
