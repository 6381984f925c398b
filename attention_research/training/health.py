"""Is a member's training healthy? Non-finite values, and divergence with finite ones.

Non-finite values are caught on the device. Each train step (``steps.py``) checks
the loss, the gradient norm and the updated parameters of every member. It records
the step of the first non-finite one, and what went wrong, in
``TrainState.failed_step`` and ``TrainState.failure``. The member then keeps the
finite state it began that train call with (at most ``steps_per_call`` steps before
the failure) and stays frozen while the rest of its cohort trains on. The host reads
those two fields only where it waits for the device anyway: at each log, each
evaluation and each checkpoint. The check adds no synchronisation.

Divergence with a finite loss, such as a loss of 1e8 under a huge learning rate, is
found on the host from the logged training loss (``DivergenceMonitor``). It gives a
warning in the progress output and in ``summary.json``, and does not stop the run.
"""

from __future__ import annotations

import math
from collections import deque

import jax
import jax.numpy as jnp

from attention_research.errors import RunError

# What went non-finite: bits of TrainState.failure.
LOSS, GRADIENT, PARAMETERS = 1, 2, 4
QUANTITIES = {LOSS: "the training loss", GRADIENT: "the gradient norm",
              PARAMETERS: "the updated parameters"}


class NonFiniteError(RunError):
    """Training produced a NaN or an infinity; nothing non-finite was saved."""


def failure_bits(loss, grad_norm, params_finite):
    """The ``failure`` bits of one step, 0 when the loss, the gradient norm and the
    updated parameters are all finite (traceable)."""
    return (jnp.where(jnp.isfinite(loss), 0, LOSS)
            | jnp.where(jnp.isfinite(grad_norm), 0, GRADIENT)
            | jnp.where(params_finite, 0, PARAMETERS)).astype(jnp.int32)


def all_finite(tree):
    """One boolean: every floating-point leaf of ``tree`` is finite (traceable)."""
    checks = [jnp.all(jnp.isfinite(leaf)) for leaf in jax.tree_util.tree_leaves(tree)
              if jnp.issubdtype(leaf.dtype, jnp.floating)]
    return jnp.all(jnp.stack(checks)) if checks else jnp.bool_(True)


def describe_failure(failure: int) -> str:
    names = [name for bit, name in QUANTITIES.items() if failure & bit]
    if len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return names[0] if names else "a value"


def failure_message(config, member: int, step: int, failure: int,
                    last_checkpoint: int | None) -> str:
    """What went wrong with a member, and what is likely to fix it."""
    train = config.train
    kept = (f"the last checkpoint, of step {last_checkpoint}, is finite and kept"
            if last_checkpoint else "no checkpoint had been saved yet")
    # Advice names values other than those in use (issue 37: it once suggested
    # warmup_steps=0 to a run whose warm-up was 0).
    remedies = [f"--config.train.learning_rate={train.learning_rate / 10:g} (now "
                f"{train.learning_rate:g})"]
    warmup = min(max(2 * train.warmup_steps, 100), train.num_steps // 2)
    if warmup > train.warmup_steps:
        remedies.append(f"a longer warm-up, --config.train.warmup_steps={warmup} (now "
                        f"{train.warmup_steps})")
    remedies.append(f"harder gradient clipping, --config.train.grad_clip_norm="
                    f"{train.grad_clip_norm / 4:g} (now {train.grad_clip_norm:g})")
    what = (f"member {member} (seed {config.seed}, learning rate {train.learning_rate:g}): "
            f"{describe_failure(failure)} became non-finite (NaN or infinity) at step {step}. ")
    if step == 1 and failure & (LOSS | GRADIENT):
        return what + _first_step_cause(failure) + f" No non-finite state was saved; {kept}."
    return (what + "Likely cause: the learning rate is too high for this model. Try "
            + ", or ".join(remedies) + f". No non-finite state was saved; {kept}.")


def _first_step_cause(failure: int) -> str:
    """Step 1's loss and gradient come from the initial parameters, before any update,
    so no learning rate, warm-up or clipping can have caused them."""
    computed = "loss" if failure & LOSS else "gradient"
    cause = (f"At step 1 the parameters are the initial ones, so the learning rate is not "
             f"the cause: the model computed a non-finite {computed} from its "
             f"initialisation and the first batch. To find the operation that made it, "
             f"rerun with JAX_DEBUG_NANS=True.")
    if jax.default_backend() == "gpu":
        # experiments/results/gpu/README.md, 2026-11-27: a bidirectional RNN's first
        # gradient was NaN at full float32 on a loaded H200, finite on a fresh one.
        cause += (" On a GPU, such a first-step failure at JAX_DEFAULT_MATMUL_PRECISION="
                  "highest has been seen that a rerun did not repeat (docs/speed.md).")
    return cause


class DivergenceMonitor:
    """Warnings about one member's logged training loss, each given once.

    - *Far above its start*: the untrained model predicts about uniformly, so its
      loss is near ln(vocabulary size). A loss more than ``FAR_ABOVE`` times that has
      diverged, even if it is finite.
    - *Rising for a long stretch*: the mean of the last ``WINDOW`` logged losses is
      more than ``RISE`` × ln(vocabulary size) nats above the lowest such mean so
      far. Noise does not trigger it; a run that has turned around does.
    - *Flat*, at the end of a run of at least ``WINDOW`` logs: the last logged loss is
      within ``FLAT`` of the first (a learning rate of 1e-35 finished at sequence
      accuracy 0 with no word, issue 72).

    The monitor is rebuilt from ``metrics.jsonl`` on resume, so a resumed run warns
    exactly as an uninterrupted one would.
    """

    FAR_ABOVE = 3.0
    WINDOW = 10
    RISE = 0.1
    FLAT = 0.01  # relative

    def __init__(self, vocab_size: int):
        self.start = math.log(vocab_size)
        self.first: tuple[int, float] | None = None  # the first logged (step, loss)
        self.last: tuple[int, float] | None = None
        self.logs = 0  # finite losses logged
        self.losses: deque[float] = deque(maxlen=self.WINDOW)  # the last WINDOW logs
        self.lowest_mean = math.inf
        self.warnings: list[str] = []
        self._given: set[str] = set()

    def update(self, step: int, loss: float) -> list[str]:
        """Take the loss logged at ``step``; return the warnings it raises for the first time."""
        new = []
        if not math.isfinite(loss):
            return new  # the non-finite check reports these
        self.first = self.first or (step, loss)
        self.last = (step, loss)
        self.logs += 1
        if loss > self.FAR_ABOVE * self.start:
            new += self._warn("far above", f"train loss {loss:.3g} at step {step} is "
                              f"{loss / self.start:.3g}x the untrained model's "
                              f"{self.start:.3g} (ln of the vocabulary size): training has "
                              "diverged; lower the learning rate")
        self.losses.append(loss)
        if len(self.losses) >= self.WINDOW:
            mean = sum(self.losses) / self.WINDOW
            if mean > self.lowest_mean + self.RISE * self.start:
                new += self._warn("rising", f"train loss has been rising: its mean over the "
                                  f"last {self.WINDOW} logs, {mean:.3g} at step {step}, is "
                                  f"{mean - self.lowest_mean:.3g} nats above its lowest, "
                                  f"{self.lowest_mean:.3g}; consider a lower learning rate")
            self.lowest_mean = min(self.lowest_mean, mean)
        return new

    def finish(self) -> list[str]:
        """At the end of training: warn if the loss ended where it began."""
        if self.logs < self.WINDOW \
                or abs(self.last[1] - self.first[1]) > self.FLAT * self.first[1]:
            return []  # too short to tell (a smoke run), or it fell (or rose: see rising)
        return self._warn("flat", f"train loss did not fall: {self.first[1]:.4g} at step "
                          f"{self.first[0]}, {self.last[1]:.4g} at step {self.last[0]}; the "
                          "model learned nothing (check train.learning_rate and the data)")

    def _warn(self, kind: str, message: str) -> list[str]:
        if kind in self._given:
            return []
        self._given.add(kind)
        self.warnings.append(message)
        return [message]
