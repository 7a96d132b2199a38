"""Grading a range given for an estimate ("2 TB/s to 5 TB/s"), all in exact arithmetic.

A range is correct when it contains the true value and spans at most a factor of `max_ratio`
(high ÷ low).  Both ends are read exactly from the text the student typed (the grader's own
quantity reader: "4.2 ms" is 21/5000 s, "8 GiB" is 8·2³⁰ B), the true value is the value the
author meant (`numbers.declared`: 0.0042, not its binary neighbour), and `max_ratio` the decimal
it is written as (1.2 is 6/5).  So a range whose end equals the value contains it, and a range
exactly `max_ratio` wide is accepted: both bounds are inclusive.

An unreadable range or one in the wrong units is "invalid" (no try lost, the feedback says what
to fix); a range too wide or missing the value is "incorrect" with the diagnosis
``interval-too-wide`` or ``interval-misses``.  The feedback never says on which side the value
lies, so a student cannot home in on it by moving the range.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .numbers import declared, exact, format_number
from .quantities import (
    ParsedQuantity,
    describe_dimensions,
    example_unit,
    parse_quantity,
    parse_unit,
)
from .results import Grade, ResponseError, correct, incorrect, invalid

TOO_WIDE = "interval-too-wide"
MISSES = "interval-misses"
EXAMPLE = "2 TB/s to 5 TB/s"
# "2 to 5 TB/s", "2 TB/s – 5 TB/s", "2..5 TB/s"; a hyphen is not a separator (3e-4, -2).
_SEPARATOR = re.compile(r"\s+to\s+|\s*(?:–|—|\.\.)\s*", re.IGNORECASE)


def grade_interval(
    response: str, expected: float, *, unit: str | None = None, max_ratio: float = 10.0
) -> Grade:
    """Grade the range `response` against the true value `expected` (SI base of `unit`)."""
    try:
        low, high, shown = read_range(response, unit)
    except ResponseError as error:
        return invalid(error.message)
    limit = exact(max_ratio)
    if high / low > limit:
        return incorrect(
            f"Your range spans {_factor_text(high / low, limit)}; the widest accepted here is "
            f"a factor of {format_number(limit)}. Narrow it.",
            TOO_WIDE,
            interpreted=shown,
        )
    if not low <= declared(expected) <= high:
        return incorrect(
            "The value is not inside your range; check the figures your estimate uses.",
            MISSES,
            interpreted=shown,
        )
    return correct(interpreted=shown)


def _factor_text(ratio: Fraction, limit: Fraction) -> str:
    """ "a factor of 3.5"; "a little more than a factor of 1.2" when the width rounds to the
    limit as printed (1.2000001 is too wide, yet prints as 1.2)."""
    text = format_number(ratio, 3)
    if text == format_number(limit, 3):
        return f"a little more than a factor of {format_number(limit)}"
    return f"a factor of {text}"


def read_range(text: str, unit: str | None) -> tuple[Fraction, Fraction, str]:
    """(low, high, how it was read) of "2 to 5 TB/s", both ends exactly in the SI base of
    `unit`; raises ResponseError with a message for the student."""
    sides = _SEPARATOR.split(str(text).strip())
    if len(sides) != 2 or not all(side.strip() for side in sides):
        raise ResponseError(f"Write a range as its low end, 'to', then its high end: {EXAMPLE}.")
    target = parse_unit(unit) if unit else None
    high = _read_end(sides[1], unit)
    low = _read_end(sides[0], unit, default_unit=high.unit)
    for end in (low, high):
        if end.dimensions != (target.dimensions if target else ()):
            if target is None:
                raise ResponseError("This range is a plain number range: leave out the unit.")
            wanted, _ = describe_dimensions(target.dimensions)
            raise ResponseError(
                f"The question asks for {wanted}: give both ends in a unit such as "
                f"{example_unit(target)}."
            )
    low_value, high_value = low.in_base_of(target), high.in_base_of(target)
    if low_value <= 0:
        raise ResponseError("Both ends of the range must be more than zero.")
    if low_value > high_value:
        raise ResponseError("Write the smaller end first, as in " + EXAMPLE + ".")
    shown = " to ".join(_shown(end) for end in (low, high))
    return low_value, high_value, shown


def _read_end(text: str, unit: str | None, default_unit=None) -> ParsedQuantity:
    end = parse_quantity(text.strip(), None)
    if end.unit is None and default_unit is not None:
        # "2 to 5 TB/s": the low end takes the high end's unit.
        end = ParsedQuantity(end.number, default_unit)
    if end.unit is None and unit is not None:
        end = parse_quantity(text.strip(), unit)  # refuses the missing unit with an example
    return end


def _shown(end: ParsedQuantity) -> str:
    number = format_number(end.number.value)
    return f"{number} {end.unit.text}" if end.unit else number
