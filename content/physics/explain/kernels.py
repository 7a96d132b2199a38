"""Narrators for the in-GPU functions (same parameter names as ``content.physics.kernels``)."""

from __future__ import annotations

import math

from content.physics.catalog.dtypes import dtype
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, plain_num, q, result
from content.physics.kernels import (
    REGISTER_ALLOCATION_UNIT,
    WARP_SIZE,
    _occupancy_limits,
)
from content.physics.kernels import (
    coalescing_efficiency as _coalescing,
)


def peak_flops_from_clock(sm_count, flops_per_clock_per_sm, clock_hz):
    value = sm_count * flops_per_clock_per_sm * clock_hz
    return "Peak FLOP/s from SMs, work per clock and clock", [
        Step(
            "Every SM finishes its tensor work each clock",
            "P = n_{SM} \\times f_{SM} \\times f_{\\text{clock}}",
            f"{num(sm_count)} \\times {num(flops_per_clock_per_sm)}\\ \\text{{FLOP}} "
            f"\\times {q(clock_hz, 'Hz')}",
            result(value, "FLOP/s"),
        )
    ]


def occupancy(acc, threads_per_block, registers_per_thread, shared_bytes_per_block):
    part, warps_per_block, limits = _occupancy_limits(
        acc, threads_per_block, registers_per_thread, shared_bytes_per_block
    )
    blocks = min(v for v in limits.values() if v is not None)
    shown = {k: ("none" if v is None else v) for k, v in limits.items()}
    warps = blocks * warps_per_block
    per_warp = (
        math.ceil(registers_per_thread * WARP_SIZE / REGISTER_ALLOCATION_UNIT)
        * REGISTER_ALLOCATION_UNIT
    )
    smem = part.shared_memory_per_sm_bytes
    steps = [
        Step(
            "Warps per block",
            "w = \\lceil t / 32 \\rceil",
            f"\\lceil {num(threads_per_block)} / 32 \\rceil",
            f"{warps_per_block} warp{'' if warps_per_block == 1 else 's'}",
        ),
        Step(
            "Blocks allowed by warp slots",
            "b_w = \\lfloor W_{\\max} / w \\rfloor",
            f"\\lfloor {part.max_warps_per_sm} / {warps_per_block} \\rfloor",
            f"{limits['warps']} blocks",
        ),
        Step(
            f"Blocks allowed by registers ({per_warp} per warp, allocated in 256s)",
            "b_r = \\lfloor \\lfloor R_{SM} / r_{warp} \\rfloor / w \\rfloor",
            f"\\lfloor \\lfloor {num(part.registers_per_sm)} / {per_warp} \\rfloor "
            f"/ {warps_per_block} \\rfloor"
            if per_warp
            else "\\text{no registers used}",
            f"{shown['registers']} blocks" if per_warp else "no limit",
        ),
        Step(
            "Blocks allowed by shared memory",
            "b_s = \\lfloor S_{SM} / s_{block} \\rfloor",
            f"\\lfloor {frac(q(smem, 'B'), q(shared_bytes_per_block, 'B'))} \\rfloor"
            if shared_bytes_per_block
            else "\\text{no shared memory used}",
            f"{shown['shared memory']} blocks" if shared_bytes_per_block else "no limit",
        ),
        Step(
            "Resident blocks: the tightest limit (block slots included)",
            "b = \\min(b_w, b_r, b_s, B_{\\max})",
            "\\min(" + ", ".join(str(v) for v in limits.values() if v is not None) + ")",
            f"{blocks} blocks",
        ),
        Step(
            "Occupancy: resident warps over warp slots",
            "o = \\frac{b \\cdot w}{W_{\\max}}",
            frac(f"{blocks} \\times {warps_per_block}", str(part.max_warps_per_sm)),
            f"{num(warps / part.max_warps_per_sm, 3)} ({warps} of {part.max_warps_per_sm} warps)",
        ),
    ]
    return f"Occupancy of a kernel on one SM of the {part.name}", steps


def bytes_in_flight(bandwidth, latency_s):
    value = bandwidth * latency_s
    return "Bytes in flight to sustain a bandwidth (Little's law)", [
        Step(
            "Outstanding bytes = rate × time each request is outstanding",
            "D = B \\times \\tau",
            f"{q(bandwidth, 'B/s')} \\times {q(latency_s, 's')}",
            result(value, "B"),
        )
    ]


def coalescing_efficiency(stride_elements, element_bytes, sector_bytes, warp_size):
    value = _coalescing(stride_elements, element_bytes, sector_bytes, warp_size)
    useful = warp_size * element_bytes
    moved = useful / value
    return "Coalescing efficiency of a strided warp load", [
        Step(
            "Bytes the warp uses",
            "U = n_{\\text{threads}} \\times b",
            f"{num(warp_size)} \\times {q(element_bytes, 'B')}",
            result(useful, "B"),
        ),
        Step(
            f"Bytes moved: whole {plain_num(sector_bytes)}-byte sectors touched at stride "
            f"{plain_num(stride_elements)}",
            "M = n_{\\text{sectors}} \\times s",
            f"{num(moved / sector_bytes)} \\times {q(sector_bytes, 'B')}",
            result(moved, "B"),
        ),
        Step(
            "Efficiency",
            "e = U / M",
            frac(q(useful, "B"), q(moved, "B")),
            num(value, 3),
        ),
    ]


def tile_intensity(tile_m, tile_n, dt):
    fmt = dtype(dt)
    flops = 2 * tile_m * tile_n
    loaded = (tile_m + tile_n) * fmt.bytes
    return f"Intensity of a {plain_num(tile_m)}×{plain_num(tile_n)} {fmt.name} tile", [
        Step(
            "FLOP per step of k: every output of the tile gets one multiply-add",
            "F = 2 \\cdot t_m \\cdot t_n",
            f"2 \\times {num(tile_m)} \\times {num(tile_n)}",
            result(flops, "FLOP"),
        ),
        Step(
            "Bytes loaded per step: a column of A and a row of B",
            "D = (t_m + t_n) \\times b",
            f"({num(tile_m)} + {num(tile_n)}) \\times {q(fmt.bytes, 'B')}",
            result(loaded, "B"),
        ),
        Step(
            "Intensity",
            "I = F / D",
            frac(q(flops, "FLOP"), q(loaded, "B")),
            result(flops / loaded, "FLOP/B"),
        ),
    ]
