"""Helpers several kinds share: reading an answer expression with its unit and tolerance,
``plausible`` ranges, quantities as text, a unit hint, and lists of items with ids and text
(a choice's options, an ordering's items, a matching's items and categories).

A kind's folder imports from here and from the engine's public modules, never from another
kind's folder, so a kind can be removed by deleting its folder and its registration line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from content.expressions import ExpressionError, evaluate
from quizzes.engine.errors import TemplateIssue
from quizzes.engine.model import Expr, Template, Text
from quizzes.engine.parse.base import OPTION_ID, as_number, option_letter
from quizzes.engine.units import unit_problem

_UNIT_EXAMPLES = {"B": "GB", "B/s": "TB/s", "s": "ms", "FLOP": "TFLOP", "FLOP/s": "TFLOP/s"}


# -- numbers with units ---------------------------------------------------------------------------


def parse_number_fields(
    rules, loc, names: frozenset[str], *, what: str, extra: tuple[str, ...] = ("rtol", "atol")
) -> dict[str, Any]:
    """`answer` (required) and `unit` of a part, and those of `extra` (tolerances, `factor`)
    that it gives."""
    fields: dict[str, Any] = {"answer": rules.expr(loc.get("answer"), "answer", names)}
    if loc.get("answer") is None:
        rules.issues[-1] = TemplateIssue(loc.line, "answer", f"{what} needs an answer")
    unit = loc.get("unit")
    if unit is not None:
        problem = unit_problem(unit.value)
        if problem:
            rules.issue(unit, "unit", problem)
        fields["unit"] = str(unit.value)
    for key in extra:
        value = rules.number(loc.get(key), key)
        if value is not None:
            if value < 0 or (key == "factor" and value <= 1):
                rules.issue(
                    loc.get(key), key, "out of range" + (" (> 1)" if key == "factor" else "")
                )
            fields[key] = value
    return fields


def parse_plausible(rules, loc, what: str) -> dict[str, Any]:
    """`plausible: [low, high]`, which every part with a numeric answer needs."""
    plausible = loc.get("plausible")
    pair = (
        [as_number(v) for v in plausible.value]
        if plausible is not None and isinstance(plausible.value, list)
        else []
    )
    if plausible is None:
        rules.issue(loc, "plausible", f"{what} needs plausible: [low, high]")
    elif len(pair) != 2 or None in pair or pair[0] > pair[1]:
        rules.issue(plausible, "plausible", "must be [low, high] with low <= high")
    else:
        return {"plausible": (pair[0], pair[1])}
    return {}


def number_value(template: Template, expr: Expr, names: Mapping[str, object], what: str) -> float:
    """An answer expression's value, which must be a number (ExpressionError otherwise)."""
    value = evaluate(expr.text, names, source=template.source, line=expr.line)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(
            template.source, expr.line, expr.text, f"{what} must be a number, not {value!r}"
        )
    return float(value)


def quantity_text(value: float, unit: str | None, *, sig: int | None = None) -> str:
    """ "1.23 ms" for an answer key; the number alone when there is no unit."""
    from content.physics import format_quantity

    options = {} if sig is None else {"sig": sig}
    try:
        if unit:
            return format_quantity(value, unit, **options)
    except (ValueError, KeyError):
        return f"{value:.6g} {unit}".strip()
    return f"{value:.6g}" if sig is None else f"{value:.{sig}g}"


def demo_quantity(value: float, unit: str | None) -> str:
    """A value as a student might type it, for demo data."""
    from content.physics import format_quantity

    if not math.isfinite(value):
        return "0"
    if unit:
        try:
            return format_quantity(value, unit)
        except (ValueError, KeyError):
            pass
    return f"{value:.4g}" + (f" {unit}" if unit else "")


def unit_hint(unit: str | None) -> str:
    """ "Answer in a unit of data rate, e.g. TB/s." for a part's SI unit."""
    if not unit:
        return "Answer with a plain number (no unit)."
    try:
        from quizzes.grading import parse_unit
        from quizzes.grading.quantities import describe_dimensions

        phrase, example = describe_dimensions(parse_unit(unit).dimensions)
    except Exception:  # noqa: BLE001 - a hint is a courtesy; never fail the page for it
        phrase, example = f"a quantity in {unit}", None
    example = example or _UNIT_EXAMPLES.get(unit, unit)
    phrase = phrase.removeprefix("an ").removeprefix("a ")
    return f"Answer in a unit of {phrase}, e.g. {example}."


def finite_and_plausible(checks, part_id: str, answer: float, plausible, seed: int) -> bool:
    """Report an answer that is not finite or outside `plausible` (low, high); False when it
    is not finite (nothing else can be checked)."""
    if not math.isfinite(answer):
        checks.failures.add("answer", f"the answer is not finite ({answer})", seed, part_id)
        return False
    low, high = plausible or (-math.inf, math.inf)
    if not low <= answer <= high:
        checks.failures.add(
            "plausible",
            f"answer {answer:.4g} is outside plausible [{low:.4g}, {high:.4g}]",
            seed,
            part_id,
            fold="plausible",
        )
    return True


# -- items with ids and text --------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One item a student sees and picks, orders or matches: a stable id and live text, and
    whatever the kind reads besides (`extra`: field name -> Expr, Text or a plain value)."""

    id: str
    text: Text
    extra: tuple[tuple[str, Any], ...] = ()
    line: int | None = None

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.extra).get(name, default)


def parse_items(
    rules,
    loc,
    field: str,
    names: frozenset[str],
    *,
    least: int,
    most: int,
    extra: Mapping[str, Any] | None = None,
) -> tuple[Item, ...]:
    """The list `field` of items, each ``{id, text, ...}`` (an id defaults to a, b, c ...);
    `extra` maps each further allowed key to "expr" (an expression), "live" (live text),
    "code" (a diagnosis code) or a function ``(rules, loc, names) -> value or None`` that reads
    it.  Every problem is an issue with its line."""
    extra = dict(extra or {})
    items_loc = loc.get(field)
    if items_loc is None or not isinstance(items_loc.children, list):
        rules.issue(items_loc or loc, field, f"list {least} to {most} entries")
        return ()
    entries = items_loc.items()
    if not least <= len(entries) <= most:
        rules.issue(items_loc, field, f"has {len(entries)} entries; list {least} to {most}")
        if len(entries) > most:
            return ()
    items: list[Item] = []
    for index, entry in enumerate(entries):
        item = _parse_item(rules, entry, field, index, names, extra)
        if item is None:
            continue
        if any(i.id == item.id for i in items):
            rules.issue(entry.get("id") or entry, "id", f"id '{item.id}' is used twice")
            continue
        items.append(item)
    return tuple(items)


def _parse_item(rules, loc, field: str, index: int, names, extra: dict[str, str]) -> Item | None:
    if not isinstance(loc.children, dict):
        rules.issue(loc, field, "each entry is a mapping with at least text")
        return None
    rules.unknown_keys(loc, ["id", "text", *extra], f"an entry of {field}")
    id_loc = loc.get("id")
    ident = str(id_loc.value) if id_loc is not None else option_letter(index)
    if id_loc is not None and isinstance(id_loc.value, bool):
        rules.issue(id_loc, "id", "YAML reads yes/no/on/off as true/false: quote the id")
        return None
    if not OPTION_ID.fullmatch(ident):
        rules.issue(id_loc, "id", "ids use [a-z0-9_-], at most 50 characters")
        return None
    text = rules.live(rules.text_field(loc, "text"), "text", names)
    values: list[tuple[str, Any]] = []
    for key, how in extra.items():
        child = loc.get(key)
        if child is None:
            continue
        if callable(how):
            value = how(rules, child, names)
        elif how == "expr":
            value = rules.expr(child, key, names)
        elif how == "live":
            value = rules.live(child, key, names)
        elif how == "code":
            value = rules.parse_code(child, key)
        else:
            value = child.value
        if value is not None:
            values.append((key, value))
    if text is None:
        return None
    return Item(ident, text, tuple(values), loc.line)
