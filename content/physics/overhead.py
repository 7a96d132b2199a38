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

Model: eager and stream steps take max(GPU time, kernels × launch cost), the longer of the work
and the issuing; a graph step takes graph launch + GPU time + kernels × node cost, since its nodes
run back to back on the GPU.  Synchronisations inside the step and CPU work between kernels
(sampling, scheduling) are not modelled.
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


def time_with_overhead(gpu_seconds: float, kernels: int, mode: str = "stream") -> float:
    """A step's time once its launches are counted: max(gpu_seconds, launch_overhead) for
    "eager" and "stream" (issuing overlaps the work), gpu_seconds + launch_overhead for "graph"
    (the graph is issued, then its nodes run back to back)."""
    if gpu_seconds < 0:
        raise ValueError("gpu_seconds must not be negative")
    overhead = launch_overhead(kernels, mode)
    if mode == "graph":
        return gpu_seconds + overhead
    return max(gpu_seconds, overhead)


def is_overhead_bound(gpu_seconds: float, kernels: int, mode: str = "stream") -> bool:
    """True when issuing the kernels takes longer than running them (eager or stream): the GPU
    idles between kernels and a faster GPU would not help."""
    return launch_overhead(kernels, mode) > gpu_seconds


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
    "is_overhead_bound",
    "kernel_time_with_overhead",
    "launch_overhead",
    "time_with_overhead",
]
