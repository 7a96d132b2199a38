"""The names an expression may use: the subject's names, as its caller hands them over, and
maths helpers.

The language knows no subject. Whoever uses it for a book calls ``configure_subject`` once with
the book's names (callable functions and catalog look-ups), the modules whose frozen dataclasses
expressions may read, the number and quantity formatters and the unit check of ``in UNIT``
options; ``content/__init__.py`` does so for this book's physics.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from content.expressions.policy import MAX_SEQUENCE


def _bounded_sum(values: Any, start: float = 0) -> Any:
    values = list(values)
    if len(values) > MAX_SEQUENCE:
        raise ValueError("sum of too many values")
    return sum(values, start)


def _round(value: Any, ndigits: int | None = None) -> Any:
    if ndigits is not None and abs(ndigits) > 30:
        raise ValueError("round() keeps at most 30 digits")
    return round(value, ndigits)


MATH_HELPERS: dict[str, object] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": _round,
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "ceil": math.ceil,
    "floor": math.floor,
    "sum": _bounded_sum,
    "len": len,
}


_SUBJECT_NAMES: dict[str, object] = {}


def configure_subject(
    *,
    names: Mapping[str, object],
    trusted_modules: tuple[str, ...],
    format_number: Callable[..., str],
    format_quantity: Callable[..., str],
    check_unit: Callable[[str], object] | None = None,
    group_digits: Callable[[str], str] | None = None,
) -> None:
    """Hand the language a subject: its names, trusted modules, formatters, unit check and digit
    grouping (thousands separators; without one, numbers print ungrouped)."""
    from content.expressions import formatting, policy

    _SUBJECT_NAMES.clear()
    _SUBJECT_NAMES.update(names)
    policy.TRUSTED_MODULE_PREFIXES = tuple(trusted_modules)
    formatting.configure(
        format_number=format_number,
        format_quantity=format_quantity,
        check_unit=check_unit,
        group_digits=group_digits,
    )


def default_namespace() -> dict[str, object]:
    """A fresh dict of every name templates and chapters may use (the subject's, then maths)."""
    names = dict(_SUBJECT_NAMES)
    names.update(MATH_HELPERS)
    return names
