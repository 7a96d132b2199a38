"""The overhead regime: time spent telling the GPU what to do, beside the time it spends doing it.

A roofline prices arithmetic and memory traffic; it does not price the launch.  Every kernel is
issued by the CPU, and the GPU runs nothing it has not been given.  The CPU issues asynchronously,
so while each kernel takes longer than its launch the launches hide behind the work; when kernels
are shorter than their launches (small batches, small layers, eager frameworks) the GPU waits and
the step takes as long as the issuing.  Three ways of issuing, with measured per-kernel costs from
the catalog (``launch/...``):

- ``"eager"``: an eager framework dispatching op by op, 5-20 µs of CPU time per kernel;
- ``"stream"``: kernels enqueued directly on a CUDA stream, about 2.7 µs each;
- ``"graph"``: one CUDA graph replayed, about 15 µs per graph plus 0.6 µs per kernel node.

Model: the GPU pays a small cost per kernel however the kernels arrive (the per-node cost of a
replayed graph, 0.58 µs, is the smallest measured), so its busy time is GPU time + kernels × node
cost.  Eager and stream steps take the longer of that and the CPU's issuing, kernels × launch
cost, since the two overlap; a graph step adds the graph's own launch to the GPU's busy time.  So
a graph is never slower than a stream, by more than its one launch, and much faster when the CPU
is the limit.  Synchronisations inside the step and CPU work between kernels (sampling,
scheduling) are not modelled.
"""

from __future__ import annotations

from content.physics.catalog.measured import measurement
from content.physics.roofline import AcceleratorLike, DTypeLike, kernel_time

LAUNCH_MODES = ("eager", "stream", "graph")
_PER_KERNEL = {
    "eager": "launch/eager-cpu",
    "stream": "launch/enqueue",
    "graph": "launch/graph-node",
}


def _check(kernels: float, mode: str) -> None:
    if mode not in LAUNCH_MODES:
        raise ValueError(f"mode must be one of {', '.join(LAUNCH_MODES)}")
    if kernels < 0 or int(kernels) != kernels:
        raise ValueError("kernels must be a whole number, 0 or more")


def launch_overhead(kernels: int, mode: str = "stream") -> float:
    """Seconds spent issuing ``kernels`` launches: kernels × per-launch cost for "eager" and
    "stream"; one graph launch + kernels × per-node cost for "graph".  300 kernels: 1.5 ms eager
    (at the low end of 5-20 µs), 0.80 ms on a stream, 0.19 ms as one graph."""
    _check(kernels, mode)
    per_kernel = measurement(_PER_KERNEL[mode]).value * kernels
    if mode == "graph":
        return measurement("launch/graph").value + per_kernel
    return per_kernel


def gpu_busy_time(gpu_seconds: float, kernels: int) -> float:
    """The GPU's busy time for a step: gpu_seconds + kernels × the per-kernel cost of a replayed
    graph's node (0.58 µs, ``launch/graph-node``), the least a kernel costs the GPU when kernels
    arrive back to back.  Applies in every mode."""
    if gpu_seconds < 0:
        raise ValueError("gpu_seconds must not be negative")
    _check(kernels, "graph")
    return gpu_seconds + kernels * measurement("launch/graph-node").value


def time_with_overhead(gpu_seconds: float, kernels: int, mode: str = "stream") -> float:
    """A step's time once its launches are counted.  "eager" and "stream": max(GPU busy time,
    kernels × CPU launch cost), since issuing overlaps the work; "graph": GPU busy time + one
    graph launch (15 µs).  GPU busy time = gpu_seconds + kernels × 0.58 µs (``gpu_busy_time``)."""
    busy = gpu_busy_time(gpu_seconds, kernels)
    _check(kernels, mode)
    if mode == "graph":
        return busy + measurement("launch/graph").value
    return max(busy, launch_overhead(kernels, mode))


def is_overhead_bound(gpu_seconds: float, kernels: int, mode: str = "stream") -> bool:
    """True when issuing the kernels takes longer than the GPU's busy time (eager or stream):
    the GPU idles between kernels and a faster GPU would not help.  A graph is never overhead
    bound in this sense."""
    if mode == "graph":
        _check(kernels, mode)
        return False
    return launch_overhead(kernels, mode) > gpu_busy_time(gpu_seconds, kernels)


def kernel_time_with_overhead(
    flops: float,
    bytes_moved: float,
    acc: AcceleratorLike,
    dt: DTypeLike,
    kernels: int = 1,
    mode: str = "stream",
) -> float:
    """The roofline time of work split over ``kernels`` launches, with their issuing added:
    time_with_overhead(max(flops ÷ peak, bytes ÷ bandwidth), kernels, mode).  A 1024-element
    add on an H100 has a roofline time of a few ns and costs its 2.7 µs launch."""
    return time_with_overhead(kernel_time(flops, bytes_moved, acc, dt), kernels, mode)


__all__ = [
    "LAUNCH_MODES",
    "gpu_busy_time",
    "is_overhead_bound",
    "kernel_time_with_overhead",
    "launch_overhead",
    "time_with_overhead",
]
