"""The names an expression may use: the public names of ``content.physics`` and maths helpers."""

from __future__ import annotations

import math
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


def physics_names() -> dict[str, object]:
    """Every name in ``content.physics.__all__`` (empty while the module is not installed)."""
    try:
        import content.physics as physics
    except ImportError:
        return {}
    return {name: getattr(physics, name) for name in getattr(physics, "__all__", ())}


def default_namespace() -> dict[str, object]:
    """A fresh dict of every name templates and chapters may use (physics first, then maths)."""
    names = physics_names()
    names.update(MATH_HELPERS)
    return names
