"""Units in templates: checking a part's unit and finding a second unit to validate with.

Uses the project's one unit registry (``content.physics.units``) so a template can only name
units that the grader understands.
"""

from __future__ import annotations

import functools
import math

_PREFIXES = (
    "quecto femto pico nano micro milli kilo mega giga tera peta exa kibi mebi gibi tebi pebi exbi"
).split()

# Prefixes tried for the second spelling of a correct answer; the grader decides which of them
# exist for a given unit (it refuses a milli-FLOP, a milli-token or a milli-dollar).
_ALTERNATIVES = ("k", "M", "G", "T", "m", "µ")


def _registry():
    from content.physics.units import ureg

    return ureg


def unit_problem(unit: object) -> str | None:
    """Why ``unit`` cannot be a part's unit, or None when it is a fine SI-base unit."""
    if not isinstance(unit, str) or not unit.strip():
        return "must be a unit such as B, B/s, s, FLOP/s"
    try:
        parsed = _registry().parse_units(unit)
    except Exception:  # noqa: BLE001 - pint raises several error types for a bad unit
        return f"unknown unit '{unit}'"
    grader_problem = _grader_unit_problem(unit)
    if grader_problem:
        return grader_problem
    for name in parsed._units:  # noqa: SLF001 - pint exposes no public accessor for this
        if any(name.startswith(prefix) and name != prefix for prefix in _PREFIXES):
            return (
                f"write the unit without a prefix ('{unit}' has one): answers are in SI base "
                "units and students may answer with any prefix"
            )
    return None


def _grader_unit_problem(unit: str) -> str | None:
    """The grader reads units itself; a part's unit must be one it can read."""
    from quizzes.grading import parse_unit

    try:
        parse_unit(unit)
    except ValueError as exc:
        return f"the grader cannot read unit '{unit}': {exc}"
    return None


@functools.lru_cache(maxsize=512)
def _grader_factor(unit: str, target: str) -> float | None:
    """How many ``target`` make one ``unit``, as the grader converts them; None when the grader
    refuses ``target`` or it has another dimension."""
    from quizzes.grading import parse_unit

    try:
        source, spelled = parse_unit(unit), parse_unit(target)
    except ValueError:
        return None
    if source.dimensions != spelled.dimensions:
        return None
    return float(source.factor / spelled.factor)


def alternative_unit(unit: str, value: float, avoid: str = "") -> tuple[str, float] | None:
    """Another spelling of ``value`` ``unit`` with a prefix, e.g. (GB/s, 3350.0); None if none.

    Only spellings the grader reads are offered, converted with the grader's own factors.
    Prefers one whose number lies between 1 and 10 000, as a student would write it.
    """
    head, sep, tail = unit.partition("/")
    candidates: list[tuple[int, str, float]] = []
    for prefix in _ALTERNATIVES:
        candidate = f"{prefix}{head}{sep}{tail}"
        if candidate == avoid.strip():
            continue
        factor = _grader_factor(unit, candidate)
        if factor is None:
            continue
        converted = value * factor
        magnitude = abs(converted)
        if 1 <= magnitude < 1e4:
            candidates.append((0, candidate, converted))
        elif 1e-3 <= magnitude < 1e9:
            candidates.append((1, candidate, converted))
    if not candidates:
        return None
    _, best, converted = min(candidates, key=lambda c: (c[0], abs(math.log10(abs(c[2])) - 1.5)))
    return best, converted
