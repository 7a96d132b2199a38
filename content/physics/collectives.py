"""Collectives with a cost model: a latency per step plus the bytes on the busiest link.

The latency-bandwidth ("alpha-beta") model of Thakur, Rabenseifner and Gropp (2005): an
algorithm that runs ``s`` dependent steps, and makes each GPU move ``D`` bytes in one direction
over a link of per-direction bandwidth ``W``, takes

    t = s · α + D ÷ W

For an all-reduce of ``B`` bytes (the buffer on each GPU) over ``n`` GPUs:

- ``ring``: 2 (n − 1) steps, 2 (n − 1) ÷ n · B bytes (reduce-scatter, then all-gather);
- ``tree``: 2 ⌈log₂ n⌉ steps, 2 B bytes (NCCL's pipelined double binary tree);
- ``in-switch``: 2 steps, B bytes (the switch adds: NVLink SHARP, NCCL's "NVLS");
- ``one-shot``: 1 step, (n − 1) · B bytes (each GPU reads every peer's whole buffer).

α, the cost of one step, is printed on no datasheet: launch, synchronisation and wire latency
all fold into it.  ``step_latency`` calibrates it from a published small-message timing (the
``collective-measurement`` catalog), so a forecast uses the α of the software it names.
Bandwidths are per direction; every GPU sends and receives at once, with no congestion.
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.collectives import CollectiveMeasurement, collective_measurement
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.links import link
from content.physics.catalog.models import model
from content.physics.inference import ModelLike, _compute_peak, kv_cache_bytes
from content.physics.interconnect import LinkLike
from content.physics.precision import decode_flops_per_token, decode_weight_bytes
from content.physics.roofline import AcceleratorLike, DTypeLike

ALLREDUCE_ALGORITHMS = ("ring", "tree", "in-switch", "one-shot")


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or value < 1 or int(value) != value:
        raise ValueError(f"{name} must be a whole number of at least 1")


def _check_algorithm(algorithm: str) -> None:
    if algorithm not in ALLREDUCE_ALGORITHMS:
        raise ValueError(
            f"unknown all-reduce algorithm {algorithm!r}; use one of "
            + ", ".join(ALLREDUCE_ALGORITHMS)
        )


def allreduce_steps(n: int, algorithm: str = "ring") -> int:
    """Dependent steps of an all-reduce over ``n`` GPUs: ring 2(n − 1), tree 2⌈log₂ n⌉,
    in-switch 2, one-shot 1; 0 for one GPU."""
    _check_count("n", n)
    _check_algorithm(algorithm)
    if n == 1:
        return 0
    return {
        "ring": 2 * (n - 1),
        "tree": 2 * math.ceil(math.log2(n)),
        "in-switch": 2,
        "one-shot": 1,
    }[algorithm]


def allreduce_link_bytes(bytes_moved: float, n: int, algorithm: str = "ring") -> float:
    """Bytes each GPU moves in one direction over its link in an all-reduce of ``bytes_moved``:
    ring 2(n − 1)/n · B, tree 2B, in-switch B, one-shot (n − 1) · B; 0 for one GPU."""
    _check_count("n", n)
    _check_algorithm(algorithm)
    if bytes_moved < 0:
        raise ValueError("bytes_moved must not be negative")
    if n == 1:
        return 0.0
    factor = {"ring": 2 * (n - 1) / n, "tree": 2.0, "in-switch": 1.0, "one-shot": n - 1.0}
    return factor[algorithm] * bytes_moved


def allreduce_time(
    bytes_moved: float,
    n: int,
    ln: LinkLike,
    algorithm: str = "ring",
    step_latency: float = 0.0,
) -> float:
    """All-reduce time, latency plus bandwidth: steps × ``step_latency`` + link bytes ÷ the
    link's per-direction bandwidth.  With ``step_latency`` 0 and the ring, this is
    ``ring_allreduce_time``."""
    if step_latency < 0:
        raise ValueError("step_latency must not be negative")
    steps = allreduce_steps(n, algorithm)
    return (
        steps * step_latency + allreduce_link_bytes(bytes_moved, n, algorithm) / link(ln).bandwidth
    )


def _measurement(m: str | CollectiveMeasurement) -> CollectiveMeasurement:
    return collective_measurement(m)


def step_latency(measurement: str | CollectiveMeasurement) -> float:
    """α calibrated from a published timing: (measured time − link bytes ÷ bandwidth) ÷ steps.

    Meant for small payloads, where the bandwidth term is a sliver of the time; whatever the
    software spends per call (launch, a host wait) is charged to the steps."""
    row = _measurement(measurement)
    if row.algorithm not in ALLREDUCE_ALGORITHMS:
        raise ValueError(f"{row.key} is a {row.algorithm} all-reduce: no single step latency")
    wire = (
        allreduce_link_bytes(row.payload_bytes, row.gpus, row.algorithm) / link(row.link).bandwidth
    )
    return max(0.0, row.seconds - wire) / allreduce_steps(row.gpus, row.algorithm)


def achieved_link_fraction(measurement: str | CollectiveMeasurement) -> float:
    """How much of its link a measured all-reduce used: link bytes ÷ time ÷ bandwidth.

    For a large ring all-reduce this is nccl-tests' bus bandwidth over the link rate (about 0.8
    on NVLink 4)."""
    row = _measurement(measurement)
    if row.algorithm not in ALLREDUCE_ALGORITHMS:
        raise ValueError(f"{row.key} is a {row.algorithm} all-reduce: use its per-NIC rate")
    moved = allreduce_link_bytes(row.payload_bytes, row.gpus, row.algorithm)
    return moved / row.seconds / link(row.link).bandwidth


def latency_bound_below(
    n: int, ln: LinkLike, algorithm: str = "ring", step_latency: float = 0.0
) -> float:
    """The payload (bytes) at which the latency term equals the bandwidth term: below it an
    all-reduce is latency-bound.  s · α · W ÷ (link bytes per payload byte)."""
    per_byte = allreduce_link_bytes(1.0, n, algorithm)
    if per_byte == 0:
        return 0.0
    return allreduce_steps(n, algorithm) * step_latency * link(ln).bandwidth / per_byte


def allreduce_crossover_bytes(
    n: int, ln: LinkLike, first: str, second: str, step_latency: float
) -> float:
    """The payload (bytes) at which two all-reduce algorithms take equal time:
    (s₁ − s₂) · α · W ÷ (f₂ − f₁), with s the steps and f the link bytes per payload byte.

    Below it the algorithm with fewer steps is faster, above it the one that moves fewer
    bytes.  ValueError when one algorithm is never slower (fewer or as many steps and no more
    bytes), so the two never cross."""
    if step_latency < 0:
        raise ValueError("step_latency must not be negative")
    steps = allreduce_steps(n, first) - allreduce_steps(n, second)
    per_byte = allreduce_link_bytes(1.0, n, second) - allreduce_link_bytes(1.0, n, first)
    if steps == 0 or per_byte == 0 or (steps > 0) != (per_byte > 0):
        raise ValueError(f"{first} and {second} never take equal time on {n} GPUs")
    return steps * step_latency * link(ln).bandwidth / per_byte


def multinode_allreduce_time(
    bytes_moved: float,
    nodes: int,
    gpus_per_node: int,
    scale_up: LinkLike,
    scale_out: LinkLike,
    *,
    nics_per_node: int | None = None,
    pipelined: bool = False,
) -> float:
    """Hierarchical all-reduce over ``nodes`` servers of ``gpus_per_node`` GPUs each:

    1. reduce-scatter inside each server over ``scale_up``: (g − 1)/g · B ÷ W_up;
    2. the servers all-reduce what they hold, round a ring of N nodes: each server sends
       2 (N − 1)/N · B over its ``nics_per_node`` ports of ``scale_out`` (default one per GPU),
       so 2 (N − 1)/N · B ÷ (nics × W_out);
    3. all-gather inside each server: (g − 1)/g · B ÷ W_up.

    The phases add (``pipelined=False``); NCCL overlaps them in chunks, so the measured time
    lies between that sum and the slowest phase alone (``pipelined=True``).  With one GPU and
    one NIC per server this is the flat ring ``ring_allreduce_time`` over the network.
    Latency terms are left out: this is for gradient-sized buffers."""
    _check_count("nodes", nodes)
    _check_count("gpus_per_node", gpus_per_node)
    nics = gpus_per_node if nics_per_node is None else nics_per_node
    _check_count("nics_per_node", nics)
    if bytes_moved < 0:
        raise ValueError("bytes_moved must not be negative")
    g, big_n = gpus_per_node, nodes
    inside = 2 * (g - 1) / g * bytes_moved / link(scale_up).bandwidth
    across = 2 * (big_n - 1) / big_n * bytes_moved / (nics * link(scale_out).bandwidth)
    return max(inside, across) if pipelined else inside + across


def tensor_parallel_decode_time(
    m: ModelLike,
    acc: AcceleratorLike,
    dt: DTypeLike,
    n: int,
    ln: LinkLike,
    batch: int = 1,
    context: float = 0,
    algorithm: str = "ring",
    step_latency: float = 0.0,
) -> float:
    """One decode step of ``batch`` sequences split by tensor parallelism over ``n`` GPUs:

    max(bytes per GPU ÷ bandwidth, FLOPs per GPU ÷ peak) + 2 L × all-reduce(batch · d · b),
    the FLOPs those of the weights a pass multiplies (``precision.decode_flops_per_token``).

    Each GPU reads the bytes a decode pass reads (``precision.decode_weight_bytes``: the weights
    less the input embedding table, of which a step reads one row) ÷ n and its share of the KV
    cache; KV heads cannot be split more
    ways than there are, so beyond n = n_kv_heads each GPU keeps 1/n_kv_heads of the cache
    (replicated heads).  Megatron-style layers all-reduce their activations twice, after
    attention and after the MLP, and the all-reduces wait for the matmuls (no overlap)."""
    _check_count("n", n)
    _check_count("batch", batch)
    part, fmt, mdl = accelerator(acc), dtype(dt), model(m)
    cache_share = min(n, mdl.n_kv_heads)
    bytes_per_gpu = decode_weight_bytes(mdl, fmt) / n + kv_cache_bytes(mdl, context, fmt, batch) / (
        cache_share
    )
    flops_per_gpu = decode_flops_per_token(mdl) * batch / n
    compute = max(bytes_per_gpu / part.memory_bandwidth, flops_per_gpu / _compute_peak(part, fmt))
    message = batch * mdl.d_model * fmt.bytes
    return compute + 2 * mdl.layers * allreduce_time(message, n, ln, algorithm, step_latency)
