"""An exam's saved number read back as it will be graded: "Read as 3.2 ms", "Read as 26 Gbit =
3.25 GB", or why it cannot be read.  It depends on the part's unit alone, never on the answer."""

from __future__ import annotations

import dataclasses


def read_back(unit: str | None, raw: str) -> tuple[bool, str]:
    """(readable, text) for the saved answer `raw` of a part asking for `unit`."""
    from quizzes.grading.numbers import format_number
    from quizzes.grading.quantities import describe_dimensions, parse_quantity, parse_unit
    from quizzes.grading.results import ResponseError
    from quizzes.grading.shorthand import read_count

    text = (raw or "").strip()
    try:
        target = parse_unit(unit) if unit else None
        dims = target.dimensions if target else ()
        quantity = (read_count(text) if not dims else None) or parse_quantity(text, like=target)
    except ResponseError as error:
        return False, f"Cannot be read: {error.message}"
    except (ValueError, TypeError):
        return False, "Cannot be read: write a number with its unit."
    if quantity.dimensions != dims:
        if quantity.unit is None:
            return False, "Cannot be read: add a unit."
        got, _ = describe_dimensions(quantity.dimensions)
        wanted = describe_dimensions(dims)[0] if dims else "a plain number"
        return False, f"Cannot be read as {wanted}: {text} is {got}."
    value = quantity.in_base_of(target)
    base = target.base_text if target else ""
    try:
        from content.physics import format_quantity

        shown = format_quantity(float(value), base) if base else format_number(value)
    except (ValueError, KeyError):
        shown = f"{format_number(value)} {base}".strip()
    typed = f"{format_number(quantity.number.value)} {_spelled(quantity.unit)}" if target else ""
    if typed and typed != shown and not _decimal_shift(quantity.unit.factor / target.base_factor):
        # Bits for bytes, GiB for GB: the shown number is not the typed one with its point
        # moved, so say what was typed as well ("26 Gbit = 3.25 GB").
        shown = f"{typed} = {shown}"
    return True, f"Read as {shown}"


def _decimal_shift(ratio) -> bool:
    """Whether a unit conversion factor is a power of ten (ms to s, TB to B, FLOP/B to FLOP/B)."""
    whole = ratio.numerator if ratio.denominator == 1 else ratio.denominator
    if min(ratio.numerator, ratio.denominator) != 1:
        return False
    digits = str(whole)
    return digits[0] == "1" and set(digits[1:]) <= {"0"}


def _spelled(unit) -> str:
    """A typed unit written for the readback, a bit spelled out ("Gbit", never "Gb")."""
    atoms = tuple(
        dataclasses.replace(atom, symbol="bit") if atom.symbol == "b" else atom
        for atom in unit.atoms
    )
    return dataclasses.replace(unit, atoms=atoms).text
