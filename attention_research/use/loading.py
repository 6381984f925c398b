"""Finding a trained model in a work directory and restoring its parameters, reading
only: nothing in the directory is created, changed or locked.

A single run keeps its checkpoints in ``<workdir>/checkpoints``; a sweep member's are
its cohort's, ``<sweep>/cohorts/<id>/checkpoints``, stacked with the other members'
(running/sweep.py), and the member is the one whose config the checkpoint recorded.
The parameters used are the ones the run's final evaluation uses (training/loop.py's
``final_parameters``): the best by ``train.best_metric`` kept in the newest checkpoint,
the mean of the last ``train.average_last`` checkpoints of a finished run, or the
newest checkpoint's; ``step=N`` takes checkpoint N's own parameters instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jax
import ml_collections
import numpy as np

from attention_research import models
from attention_research.attention import training_signal
from attention_research.errors import RunError, did_you_mean
from attention_research.running.checkpoints import Checkpoints
from attention_research.running.workdir import read_json
from attention_research.tasks import get_task
from attention_research.training.mesh import AXES, Placement
from attention_research.training.selection import average_parameters
from attention_research.training.state import make_initializer, make_optimizer, member_hyperparams


class NoRunError(RunError):
    """A path that holds no usable trained model: no run, no such member, no checkpoint."""


@dataclass
class Located:
    member_dir: Path  # the run's own directory (a sweep member's members/<name>/)
    checkpoint_dir: Path
    configs: list  # every member's config of the checkpoint (ConfigDicts)
    index: int  # this member's place among them


@dataclass
class Restored:
    """A member's model, ready to use: its config, task and model, the stacked
    parameters of its cohort ([M, …]) with its index, and which checkpoint gave them."""
    config: ml_collections.ConfigDict
    task: object
    model: object
    params: object  # stacked over the cohort's members
    index: int
    placement: Placement
    member_dir: Path
    used: str  # e.g. "the best by eval/bleu_lc/validation (step 7500), checkpoint of step 8000"
    step: int  # the checkpoint's step
    finished: bool
    compiled: dict = field(default_factory=dict)  # jitted functions, made once a setting

    @property
    def member_params(self):
        """This member's parameters alone (no member axis)."""
        return jax.tree_util.tree_map(lambda x: x[self.index], self.params)


def as_config(saved: dict) -> ml_collections.ConfigDict:
    """A config saved as JSON, with its lists back as the tuples a config holds."""
    def tuples(value):
        if isinstance(value, dict):
            return {k: tuples(v) for k, v in value.items()}
        if isinstance(value, list):
            return tuple(tuples(v) for v in value)
        return value
    return ml_collections.ConfigDict(tuples(saved))


def _members(sweep: Path) -> list[str]:
    return sorted(p.name for p in (sweep / "members").glob("*") if (p / "config.json").is_file())


def _listed(names: list[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


def choose_member(sweep: Path, member: str | None) -> Path:
    """The member directory of ``sweep`` named ``member`` (its whole name, or a part
    only one member's name holds); refused with the choices."""
    names = _members(sweep)
    if not names:
        raise NoRunError(f"{sweep} is a sweep with no trained member yet (members/ holds no "
                         "config.json): train it first (python launch.py --config=... "
                         f"--workdir={sweep})")
    if member is None:
        raise NoRunError(f"{sweep} is a sweep of {len(names)} members: name one with "
                         f"--member (member= in Python: its whole name or a part only it holds): "
                         f"{_listed(names)}")
    if member in names:
        return sweep / "members" / member
    matching = [n for n in names if member in n]
    if len(matching) == 1:
        return sweep / "members" / matching[0]
    if matching:
        raise NoRunError(f"--member={member!r} matches {len(matching)} members of {sweep}: "
                         f"{_listed(matching)}; give more of the name")
    raise NoRunError(f"--member={member!r} is not a member of {sweep}"
                     f"{did_you_mean(member, names)}; its members: {_listed(names)}")


def locate(workdir, member: str | None = None) -> Located:
    """Where the run (or the sweep's ``member``) of ``workdir`` keeps its config and
    checkpoints, and which member of the checkpoint it is."""
    path = Path(workdir)
    if not path.is_dir():
        raise NoRunError(f"{path} does not exist: pass the --workdir a run was trained in "
                         "(python launch.py --config=... --workdir=...)")
    if (path / "members").is_dir() or (path / "cohorts").is_dir():
        member_dir = choose_member(path, member)
        saved = read_json(member_dir / "config.json")
        for directory in sorted((path / "cohorts").glob("*/checkpoints")):
            steps = Checkpoints(directory, read_only=True).all_steps()
            configs = Checkpoints(directory, read_only=True).saved_configs(steps[-1]) \
                if steps else None
            if configs and saved in configs:
                return Located(member_dir, directory, [as_config(c) for c in configs],
                               configs.index(saved))
        raise NoRunError(f"no checkpoint in {path / 'cohorts'} holds {member_dir.name}: its "
                         "cohort has not saved one yet (it saves every "
                         f"train.checkpoint_every={saved['train']['checkpoint_every']} steps), "
                         "or its checkpoints were deleted (a recorded member keeps none)")
    if member is not None:
        raise NoRunError(f"{path} is a single run, not a sweep: leave out --member (member=)")
    if not (path / "config.json").is_file():
        raise NoRunError(f"{path} holds no run (no config.json): pass the --workdir a run "
                         "was trained in (python launch.py --config=... --workdir=...)")
    config = read_json(path / "config.json")
    return Located(path, path / "checkpoints", [as_config(config)], 0)


def single_device_placement(members: int) -> Placement:
    """One device: a trained model is used where it is loaded, whatever mesh trained it."""
    mesh = jax.make_mesh((1, 1), AXES, devices=jax.devices()[:1],
                         axis_types=(jax.sharding.AxisType.Auto,) * len(AXES))
    return Placement(mesh, members)


def restore(workdir, member: str | None = None, step: int | None = None) -> Restored:
    """The model of ``workdir`` (a sweep's ``member``), with the parameters its final
    evaluation uses, or checkpoint ``step``'s."""
    found = locate(workdir, member)
    config = found.configs[found.index]
    train = config.train
    if not found.checkpoint_dir.is_dir() or not (
            steps := Checkpoints(found.checkpoint_dir, read_only=True).all_steps()):
        raise NoRunError(f"{found.member_dir} has no checkpoint yet: the run saves its first "
                         f"at step {train.checkpoint_every} (train.checkpoint_every)")
    if step is not None and step not in steps:
        raise NoRunError(f"--step={step} (step=): {found.checkpoint_dir} holds the checkpoints of steps "
                         f"{', '.join(map(str, steps))}")
    checkpoints = Checkpoints(found.checkpoint_dir, read_only=True,
                              regular=lambda s: s % train.checkpoint_every == 0
                              or s == train.num_steps)
    task = get_task(config.task.name)(config, [c.seed for c in found.configs], verbose=False)
    model = models.make_model(config, task.vocab_size, task.vocab_size)
    placement = single_device_placement(len(found.configs))
    template = _template(found.configs, task, model, placement)
    chosen = steps[-1] if step is None else step
    finished = chosen == train.num_steps or _stopped_early(found.member_dir, chosen)
    kept = bool(train.best_metric)
    restored = checkpoints.restore(chosen, (template, _kept_template(template, placement))
                                   if kept else template)
    state, best = restored if kept else (restored, None)
    if step is None and best is not None:
        params = best["params"]
        best_step = int(np.asarray(best["step"])[found.index])
        used = (f"the best by {train.best_metric} so far (step {best_step}), kept in the "
                f"checkpoint of step {chosen}")
    elif step is None and train.average_last and finished:
        params, averaged = average_parameters(checkpoints, template, train.average_last)
        used = f"the mean of the checkpoints of steps {', '.join(map(str, averaged))}"
    else:
        params = state.params
        used = f"the parameters of the checkpoint of step {chosen}"
    return Restored(config, task, model, params, found.index, placement, found.member_dir,
                    used, chosen, finished)


def _stopped_early(member_dir: Path, step: int) -> bool:
    path = member_dir / "summary.json"
    if not path.is_file():
        return False
    summary = read_json(path)
    return summary.get("status") == "finished" and summary.get("steps") == step


def _template(configs, task, model, placement):
    """The stacked train state's shapes and placement, to restore into (no values made)."""
    initializer = make_initializer(model, make_optimizer(configs[0].train),
                                   task.example_batch(), placement.members,
                                   training_signal(configs[0].model.attention))
    shapes = jax.eval_shape(lambda: initializer([c.seed for c in configs],
                                                member_hyperparams(configs)))
    return jax.tree_util.tree_map(
        lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=placement.members), shapes)


def _kept_template(template, placement):
    """What ``selection.BestParameters`` keeps beside the state: params, value, step."""
    members = jax.tree_util.tree_leaves(template.params)[0].shape[0]
    one = lambda dtype: jax.ShapeDtypeStruct((members,), dtype, sharding=placement.replicated)
    return {"params": template.params, "value": one(np.float32), "step": one(np.int32)}


def describe_source(restored: Restored) -> str:
    """One line: which run, which checkpoint, finished or not."""
    state = ("finished" if restored.finished
             else f"in progress: step {restored.step} of {restored.config.train.num_steps}")
    return f"{restored.member_dir} ({state}): {restored.used}"
