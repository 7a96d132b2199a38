"""Inside one GPU: peak rates from clocks, occupancy, latency hiding, coalescing and tiling.

These are the first-order models a performance engineer uses before profiling: the peak rate is
SMs × work per clock × clock; an SM keeps as many warps resident as its registers, shared memory,
warp slots and block slots allow; Little's law says how many bytes must be in flight to reach a
bandwidth; a warp's loads cost whole 32-byte sectors; a tile of a matrix product reuses each loaded
element across a row or column of the tile.  All figures in SI base units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.roofline import AcceleratorLike, DTypeLike

WARP_SIZE = 32
# Registers are allocated to a warp in units of 256 (8 per thread): CUDA occupancy calculator.
REGISTER_ALLOCATION_UNIT = 256
MAX_REGISTERS_PER_THREAD = 255
MAX_THREADS_PER_BLOCK = 1024

LIMITERS = ("warps", "registers", "shared memory", "blocks")


def peak_flops_from_clock(sm_count: float, flops_per_clock_per_sm: float, clock_hz: float) -> float:
    """Peak FLOP/s from the chip's organisation: SMs × FLOP per clock per SM × clock (Hz).

    H100 SXM bf16: 132 × 4096 × 1.83 GHz = 989.4 TFLOP/s (4 tensor cores per SM, each 512 dense
    FMA per clock).  A peak, never a measurement: real matmuls reach 70-80% of it.
    """
    for name, value in (("sm_count", sm_count), ("flops_per_clock_per_sm", flops_per_clock_per_sm)):
        if value < 0:
            raise ValueError(f"{name} must not be negative")
    if clock_hz < 0:
        raise ValueError("clock_hz must not be negative")
    return sm_count * flops_per_clock_per_sm * clock_hz


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps on one SM, and which resource ran out first.

    ``fraction`` = warps_per_sm ÷ max_warps_per_sm; ``limiter`` is one of ``LIMITERS``.
    """

    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    fraction: float
    limiter: str


def _occupancy_limits(acc, threads_per_block, registers_per_thread, shared_bytes_per_block):
    """(part, warps per block, {limiter: blocks per SM or None}) for a kernel on ``acc``."""
    part = accelerator(acc)
    missing = [
        name
        for name in ("registers_per_sm", "max_warps_per_sm", "max_blocks_per_sm")
        if getattr(part, name) is None
    ]
    if missing or part.shared_memory_per_sm_bytes is None:
        raise ValueError(f"{part.name} has no published per-SM limits for occupancy")
    if not 1 <= threads_per_block <= MAX_THREADS_PER_BLOCK:
        raise ValueError(f"threads_per_block must be between 1 and {MAX_THREADS_PER_BLOCK}")
    if not 0 <= registers_per_thread <= MAX_REGISTERS_PER_THREAD:
        raise ValueError(f"registers_per_thread must be between 0 and {MAX_REGISTERS_PER_THREAD}")
    if shared_bytes_per_block < 0:
        raise ValueError("shared_bytes_per_block must not be negative")
    if shared_bytes_per_block > part.shared_memory_per_sm_bytes:
        raise ValueError(
            f"{shared_bytes_per_block:g} B of shared memory per block exceeds the "
            f"{part.shared_memory_per_sm_bytes:g} B an SM of the {part.name} has"
        )
    warps_per_block = math.ceil(threads_per_block / WARP_SIZE)
    registers_per_warp = (
        math.ceil(registers_per_thread * WARP_SIZE / REGISTER_ALLOCATION_UNIT)
        * REGISTER_ALLOCATION_UNIT
    )
    # A resource the kernel does not use sets no limit (None).
    limits = {
        "warps": part.max_warps_per_sm // warps_per_block,
        "registers": (part.registers_per_sm // registers_per_warp) // warps_per_block
        if registers_per_warp
        else None,
        "shared memory": int(part.shared_memory_per_sm_bytes // shared_bytes_per_block)
        if shared_bytes_per_block
        else None,
        "blocks": part.max_blocks_per_sm,
    }
    return part, warps_per_block, limits


def occupancy(
    acc: AcceleratorLike,
    threads_per_block: int,
    registers_per_thread: int,
    shared_bytes_per_block: float = 0,
) -> Occupancy:
    """How many blocks of a kernel one SM holds at once, and what fraction of its warp slots
    they fill.

    Blocks per SM = the least of: warp slots ÷ warps per block, registers ÷ registers per block
    (registers per warp rounded up to 256), shared memory ÷ shared bytes per block, and the block
    limit.  The limiter is the first of "warps", "registers", "shared memory", "blocks" that
    attains that least value.  Ignores the 1 KiB per block CUDA reserves for itself and the
    per-sub-partition register split, so it can overstate occupancy by one block at the edges.
    """
    part, warps_per_block, limits = _occupancy_limits(
        acc, threads_per_block, registers_per_thread, shared_bytes_per_block
    )
    blocks = min(v for v in limits.values() if v is not None)
    limiter = next(name for name in LIMITERS if limits[name] == blocks)
    warps = blocks * warps_per_block
    return Occupancy(blocks, warps, part.max_warps_per_sm, warps / part.max_warps_per_sm, limiter)


def bytes_in_flight(bandwidth: float, latency_s: float) -> float:
    """Little's law: bytes that must be outstanding to sustain ``bandwidth`` (bytes/s) when each
    request takes ``latency_s`` seconds: bandwidth × latency.

    H100 HBM: 3.35 TB/s × ~350 ns ≈ 1.2 MB in flight across the chip, about 8.9 KB per SM.
    """
    if bandwidth < 0 or latency_s < 0:
        raise ValueError("bandwidth and latency_s must not be negative")
    return bandwidth * latency_s


def coalescing_efficiency(
    stride_elements: int, element_bytes: float, sector_bytes: int = 32, warp_size: int = WARP_SIZE
) -> float:
    """Fraction of the bytes a warp's load moves that the warp uses, when thread i reads the
    element at index i × ``stride_elements`` (elements of ``element_bytes``, the array aligned to a
    sector): useful bytes ÷ (distinct ``sector_bytes`` sectors touched × sector size).

    fp32 at stride 1: 128 B in 4 sectors = 1.0; stride 2: 0.5; stride ≥ 8: each thread pulls a
    whole 32-byte sector for 4 bytes, 0.125.  Caching across warps is ignored.
    """
    if stride_elements < 1 or int(stride_elements) != stride_elements:
        raise ValueError("stride_elements must be a whole number of at least 1")
    if element_bytes <= 0 or sector_bytes <= 0 or warp_size < 1:
        raise ValueError("element_bytes, sector_bytes and warp_size must be positive")
    sectors: set[int] = set()
    for thread in range(int(warp_size)):
        start = thread * stride_elements * element_bytes
        end = start + element_bytes  # exclusive
        sectors.update(range(int(start // sector_bytes), int(math.ceil(end / sector_bytes))))
    useful = warp_size * element_bytes
    return min(1.0, useful / (len(sectors) * sector_bytes))


def tile_intensity(tile_m: float, tile_n: float, dt: DTypeLike) -> float:
    """FLOP per byte of a tiled matmul's main loop: each step of k loads a tile_m-long column of A
    and a tile_n-long row of B (tile_m + tile_n elements) and does 2 × tile_m × tile_n FLOP:
    2·tm·tn ÷ ((tm + tn) × bytes per element).

    A 128 × 128 bf16 tile: 2·128·128 ÷ (256 × 2) = 64 FLOP/byte from the level that feeds it.
    """
    if tile_m <= 0 or tile_n <= 0:
        raise ValueError("tile_m and tile_n must be positive")
    return 2 * tile_m * tile_n / ((tile_m + tile_n) * dtype(dt).bytes)
