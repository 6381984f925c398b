"""Run one experiment config.

    python launch.py --config=configs/additive.py
    python launch.py --config=configs/additive.py:task=copy --config.train.num_steps=500
    python launch.py --config=configs/dot.py --workdir=/tmp/dot

Without --workdir the run goes to runs/<config>[_<argument>]; running the same
command again resumes it from its last checkpoint.
"""

import time

START_TIME = time.time()  # before the heavy imports: start-up counts in the run's time

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from absl import app, flags, logging  # noqa: E402
from ml_collections import config_flags  # noqa: E402

_CONFIG = config_flags.DEFINE_config_file("config", None, "Experiment config file[:argument].",
                                          lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "Work directory; default runs/<config>.")
flags.mark_flag_as_required("config")


def default_workdir(config_spec: str) -> str:
    """runs/additive for configs/additive.py; runs/additive_task-copy for ...:task=copy."""
    path, _, argument = config_spec.partition(":")
    name = Path(path).stem
    if argument:
        name += "_" + re.sub(r"[^A-Za-z0-9.]+", "-", argument)
    return str(Path("runs") / name)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    logging.set_verbosity(logging.WARNING)  # orbax logs every save at INFO
    from attention_research.checkpoints import CheckpointError
    from attention_research.config_checks import ConfigError, validate
    from attention_research.training.loop import train
    from attention_research.workdir import ConfigMismatchError

    config = _CONFIG.value
    try:
        validate(config)  # before anything is compiled or written
    except ConfigError as error:
        raise SystemExit(f"error: {error}")
    # config_filename keeps the ':argument' part, which names the default workdir.
    workdir = _WORKDIR.value or default_workdir(
        config_flags.get_config_filename(flags.FLAGS["config"]))
    print(f"work directory: {workdir}")
    try:
        summary = train(config, workdir, start_time=START_TIME)
    except (ConfigMismatchError, CheckpointError) as error:
        raise SystemExit(f"error: {error}")
    for member in summary["members"]:
        final = ", ".join(f"{k.removeprefix('eval/')}={v:.4f}"
                          for k, v in member["final"].items() if "seq_acc" in k)
        print(f"member {member['member']} (seed {member['seed']}): {final}")
        solved = member["time_to_seq_acc_0.99_s"]
        if solved is not None:
            print(f"  reached 0.99 sequence accuracy on seen lengths at step "
                  f"{member['first_step_seq_acc_0.99']}, {solved:.1f} s after start")
    memory = summary["memory"]
    print(f"wall time {summary['wall_time_s']:.1f} s; peak memory: " +
          ", ".join(f"{k} {v:.0f}" for k, v in memory.items()))


if __name__ == "__main__":
    app.run(main)
