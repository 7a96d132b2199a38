"""Moving bytes between devices: point-to-point transfers and collective operations.

Bandwidths are per direction per GPU (bytes/s).  Ring collectives assume every GPU sends and
receives at the link's full per-direction bandwidth at once, with no congestion and no in-network
reduction; latency terms are left out of the collectives (they dominate only below a few MB).
"""

from __future__ import annotations

from content.physics.catalog.dtypes import dtype
from content.physics.catalog.links import Link, link
from content.physics.catalog.models import model
from content.physics.inference import ModelLike
from content.physics.roofline import DTypeLike

LinkLike = str | Link


def transfer_time(bytes_moved: float, ln: LinkLike) -> float:
    """Seconds to send ``bytes_moved`` over one link: bytes ÷ bandwidth + latency (0 if the
    catalog has none)."""
    wire = link(ln)
    return bytes_moved / wire.bandwidth + (wire.latency or 0.0)


def ring_allreduce_time(bytes_moved: float, n: int, ln: LinkLike) -> float:
    """Ring all-reduce of ``bytes_moved`` (the buffer size on each GPU) over ``n`` GPUs:
    2 · (n − 1) ÷ n · bytes ÷ bandwidth (a reduce-scatter plus an all-gather).  0 for n = 1."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return 2 * (n - 1) / n * bytes_moved / link(ln).bandwidth


def ring_allgather_time(bytes_moved: float, n: int, ln: LinkLike) -> float:
    """Ring all-gather (or reduce-scatter) of a ``bytes_moved`` result over ``n`` GPUs:
    (n − 1) ÷ n · bytes ÷ bandwidth."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return (n - 1) / n * bytes_moved / link(ln).bandwidth


def tensor_parallel_allreduce_time(
    m: ModelLike, dt: DTypeLike, n: int, ln: LinkLike, tokens: float = 1, batch: int = 1
) -> float:
    """Communication per forward pass in Megatron-style tensor parallelism over ``n`` GPUs:
    2 × layers × ring all-reduce of (tokens × batch × d_model × bytes).

    Each layer all-reduces its activations twice (after attention and after the MLP).  For one
    decode step ``tokens`` is 1; for a prefill it is the prompt length.
    """
    mdl = model(m)
    activation_bytes = tokens * batch * mdl.d_model * dtype(dt).bytes
    return 2 * mdl.layers * ring_allreduce_time(activation_bytes, n, ln)


def moe_alltoall_bytes(
    tokens: float, d_model: float, top_k: int, dt: DTypeLike, devices: int
) -> float:
    """Bytes one device sends in one expert-parallel dispatch: its ``tokens`` each go to
    ``top_k`` experts as a d_model-wide activation, and with experts spread evenly over
    ``devices`` a fraction (devices − 1) ÷ devices of those copies leave the device:
    tokens × top_k × d_model × bytes × (devices − 1) ÷ devices.  The combine step sends as much
    back.  Assumes perfectly balanced routing (real routers overload some experts)."""
    if devices < 1:
        raise ValueError("devices must be at least 1")
    if tokens < 0 or d_model < 0 or top_k < 0:
        raise ValueError("tokens, d_model and top_k must not be negative")
    return tokens * top_k * d_model * dtype(dt).bytes * (devices - 1) / devices


def alltoall_time(bytes_per_device: float, devices: int, ln: LinkLike) -> float:
    """Seconds for an all-to-all in which every device sends ``bytes_per_device`` (what leaves it,
    as ``moe_alltoall_bytes`` counts) to the others at once: bytes ÷ per-direction bandwidth.

    Assumes a full-bisection switched fabric (NVSwitch, a non-blocking fat tree) so every device
    sends at its full link rate; 0 for one device; latency left out as for the other
    collectives."""
    if devices < 1:
        raise ValueError("devices must be at least 1")
    if devices == 1:
        return 0.0
    return bytes_per_device / link(ln).bandwidth
