"""Which parameters the final evaluation uses: the last ones, the best so far by a
held-out metric (with optional early stopping), or the average of the last k
checkpoints.

Best checkpoint (``train.best_metric``, e.g. ``eval/bleu/validation``): at every
evaluation each member keeps the parameters of its best value so far (lowest for a
loss, highest otherwise), and the test split is translated with those, as JoeyNMT
and OpenNMT-py do. The best parameters, their value and step travel in every
checkpoint beside the train state, so a resumed run selects what the uninterrupted
one would have. ``train.patience`` > 0 stops the cohort once every member has gone
that many evaluations without improving (JoeyNMT's early stopping); a resumed run
that had stopped stays stopped, since the rule reads only the saved best step.

Checkpoint averaging (``train.average_last`` = k): the final evaluation uses the
element-wise mean of the parameters of the last k checkpoints (Vaswani et al. 2017,
§6.1: the last 5 checkpoints, 10 minutes apart; Junczys-Dowmunt et al. 2016).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

# The starting value: finite (checkpoints refuse non-finite values), worse than any.
_WORST = float(np.finfo(np.float32).max)


def lower_is_better(metric: str) -> bool:
    return "/loss/" in metric


@jax.jit
def _keep_improved(best, params, improved):
    """Each member's params where it improved, its kept best where not."""
    def pick(old, new):
        mask = improved.reshape((-1,) + (1,) * (new.ndim - 1))
        return jnp.where(mask, new, old)
    return jax.tree_util.tree_map(pick, best, params)


class BestParameters:
    """The best parameters of each member so far by one held-out metric."""

    def __init__(self, metric: str, patience: int, eval_every: int, params):
        self.metric, self.patience, self.eval_every = metric, patience, eval_every
        self.sign = 1.0 if lower_is_better(metric) else -1.0  # minimise sign * value
        leaf = jax.tree_util.tree_leaves(params)[0]
        members = leaf.shape[0]
        # The [M] value and step go into every checkpoint beside the params: with
        # several processes they must be global arrays (replicated over the params'
        # mesh), or orbax refuses to write a host-local array.
        sharding = leaf.sharding
        self._place = (lambda x: jax.device_put(x, NamedSharding(sharding.mesh, P()))
                       ) if isinstance(sharding, NamedSharding) else jnp.asarray
        self.state = {"params": params,
                      "value": self._place(np.full((members,), _WORST, np.float32)),
                      "step": self._place(np.zeros((members,), np.int32))}

    @property
    def state(self) -> dict:
        """{'params': stacked params, 'value': [M] sign * metric, 'step': [M]}: what a
        checkpoint holds; setting it (on resume) refreshes the host's copies."""
        return self._state

    @state.setter
    def state(self, state: dict):
        self._state = state
        self.values = np.asarray(jax.device_get(state["value"]), np.float32)
        self.steps = np.asarray(jax.device_get(state["step"]), np.int64)

    def update(self, step: int, params, results, healthy) -> None:
        """Take one evaluation's ``results`` (one dict per member)."""
        values = np.array([self.sign * r["metrics"][self.metric] for r in results],
                          np.float32)
        improved = np.array([healthy(m) and np.isfinite(v) and v < self.values[m]
                             for m, v in enumerate(values)])
        if not improved.any():
            return
        self.state = {
            "params": _keep_improved(self.state["params"], params, jnp.asarray(improved)),
            "value": self._place(np.where(improved, values, self.values).astype(np.float32)),
            "step": self._place(np.where(improved, step, self.steps).astype(np.int32))}

    def set_values(self, values) -> None:
        """Replace the kept values ([M], in the metric's own sign): a run adopted from
        another sweep (adopt.py) whose parameters were kept by another metric that the
        log shows chose the same step."""
        values = (self.sign * np.asarray(values, np.float64)).astype(np.float32)
        self.state = {**self.state, "value": self._place(values)}

    def exhausted(self, step: int, healthy) -> bool:
        """Early stopping: every healthy member ``patience`` evaluations past its best."""
        if not self.patience:
            return False
        waiting = [step - int(self.steps[m]) >= self.patience * self.eval_every
                   for m in range(len(self.steps)) if healthy(m)]
        return bool(waiting) and all(waiting)

    def describe(self, member: int) -> dict:
        """What summary.json records of the choice."""
        value = float(self.values[member])
        return {"metric": self.metric, "step": int(self.steps[member]),
                "value": None if abs(value) == _WORST else self.sign * value}


def average_parameters(checkpoints, template, count: int):
    """The mean of the params of the newest ``count`` regular checkpoints (not one saved
    on a stop, ``preemption.py``), and their steps."""
    steps = [step for step in checkpoints.all_steps() if checkpoints.regular(step)][-count:]
    total = None
    for step in steps:
        params = checkpoints.restore(step, template).params
        total = params if total is None else jax.tree_util.tree_map(jnp.add, total, params)
    return jax.tree_util.tree_map(lambda x: x / len(steps), total), steps
