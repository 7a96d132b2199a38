"""Narrators for the roofline functions (same parameter names as ``content.physics.roofline``)."""

from __future__ import annotations

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, q, result


def _peak_steps(acc, dt):
    part, fmt = accelerator(acc), dtype(dt)
    peak, bandwidth = part.peak(fmt), part.memory_bandwidth
    return (
        part,
        fmt,
        peak,
        bandwidth,
        [
            Step(
                f"Peak dense {fmt.name} compute of the {part.name}",
                "P",
                q(peak, "FLOP/s"),
                result(peak, "FLOP/s"),
            ),
            Step(
                f"Memory bandwidth of the {part.name}",
                "B_{\\text{mem}}",
                q(bandwidth, "B/s"),
                result(bandwidth, "B/s"),
            ),
        ],
    )


def ridge_point(acc, dt):
    part, fmt, peak, bandwidth, steps = _peak_steps(acc, dt)
    ridge = peak / bandwidth
    steps.append(
        Step(
            "Ridge point: intensity at which the roofline bends",
            "R = \\frac{P}{B_{\\text{mem}}}",
            frac(q(peak, "FLOP/s"), q(bandwidth, "B/s")),
            result(ridge, "FLOP/B"),
        )
    )
    return f"Ridge point of the {part.name} in {fmt.name}", steps


def attainable_flops(acc, dt, intensity):
    part, fmt, peak, bandwidth, steps = _peak_steps(acc, dt)
    ceiling = intensity * bandwidth
    steps.append(
        Step(
            "Bandwidth ceiling at this intensity",
            "I \\times B_{\\text{mem}}",
            f"{q(intensity, 'FLOP/B')} \\times {q(bandwidth, 'B/s')}",
            result(ceiling, "FLOP/s"),
        )
    )
    bound = "memory-bound" if ceiling < peak else "compute-bound"
    steps.append(
        Step(
            f"Roofline: the lower of the two ceilings ({bound})",
            "\\min(P,\\ I \\times B_{\\text{mem}})",
            f"\\min\\left({q(peak, 'FLOP/s')},\\ {q(ceiling, 'FLOP/s')}\\right)",
            result(min(peak, ceiling), "FLOP/s"),
        )
    )
    return f"Attainable {fmt.name} FLOP/s on the {part.name}", steps


def kernel_time(flops, bytes_moved, acc, dt):
    part, fmt, peak, bandwidth, steps = _peak_steps(acc, dt)
    compute, memory = flops / peak, bytes_moved / bandwidth
    steps.append(
        Step(
            "Time if compute were the only limit",
            "t_{\\text{compute}} = \\frac{F}{P}",
            frac(q(flops, "FLOP"), q(peak, "FLOP/s")),
            result(compute, "s"),
        )
    )
    steps.append(
        Step(
            "Time if memory traffic were the only limit",
            "t_{\\text{memory}} = \\frac{D}{B_{\\text{mem}}}",
            frac(q(bytes_moved, "B"), q(bandwidth, "B/s")),
            result(memory, "s"),
        )
    )
    bound = "memory-bound" if memory > compute else "compute-bound"
    steps.append(
        Step(
            f"Roofline time: the slower of the two ({bound})",
            "t = \\max(t_{\\text{compute}},\\ t_{\\text{memory}})",
            f"\\max\\left({q(compute, 's')},\\ {q(memory, 's')}\\right)",
            result(max(compute, memory), "s"),
        )
    )
    return f"Roofline time of a kernel on the {part.name} in {fmt.name}", steps


def arithmetic_intensity(flops, bytes_moved):
    value = flops / bytes_moved
    return "Arithmetic intensity", [
        Step(
            "FLOP per byte moved",
            "I = \\frac{F}{D}",
            frac(q(flops, "FLOP"), q(bytes_moved, "B")),
            result(value, "FLOP/B"),
        ),
    ]


def matmul_flops(m, n, k):
    value = 2 * m * n * k
    return f"FLOP of a ({m}×{k})·({k}×{n}) matrix product", [
        Step(
            "One multiply-add (2 FLOP) per output element per inner index",
            "F = 2 \\cdot m \\cdot n \\cdot k",
            f"2 \\times {num(m)} \\times {num(n)} \\times {num(k)}",
            result(value, "FLOP"),
        ),
    ]


def matmul_bytes(m, n, k, dt):
    fmt = dtype(dt)
    elements = m * k + k * n + m * n
    return f"Bytes moved by a ({m}×{k})·({k}×{n}) matrix product in {fmt.name}", [
        Step(
            "Elements read (both operands) and written (the result)",
            "E = m k + k n + m n",
            f"{num(m)} \\times {num(k)} + {num(k)} \\times {num(n)} + {num(m)} \\times {num(n)}",
            num(elements, 3),
        ),
        Step(
            f"Bytes at {fmt.bytes:g} per {fmt.name} element",
            "D = E \\times b",
            f"{num(elements)} \\times {q(fmt.bytes, 'B')}",
            result(elements * fmt.bytes, "B"),
        ),
    ]
