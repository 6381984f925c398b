"""Devices: a mesh with axes ('member', 'data').

Stacked member states are sharded over 'member' where the cohort size divides that
axis (else replicated), and each member's batch is split over 'data'. One
process or many: the mesh spans ``jax.devices()``, every device of every host.
"""

from __future__ import annotations

import os

import jax
from jax.sharding import NamedSharding, PartitionSpec as P

from attention_research.errors import ConfigError

AXES = ("member", "data")


def mesh_shape(mesh_config, num_devices: int) -> tuple[int, int]:
    """(member, data) device counts; 0 for member means all devices data leaves."""
    data = mesh_config.data
    if data < 1 or num_devices % data:
        raise ConfigError(f"mesh.data={data} must be >= 1 and divide the {num_devices} devices")
    member = mesh_config.member or num_devices // data
    if member * data != num_devices:
        raise ConfigError(f"mesh.member={member} x mesh.data={data} must equal the "
                         f"{num_devices} devices (or set mesh.member=0 to fill them)")
    return member, data


def make_mesh(mesh_config):
    member, data = mesh_shape(mesh_config, jax.device_count())
    # Auto axes: XLA propagates shardings from the inputs (GSPMD); recent JAX
    # defaults to Explicit axes, which would put shardings in every array's type.
    return jax.make_mesh((member, data), AXES,
                         axis_types=(jax.sharding.AxisType.Auto,) * len(AXES))


class Placement:
    """Where a cohort's arrays live on a mesh."""

    def __init__(self, mesh, num_members: int):
        self.mesh = mesh
        self.shard_members = num_members % mesh.shape["member"] == 0
        self.member_axis = "member" if self.shard_members and mesh.shape["member"] > 1 else None
        self.members = NamedSharding(mesh, P("member") if self.shard_members else P())
        self.replicated = NamedSharding(mesh, P())
        self.data = NamedSharding(mesh, P("data"))
        # Host batch blocks [M, steps, B, L]: members as the state, rows over 'data'.
        self.batch_blocks = NamedSharding(
            mesh, P("member" if self.shard_members else None, None, "data"))

    def split_batch(self, batch):
        """Inside the vmapped step: this member's batch over the 'data' devices."""
        if self.mesh.shape["data"] == 1:
            return batch
        return jax.lax.with_sharding_constraint(batch, self.data)


def initialize_distributed(coordinator_address=None, num_processes=None, process_id=None):
    """Join a multi-process run: ``jax.distributed.initialize``.

    Arguments left None come from JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and
    JAX_PROCESS_ID when set; otherwise JAX detects the cluster itself (Slurm,
    Cloud TPU, Kubernetes with JobSet, MPI). On CPUs the processes talk over
    gloo, JAX's CPU collectives. Call before anything touches a device.
    """
    environment = os.environ.get
    coordinator_address = coordinator_address or environment("JAX_COORDINATOR_ADDRESS")
    num_processes = num_processes or _int(environment("JAX_NUM_PROCESSES"))
    if process_id is None:
        process_id = _int(environment("JAX_PROCESS_ID"))
    jax.distributed.initialize(coordinator_address=coordinator_address,
                               num_processes=num_processes, process_id=process_id)


def _int(text):
    return None if text is None else int(text)


def fetch(tree):
    """Arrays of any sharding as host NumPy arrays, on every process. A member-sharded
    array that spans several processes cannot be fetched with ``jax.device_get``;
    ``process_allgather`` gathers it (a collective: every process must call this)."""
    if jax.process_count() == 1:
        return jax.device_get(tree)
    from jax.experimental import multihost_utils
    return multihost_utils.process_allgather(tree, tiled=True)
