"""SIGTERM and SIGINT as a clean stop: finish the step, checkpoint, flush, exit.

SIGTERM is how Slurm, Kubernetes and spot/preemptible VMs stop a job, a grace period
before they kill it; SIGINT is Ctrl-C. While a run trains (``stop_on_signals``), the
first of either only asks it to stop: the loop goes on to the next log boundary, so
that the logged averages and the evaluations are those of an uninterrupted run, saves
a checkpoint there, flushes its logs and raises ``Preempted``. ``launch.py`` prints
its one line and exits 143 (SIGTERM) or 130 (SIGINT), as a process killed by the
signal would. Rerunning the same command resumes exactly.

A second signal stops at once (``os._exit``, after one line): the work directory keeps
what its last checkpoint and log hold, as after ``kill -9``. Not ``KeyboardInterrupt``:
raised from a handler it lands wherever Python is, and one that landed in a garbage
collector callback of JAX's was printed as ignored, and the run went on to the end.

``launch.py`` asks for the stop from its first line (``stop_now``, while nothing is
written yet, exits at once) and from its first write on (``stop_on_signals``). A stop
asked before training begins is acted on before the first train call.

A checkpoint saved on a stop falls between the regular ones (``train.checkpoint_every``).
``Checkpoints`` keeps room for it and deletes it once a newer regular checkpoint is
saved, and ``train.average_last`` averages regular checkpoints only, so a preempted
run ends with the checkpoints, and the averaged parameters, of an uninterrupted one.

Before this handler, Ctrl-C raised ``KeyboardInterrupt`` wherever Python happened to
be, sometimes inside a JAX or orbax call with threads still writing, and a run twice
ended in a segmentation fault after its last line. A stop now always leaves through
the loop: the pending save is waited for and every writer closed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

from attention_research.errors import RunError

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Preempted(RunError):
    """The run stopped on a signal, at a step it can resume from exactly."""

    def __init__(self, signum: int, step: int | None, cohort: tuple[int, int] | None = None):
        """``cohort``: (k, n) when a sweep stopped in (or, with ``step`` None, before)
        its cohort k of n; the cohorts before it are finished and saved."""
        self.signum, self.step = signum, step
        where = (f"at step {step}, its checkpoint saved" if step
                 else "before training began" if step == 0
                 else "between cohorts, every finished cohort saved")
        if cohort is not None:
            k, n = cohort
            where = (f"before cohort {k} of {n}" if step is None
                     else f"in cohort {k} of {n}, "
                     + (f"at step {step}, its checkpoint saved" if step else "before it trained"))
            where += ("; the cohorts before it are finished and saved" if k > 1 else "")
        super().__init__(f"stopped by {signal.Signals(signum).name} {where}: rerun the same "
                         "command to resume")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # as the shell reports a process the signal ended


_requested: list[int] = []  # the signal that asked for a stop, while one is pending
_depth = 0  # nested stop_on_signals (a sweep around its cohorts)
_began = False  # whether stop_on_signals was entered: the run may have written since


def requested() -> int | None:
    """The signal that asked the run to stop, or None."""
    return _requested[0] if _requested else None


def signal_name() -> str:
    """The name of the signal that asked to stop ('SIGTERM'), or '' if none did."""
    return signal.Signals(_requested[0]).name if _requested else ""


def _exit_now(signum, message: str):
    os.write(2, b"\n" + message.encode() + b"\n")  # below a progress bar
    os._exit(128 + signum)


def _ask_to_stop(signum, frame):
    if _requested:  # the second signal: stop now
        _exit_now(signum, f"stopped at once by a second {signal.Signals(signum).name}: rerun "
                          "the same command to resume from the last checkpoint")
    _requested.append(signum)


def stop_now(signum, frame):
    """A handler for while no stop can be asked for: a process starting, before anything
    is written, or one ending, after its run (whose saves and logs are kept). Exits at
    once; the line says which (a second Ctrl-C while a checkpoint was still being
    written said "nothing was written" when 150 steps were saved, issue 72)."""
    name = signal.Signals(signum).name
    _exit_now(signum, f"stopped at once by {name}: the checkpoints and logs written so far "
                      "are kept; rerun the same command to resume" if _began
              else f"stopped by {name} before the run began; nothing was written")


def install_stop_now():
    """``stop_now`` for SIGTERM and SIGINT, where Python can install handlers."""
    if threading.current_thread() is threading.main_thread():
        for s in SIGNALS:
            signal.signal(s, stop_now)


@contextlib.contextmanager
def stop_on_signals():
    """While inside, SIGTERM and SIGINT ask for a stop (``requested``) instead of
    killing the process; the handlers before are restored on leaving. Outside the main
    thread (where Python cannot install handlers) it does nothing."""
    global _depth, _began
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _began = True
    if _depth == 0:
        _requested.clear()
        previous = {s: signal.signal(s, _ask_to_stop) for s in SIGNALS}
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            for s, handler in previous.items():
                signal.signal(s, handler)
            _requested.clear()
