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

from content.expressions.limits import (
    Limits,
    Number,
    Optional,
    Unchecked,
    Values,
    bound_all,
    bounded,
    unbounded,
)
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


_NUMBER = Number()
_COMPARED = Unchecked("only compared; the language bounds every list it builds")
# Each helper's argument limits (`limits.py`): sizes the language already bounds are declared
# as such, magnitudes are plain numbers.
MATH_LIMITS: dict[str, Limits] = {
    "min": Limits(args=Values(_COMPARED, max_count=MAX_SEQUENCE)),
    "max": Limits(args=Values(_COMPARED, max_count=MAX_SEQUENCE)),
    "abs": Limits(x=_NUMBER),
    "round": Limits(value=_NUMBER, ndigits=Optional(Number(-30, 30, integer=True))),
    "sqrt": Limits(x=_NUMBER),
    "log": Limits(args=Values(_NUMBER, max_count=2)),
    "log2": Limits(x=_NUMBER),
    "log10": Limits(x=_NUMBER),
    "exp": Limits(x=_NUMBER),
    "ceil": Limits(x=_NUMBER),
    "floor": Limits(x=_NUMBER),
    "sum": Limits(values=Values(_NUMBER, MAX_SEQUENCE), start=_NUMBER),
    "len": Limits(obj=Unchecked("reads a size the language already bounds")),
}


_SUBJECT_NAMES: dict[str, object] = {}
_BOUND_NAMES: dict[str, object] = {}
_METHOD_LIMITS: dict[str, Limits] = {}


def bounded_method(owner: object, attr: str, method: Callable) -> Callable:
    """A catalog entry's method with its declared limits (``"Accelerator.peak"``), or one that
    refuses every call when it has none."""
    name = f"{type(owner).__name__}.{attr}"
    declared = _METHOD_LIMITS.get(name)
    if declared is None:
        return unbounded(name, method)
    return bounded(name, method, declared)


def method_limits() -> dict[str, Limits]:
    """Every declared method limit, by "Class.method"."""
    return dict(_METHOD_LIMITS)


def configure_subject(
    *,
    names: Mapping[str, object],
    trusted_modules: tuple[str, ...],
    format_number: Callable[..., str],
    format_quantity: Callable[..., str],
    check_unit: Callable[[str], object] | None = None,
    group_digits: Callable[[str], str] | None = None,
    limits: Mapping[str, Limits] | None = None,
    reading_fields: Callable[[], Any] | None = None,
) -> None:
    """Hand the language a subject: its names, trusted modules, formatters, unit check, digit
    grouping (thousands separators; without one, numbers print ungrouped) and the argument
    limits of its functions (`limits.py`; a callable without any is refused when called)."""
    from content.expressions import evaluator, formatting, policy

    _SUBJECT_NAMES.clear()
    _SUBJECT_NAMES.update(names)
    _BOUND_NAMES.clear()
    _BOUND_NAMES.update(bound_all(names, limits or {}))
    _BOUND_NAMES.update(bound_all(MATH_HELPERS, MATH_LIMITS))
    # "Accelerator.peak": the limits of a method of a catalog entry.
    _METHOD_LIMITS.clear()
    _METHOD_LIMITS.update({k: v for k, v in (limits or {}).items() if "." in k})
    policy.TRUSTED_MODULE_PREFIXES = tuple(trusted_modules)
    # What a function call read of the subject's data, for a chapter's sources (F-10).
    evaluator.FIELD_READER = reading_fields
    formatting.configure(
        format_number=format_number,
        format_quantity=format_quantity,
        check_unit=check_unit,
        group_digits=group_digits,
    )


def default_namespace() -> dict[str, object]:
    """A fresh dict of every name templates and chapters may use (the subject's, then maths),
    each function wrapped by its argument limits."""
    if not _BOUND_NAMES:
        _BOUND_NAMES.update(bound_all(MATH_HELPERS, MATH_LIMITS))
    return dict(_BOUND_NAMES)


def registered_functions() -> dict[str, object]:
    """Every callable name handed to expressions, unwrapped (for the test that checks each one
    declares its limits)."""
    names = {**_SUBJECT_NAMES, **MATH_HELPERS}
    return {n: v for n, v in names.items() if callable(v) and not isinstance(v, type)}


def declared_limits(name: str) -> Limits | None:
    """The limits the function ``name`` was handed out with (None: none, so it is refused)."""
    return getattr(_BOUND_NAMES.get(name), "limits", None)
