"""Narrators for interconnect and cost functions (same parameter names as the functions)."""

from __future__ import annotations

from content.physics.catalog.links import link
from content.physics.cost import SECONDS_PER_HOUR, TOKENS_PER_MILLION
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, q, result


def transfer_time(bytes_moved, ln):
    wire = link(ln)
    wire_time = bytes_moved / wire.bandwidth
    steps = [
        Step(
            f"Serialization over {wire.name} ({result(wire.bandwidth, 'B/s')} per direction)",
            "t_{\\text{wire}} = \\frac{D}{B_{\\text{link}}}",
            frac(q(bytes_moved, "B"), q(wire.bandwidth, "B/s")),
            result(wire_time, "s"),
        )
    ]
    if wire.latency:
        steps.append(
            Step(
                "Add the link's latency",
                "t = t_{\\text{wire}} + \\alpha",
                f"{q(wire_time, 's')} + {q(wire.latency, 's')}",
                result(wire_time + wire.latency, "s"),
            )
        )
    return f"Sending {result(bytes_moved, 'B')} over {wire.name}", steps


def ring_allreduce_time(bytes_moved, n, ln):
    wire = link(ln)
    factor = 2 * (n - 1) / n
    value = factor * bytes_moved / wire.bandwidth
    return f"Ring all-reduce of {result(bytes_moved, 'B')} over {n} GPUs on {wire.name}", [
        Step(
            "Each GPU sends (and receives) 2(n−1)/n of the buffer: reduce-scatter + all-gather",
            "\\frac{2(n-1)}{n}",
            frac(f"2 \\times ({n} - 1)", str(n)),
            num(factor, 3),
        ),
        Step(
            "Time at the per-direction link bandwidth",
            "t = \\frac{2(n-1)}{n} \\cdot \\frac{D}{B_{\\text{link}}}",
            f"{num(factor)} \\times {frac(q(bytes_moved, 'B'), q(wire.bandwidth, 'B/s'))}",
            result(value, "s"),
        ),
    ]


def cost_per_million_tokens(price_per_hour, tokens_per_second):
    per_hour = SECONDS_PER_HOUR * tokens_per_second
    value = price_per_hour / per_hour * TOKENS_PER_MILLION
    return "Cost per million tokens", [
        Step(
            "Tokens produced in an hour",
            "T_h = 3600 \\times r",
            f"3600\\ \\text{{s}} \\times {q(tokens_per_second, 'tokens/s')}",
            result(per_hour, "tokens"),
        ),
        Step(
            "Dollars per million tokens",
            "C = \\frac{p}{T_h} \\times 10^{6}",
            f"{frac(q(price_per_hour, '$'), q(per_hour, 'tokens'))} \\times 10^{{6}}",
            result(value, "$"),
        ),
    ]
