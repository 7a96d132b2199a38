"""Reading a typed coordinate of the roofline chart: an intensity in FLOP per byte or a rate in
FLOP/s, as a bare number (in that unit) or with its unit and a prefix ("989 TFLOP/s")."""

from __future__ import annotations

COORDINATES = ("intensity", "performance")
UNITS = {"intensity": "FLOP/B", "performance": "FLOP/s"}
NAMES = {"intensity": "the intensity", "performance": "the FLOP/s"}


def read_coordinate(name: str, text: str) -> float:
    """The coordinate `name` of `text` in FLOP/byte or FLOP/s; ValueError with a message for
    the student when it cannot be read, is not positive or is of another dimension."""
    from quizzes.grading.quantities import describe_dimensions, parse_quantity, parse_unit
    from quizzes.grading.results import ResponseError

    target = parse_unit(UNITS[name])
    try:
        quantity = parse_quantity((text or "").strip(), like=target)
    except ResponseError as error:
        raise ValueError(f"{NAMES[name]}: {error.message}") from None
    if quantity.unit is None:
        value = float(quantity.number.value)
    elif quantity.dimensions != target.dimensions:
        got, _ = describe_dimensions(quantity.dimensions)
        raise ValueError(f"{NAMES[name]} is in {UNITS[name]}; {text.strip()} is {got}")
    else:
        value = float(quantity.in_base_of(target))
    if not value > 0:
        raise ValueError(f"{NAMES[name]} must be more than zero on a log-log chart")
    return value


def shown_coordinate(name: str, value: float) -> str:
    """ "52.1 FLOP/byte", "989 TFLOP/s" """
    from content.physics import format_quantity

    return format_quantity(value, UNITS[name])
