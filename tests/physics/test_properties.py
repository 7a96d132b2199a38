"""Hypothesis properties of the roofline and of formatting."""

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from content.physics import (
    accelerator,
    accelerators,
    attainable_flops,
    format_quantity,
    kernel_time,
    ridge_point,
)
from content.physics.units import ureg

PAIRS = [(a.key, dt) for a in accelerators() for dt in a.peak_flops]
pairs = st.sampled_from(PAIRS)
amounts = st.floats(min_value=1.0, max_value=1e18, allow_nan=False, allow_infinity=False)


@given(pairs, amounts, amounts)
def test_roofline_time_is_at_least_each_bound(pair, flops, bytes_moved):
    acc, dt = pair
    part = accelerator(acc)
    t = kernel_time(flops, bytes_moved, acc, dt)
    assert t >= flops / part.peak(dt)
    assert t >= bytes_moved / part.memory_bandwidth


@given(pairs, st.floats(min_value=1e-9, max_value=1e-3))
def test_roofline_is_continuous_at_the_ridge_point(pair, eps):
    acc, dt = pair
    ridge = ridge_point(acc, dt)
    below = attainable_flops(acc, dt, ridge * (1 - eps))
    above = attainable_flops(acc, dt, ridge * (1 + eps))
    peak = accelerator(acc).peak(dt)
    assert above == peak
    assert peak - below <= 2 * eps * peak


@given(pairs, amounts, amounts, st.floats(min_value=1.0, max_value=100.0))
def test_more_bandwidth_never_slows_a_kernel(pair, flops, bytes_moved, factor):
    acc, dt = pair
    part = accelerator(acc)
    faster = dataclasses.replace(part, memory_bandwidth=part.memory_bandwidth * factor)
    assert kernel_time(flops, bytes_moved, faster, dt) <= kernel_time(flops, bytes_moved, part, dt)


ROUND_TRIP_UNITS = {
    "B": "B",
    "B/s": "B/s",
    "s": "s",
    "FLOP": "FLOP",
    "FLOP/s": "FLOP/s",
    "J": "J",
    "W": "W",
    "bit/s": "bit/s",
    "FLOP/B": "FLOP/B",
    "tokens/s": "token/s",
}
UNPREFIXED = {"FLOP/B", "tokens/s"}


@given(
    st.sampled_from(sorted(ROUND_TRIP_UNITS)),
    st.floats(min_value=1e-9, max_value=1e20, allow_nan=False),
    st.integers(min_value=1, max_value=6),
    st.booleans(),
)
def test_formatted_quantities_parse_back_within_printed_precision(unit, value, sig, approx):
    if unit in UNPREFIXED:
        value = min(value, 9e5)
    text = format_quantity(value, unit, sig=sig, approx=approx)
    shown_sig = max(1, sig - 1) if approx else sig
    # Thousands commas are for readers; pint reads the bare digits.
    parsed = ureg.Quantity(text.lstrip("~").replace(",", "")).to(ROUND_TRIP_UNITS[unit]).magnitude
    assert abs(parsed - value) <= 5 * 10.0 ** (-shown_sig) * value * (1 + 1e-9)


@given(
    st.sampled_from(["GB/s", "TB/s", "ms", "µs", "GiB", "MB", "Gbit/s", "TFLOP/s"]),
    st.floats(min_value=1e-6, max_value=1e15, allow_nan=False),
)
def test_fixed_unit_output_is_in_exactly_that_unit(unit, value):
    text = format_quantity(value, unit, fixed=True, sig=4)
    number, _, shown_unit = text.partition(" ")
    assert shown_unit == unit
    if "×" not in number:
        base = str(ureg.Quantity(1, unit).to_base_units().units)
        parsed = ureg.Quantity(text.replace(",", "")).to(base).magnitude
        expected = ureg.Quantity(value, _si_base(unit)).to(base).magnitude
        assert abs(parsed - expected) <= 5e-4 * expected * (1 + 1e-9)


def _si_base(unit):
    return {
        "GB/s": "B/s",
        "TB/s": "B/s",
        "ms": "s",
        "µs": "s",
        "GiB": "B",
        "MB": "B",
        "Gbit/s": "B/s",
        "TFLOP/s": "FLOP/s",
    }[unit]
