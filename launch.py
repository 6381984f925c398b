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
(attention_research/compilation_cache.py), so a second run skips compiling.
"""

import time

START_TIME = time.time()  # before the heavy imports: start-up counts in the run's time

import importlib.util  # noqa: E402
import inspect  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from absl import app, flags, logging  # noqa: E402
from ml_collections import config_flags  # noqa: E402

_CONFIG = config_flags.DEFINE_config_file("config", None, "Experiment config file[:argument].",
                                          lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Work directory; default runs/<config>.")
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
_RECORD = flags.DEFINE_bool(
    "record", False, "Sweeps: afterwards, copy the report and every finished member into "
    "results/<name>/ beside the sweep file (experiments/results/NAME/), replacing files of "
    "the same name and deleting nothing (attention_research/record.py).")
_COMPILATION_CACHE = flags.DEFINE_string(
    "compilation_cache", None, "Directory of JAX's persistent compilation cache; 'off' turns "
    "it off. Default: $ATTENTION_RESEARCH_COMPILATION_CACHE, else "
    "~/.cache/attention_research/jax.")
flags.mark_flag_as_required("config")


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


def load_sweep(config_spec: str):
    """get_sweep() of the config file (given the config argument if it takes one), or
    None for a single run."""
    path, _, argument = config_spec.partition(":")
    spec = importlib.util.spec_from_file_location("_launched_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "get_sweep"):
        return None
    takes_argument = bool(inspect.signature(module.get_sweep).parameters)
    return module.get_sweep(argument or None) if takes_argument else module.get_sweep()


def record_destination(config_spec: str) -> Path:
    """results/<name> beside the sweep file: experiments/results/NAME for experiments/NAME.py."""
    path = Path(config_spec.partition(":")[0])
    return path.parent / "results" / path.stem


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    logging.set_verbosity(logging.WARNING)  # orbax logs every save at INFO
    if _DISTRIBUTED.value:
        from attention_research.training.mesh import initialize_distributed
        initialize_distributed(_COORDINATOR.value, _NUM_PROCESSES.value, _PROCESS_ID.value)
    import jax
    from attention_research import compilation_cache
    from attention_research.checkpoints import CheckpointError
    from attention_research.config_checks import ConfigError, validate
    from attention_research.record import record
    from attention_research.training.loop import train
    from attention_research.training.sweep import run_sweep
    from attention_research.workdir import ConfigMismatchError

    compilation_cache.enable(_COMPILATION_CACHE.value)

    part = parse_part(_PART.value)
    config = _CONFIG.value
    try:
        validate(config)  # before anything is compiled or written
    except ConfigError as error:
        raise SystemExit(f"error: {error}")
    # config_filename keeps the ':argument' part, which names the default workdir.
    spec = config_flags.get_config_filename(flags.FLAGS["config"])
    workdir = _WORKDIR.value or default_workdir(spec)
    print(f"work directory: {workdir}")
    try:
        sweep = load_sweep(spec)
        if sweep is not None:
            command = shlex.join(["python", Path(sys.argv[0]).name, *sys.argv[1:]])
            finished = run_sweep(config, sweep, workdir, part=part, command=command)
            if finished and jax.process_index() == 0:
                print((Path(workdir) / "summary.md").read_text())
            if _RECORD.value and jax.process_index() == 0:
                destination = record_destination(spec)
                members = record(workdir, destination)
                print(f"recorded {len(members)} finished member(s)"
                      + (" and the report" if finished else "") + f" into {destination}")
            return
        if part != (1, 1) or _RECORD.value:
            raise app.UsageError("--part and --record are for sweeps; this config has no "
                                 "get_sweep()")
        summary = train(config, workdir, start_time=START_TIME)
    except (ConfigError, ConfigMismatchError, CheckpointError) as error:
        raise SystemExit(f"error: {error}")
    for member in summary["members"]:
        wanted = ("seq_acc", "/bleu", "/chrf")
        final = ", ".join(f"{k.removeprefix('eval/')}={v:.4f}"
                          for k, v in member["final"].items() if any(w in k for w in wanted))
        print(f"member {member['member']} (seed {member['seed']}): {final}")
        solved = member.get("time_to_seq_acc_0.99_s")
        if solved is not None:
            print(f"  reached 0.99 sequence accuracy on seen lengths at step "
                  f"{member['first_step_seq_acc_0.99']}, {solved:.1f} s after start")
    memory = summary["memory"]
    print(f"wall time {summary['wall_time_s']:.1f} s; peak memory: " +
          ", ".join(f"{k} {v:.0f}" for k, v in memory.items()))


if __name__ == "__main__":
    app.run(main)
