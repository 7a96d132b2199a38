"""The roofline model: peak rates, arithmetic intensity, ridge points and kernel times.

A kernel that does ``flops`` of arithmetic and moves ``bytes_moved`` through main memory takes at
least max(flops ÷ peak, bytes ÷ bandwidth) on one accelerator.  The model assumes perfect overlap
of compute and memory traffic, peak (dense) rates and one pass over the data; real kernels reach
60-90% of either bound.  All figures in SI base units: FLOP, bytes, seconds, FLOP/s, bytes/s.
"""

from __future__ import annotations

from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.dtypes import DType, dtype

AcceleratorLike = str | Accelerator
DTypeLike = str | DType


def peak_flops(acc: AcceleratorLike, dt: DTypeLike) -> float:
    """Dense peak FLOP/s of ``acc`` in dtype ``dt`` (KeyError if the part has no such rate)."""
    return accelerator(acc).peak(dt)


def memory_bandwidth(acc: AcceleratorLike) -> float:
    """Main-memory (HBM/GDDR/DDR) bandwidth of ``acc`` in bytes/s."""
    return accelerator(acc).memory_bandwidth


def arithmetic_intensity(flops: float, bytes_moved: float) -> float:
    """FLOP per byte moved: I = flops ÷ bytes_moved."""
    if bytes_moved <= 0:
        raise ValueError("bytes_moved must be positive")
    return flops / bytes_moved


def ridge_point(acc: AcceleratorLike, dt: DTypeLike) -> float:
    """The intensity (FLOP/byte) where the roofline bends: peak FLOP/s ÷ memory bandwidth.

    A kernel below it is memory-bound, above it compute-bound.  H100 SXM bf16:
    989.4e12 ÷ 3.35e12 ≈ 295 FLOP/byte.
    """
    part = accelerator(acc)
    return part.peak(dt) / part.memory_bandwidth


def attainable_flops(acc: AcceleratorLike, dt: DTypeLike, intensity: float) -> float:
    """Roofline: min(peak, intensity × bandwidth) in FLOP/s, for intensity in FLOP/byte."""
    part = accelerator(acc)
    return min(part.peak(dt), intensity * part.memory_bandwidth)


def is_memory_bound(acc: AcceleratorLike, dt: DTypeLike, intensity: float) -> bool:
    """True when ``intensity`` (FLOP/byte) is below the ridge point of ``acc`` in ``dt``."""
    return intensity < ridge_point(acc, dt)


def kernel_time(flops: float, bytes_moved: float, acc: AcceleratorLike, dt: DTypeLike) -> float:
    """Roofline time in seconds: max(flops ÷ peak, bytes_moved ÷ bandwidth).

    Assumes compute and memory traffic overlap perfectly and both run at their peaks.
    """
    part = accelerator(acc)
    return max(flops / part.peak(dt), bytes_moved / part.memory_bandwidth)


def matmul_flops(m: float, n: float, k: float) -> float:
    """FLOP of an (m×k)·(k×n) matrix product: 2·m·n·k (one multiply-add = 2 FLOP)."""
    return 2 * m * n * k


def matmul_bytes(m: float, n: float, k: float, dt: DTypeLike) -> float:
    """Bytes moved by an (m×k)·(k×n) product: (m·k + k·n + m·n) × bytes per element.

    Assumes each operand is read once and the result written once, all in ``dt``.
    """
    return (m * k + k * n + m * n) * dtype(dt).bytes
