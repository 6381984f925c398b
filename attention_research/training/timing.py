"""Where a run's wall time goes (issue 39): phases that add up to it.

A ``Stopwatch`` charges every second from the run's start to exactly one phase, the
one current when it passed, so the phases sum to the wall time by construction:

    startup        imports, the config, the task's data, the model, its functions
    setup          the initial state, a checkpoint restored
    train_compile  the train call compiled (or loaded from the compilation cache)
    training       train calls, their logs and health checks
    evaluation     held-out evaluations during training, their compilation included
    checkpoints    saving checkpoints, and waiting for an asynchronous save
    final          the final parameters, their evaluation, plots and summaries

Compilation is also counted apart, per phase, from JAX's own monitoring events
(``jax.monitoring``): seconds tracing, lowering and compiling (a program loaded from
the persistent cache counts as compiled, with its load time), programs compiled and
cache hits. That a first evaluation stalls for seconds because it compiles, and not
because it computes, is read off one run's ``summary.json`` this way.

Compilation in another thread (``loop.py``: a symbol task's train step, compiled while
setup makes the state, and the evaluation programs, compiled while the first train calls
run) is counted under ``background``: it overlaps the phases, so it adds no wall time to
any of them; ``train_compile`` then holds only the wait for the train step.

A run resumed from a checkpoint reports the phases of this process only
(``time.resumed_at_step`` says from where); ``wall_time_s`` stays the run's total.
"""

from __future__ import annotations

import contextlib
import threading
import time

PHASES = ("startup", "setup", "train_compile", "training", "evaluation", "checkpoints",
          "final")

# JAX's monitoring events (jax/_src/dispatch.py and compiler.py, as named in JAX 0.10;
# a version that renamed them would leave the compilation counts at zero, never the
# phases). A trace or lowering without a compile after it (a jit cache hit) records
# nothing.
TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"  # cache loads included
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"

# Per phase: seconds in all (tracing_s tracing and lowering to StableHLO, backend_s
# XLA compiling or loading from the cache), programs compiled or loaded, cache hits.
COMPILATION_FIELDS = ("seconds", "tracing_s", "backend_s", "programs", "cache_hits")
BACKGROUND = "background"  # compilation in other threads, overlapping the phases

_active: list["Stopwatch"] = []  # the stopwatch JAX's events are charged to
_listening = False


def _on_duration(event: str, seconds: float, **_):
    if _active and event in (TRACE_EVENT, LOWER_EVENT, COMPILE_EVENT):
        _active[-1].add_compilation(seconds, backend=event == COMPILE_EVENT)


def _on_event(event: str, **_):
    if _active and event == CACHE_HIT_EVENT:
        _active[-1].add_cache_hit()


def _listen():
    """JAX's listeners are process-wide: register two once, which forward to the
    newest open stopwatch (a sweep's cohorts, or the tests' runs, open one each)."""
    global _listening
    if not _listening:
        import jax.monitoring
        jax.monitoring.register_event_duration_secs_listener(_on_duration)
        jax.monitoring.register_event_listener(_on_event)
        _listening = True


class Stopwatch:
    """Exclusive phases of one process's share of a run; see the module docstring."""

    def __init__(self, start_time: float, phase: str = "startup"):
        _listen()
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.compilation = {p: dict.fromkeys(COMPILATION_FIELDS, 0)
                            for p in (*PHASES, BACKGROUND)}
        self.thread = threading.get_ident()  # the thread whose time the phases are
        self.current, self.since = phase, start_time
        self.evaluations: list[dict] = []  # one row per evaluation (see ``evaluation``)
        _active.append(self)

    def close(self):
        if self in _active:
            _active.remove(self)

    def switch(self, phase: str) -> str:
        """Charge the time since the last switch to the current phase, start ``phase``;
        returns the phase it left."""
        if phase not in self.seconds:
            raise ValueError(f"unknown phase {phase!r}; the phases are {', '.join(PHASES)}")
        now = time.time()
        self.seconds[self.current] += now - self.since
        left, self.current, self.since = self.current, phase, now
        return left

    @contextlib.contextmanager
    def phase(self, name: str):
        left = self.switch(name)
        try:
            yield
        finally:
            self.switch(left)

    @contextlib.contextmanager
    def evaluation(self, step: int, kind: str = "full"):
        """One evaluation, charged to the evaluation phase (or the final one's, if
        inside it) and recorded with its own seconds and compilation seconds."""
        phase = "final" if self.current == "final" else "evaluation"
        compiled = self.compilation[phase]["seconds"]
        start = time.time()
        with self.phase(phase):
            yield
        self.evaluations.append({
            "step": int(step), "kind": kind, "seconds": round(time.time() - start, 3),
            "compile_s": round(self.compilation[phase]["seconds"] - compiled, 3)})

    def _bucket(self) -> str:
        return self.current if threading.get_ident() == self.thread else BACKGROUND

    def add_compilation(self, seconds: float, backend: bool):
        entry = self.compilation[self._bucket()]
        entry["seconds"] += seconds
        entry["backend_s" if backend else "tracing_s"] += seconds
        entry["programs"] += int(backend)

    def add_cache_hit(self):
        self.compilation[self._bucket()]["cache_hits"] += 1

    def report(self) -> dict:
        """Seconds per phase (the current one up to now), their sum, compilation per
        phase, and the evaluations' rows: what ``summary.json`` keeps under ``time``."""
        seconds = dict(self.seconds)
        seconds[self.current] += time.time() - self.since
        compiled = {p: {k: round(v, 3) for k, v in c.items()}
                    for p, c in self.compilation.items() if c["programs"] or c["seconds"]}
        return {"phases_s": {p: round(s, 3) for p, s in seconds.items()},
                "total_s": round(sum(seconds.values()), 3),
                "compilation": compiled,
                "evaluations": self.evaluations}


def sum_reports(reports) -> dict:
    """Phases, compilation and evaluation counts summed over several reports (a
    sweep's cohorts)."""
    reports = [r for r in reports if r]
    phases = {p: round(sum(r["phases_s"].get(p, 0.0) for r in reports), 3) for p in PHASES}
    compilation = {}
    for report in reports:
        for phase, entry in report["compilation"].items():
            total = compilation.setdefault(phase, dict.fromkeys(COMPILATION_FIELDS, 0))
            for key, value in entry.items():
                total[key] = round(total.get(key, 0) + value, 3)
    evaluations = [e for r in reports for e in r["evaluations"]]
    return {"phases_s": phases, "total_s": round(sum(phases.values()), 3),
            "compilation": compilation, "evaluations": len(evaluations),
            "evaluation_s": round(sum(e["seconds"] for e in evaluations), 3)}


def compilation_words(entry: dict | None) -> str:
    """'compiling 4.7 s (tracing 1.2 s), 2 program(s), 2 from the cache' for one
    ``compilation`` entry; '' for none or under 0.05 s."""
    if not entry or entry["seconds"] < 0.05:
        return ""
    return (f"compiling {entry['seconds']:.1f} s (tracing {entry['tracing_s']:.1f} s), "
            f"{entry['programs']} program(s)"
            + (f", {entry['cache_hits']} from the cache" if entry["cache_hits"] else ""))


def describe(report: dict) -> str:
    """A few lines for the end of a run: each phase's seconds and share, and what of it
    was compilation; then what compiled beside training."""
    total = report["total_s"] or 1.0
    lines = []
    for phase, seconds in report["phases_s"].items():
        if seconds >= 0.05:
            compiled = compilation_words(report["compilation"].get(phase))
            lines.append(f"  {phase:<14}{seconds:8.1f} s {100 * seconds / total:5.1f}%"
                         + (f"   {compiled}" if compiled else ""))
    background = compilation_words(report["compilation"].get(BACKGROUND))
    if background:
        lines.append(f"  {BACKGROUND:<14}{background}, beside training")
    return "\n".join(lines)
