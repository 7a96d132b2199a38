"""The roofline kind, the first graphical one: the student places a kernel on the variant's
roofline chart (``ask: point``: its arithmetic intensity and the FLOP/s it can reach), or reads
one value off the chart (``ask: intensity``, such as the ridge point; ``ask: performance``,
the attainable FLOP/s at a given intensity).

The chart is drawn on the server from the variant's own figures (``courseware.charts``) on axes
that do not depend on the answer.  A click on the chart fills the coordinates in (a small
script); without the script, and for a keyboard or a screen reader, the coordinates are typed
as numbers: FLOP per byte and FLOP/s, a bare number or one with its unit (``989 TFLOP/s``).

Graded in log space: a coordinate is right when it is within a factor of ``tolerance`` of the
true one (1.2 by default: 20 % either way).  Placing a point earns half the credit per
coordinate; a reading is right or wrong.  A kernel given the peak where it is memory-bound is
diagnosed ``peak-for-attainable``; one put on the bandwidth slope past the ridge
``memory-vs-compute-bound``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from content.expressions import ExpressionError, evaluate
from quizzes.engine.errors import TemplateIssue
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, AnswerRefused, Rendered
from quizzes.engine.kinds.roofline_point.coordinates import (
    COORDINATES,
    read_coordinate,
    shown_coordinate,
)
from quizzes.engine.model import Expr

ASKS = {"point": COORDINATES, "intensity": COORDINATES[:1], "performance": COORDINATES[1:]}
DEFAULT_TOLERANCE = 1.2
MAX_TEXT = 100


@dataclass(frozen=True)
class RooflineSettings:
    accelerator: Expr | None
    dtype: Expr | None
    ask: str = "point"
    intensity: Expr | None = None
    performance: Expr | None = None
    tolerance: float = DEFAULT_TOLERANCE
    values: bool = True


@register
class RooflineKind(AnswerKind):
    name = "roofline_point"
    label = "Roofline point (place or read on the chart)"
    fields = ("accelerator", "dtype", "ask", "intensity", "performance", "tolerance", "values")
    noun = "a point"

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> RooflineSettings:
        fields: dict[str, object] = {}
        for key in ("accelerator", "dtype", "intensity"):
            fields[key] = rules.expr(loc.get(key), key, answer_names)
            if loc.get(key) is None:
                rules.issues[-1] = TemplateIssue(loc.line, key, _needs(key))
        if loc.get("performance") is not None:
            fields["performance"] = rules.expr(loc.get("performance"), "performance", answer_names)
        ask = loc.get("ask")
        if ask is not None:
            if ask.value not in ASKS:
                rules.issue(ask, "ask", "must be point, intensity or performance")
            else:
                fields["ask"] = ask.value
        tolerance = rules.number(loc.get("tolerance"), "tolerance")
        if tolerance is not None:
            if not 1 < tolerance <= 10:
                rules.issue(loc.get("tolerance"), "tolerance", "must be more than 1, at most 10")
            else:
                fields["tolerance"] = float(tolerance)
        values = loc.get("values")
        if values is not None:
            if not isinstance(values.value, bool):
                rules.issue(values, "values", "must be true or false")
            else:
                fields["values"] = values.value
        return RooflineSettings(**fields)

    def answer(self, template, part, names) -> tuple[float, float]:
        """(intensity in FLOP/byte, FLOP/s) of the right point; the FLOP/s default to what
        the roofline allows at that intensity."""
        acc, dt = _hardware(template.source, part.settings, names)
        x = self._number(template, part.settings.intensity, names, "the intensity")
        if part.settings.performance is None:
            from content.physics import attainable_flops

            return x, float(attainable_flops(acc, dt, x)) if x > 0 else math.nan
        return x, self._number(template, part.settings.performance, names, "the performance")

    def validate(self, checks, part, variant, seed) -> None:
        from quizzes.engine.kinds.roofline_point.checks import check_part

        check_part(self, checks, part, variant, seed)

    def render(self, template, part, variant, names) -> Rendered:
        facts = figures(_hardware(template.source, part.settings, names), part.settings)
        if part.settings.ask == "performance":
            # where the FLOP/s are read: part of the question, not of its answer
            facts["at"] = variant.answers[part.id][0]
        return Rendered({}, facts)

    # -- answering ----------------------------------------------------------------------------

    def clean(self, raw, part) -> dict[str, str]:
        """The typed coordinates by name ({"intensity": "52", ...}), as the form posts them
        (one text box per asked coordinate, in order); refused when one is missing."""
        asked = ASKS[part.settings.ask]
        values = [raw] if isinstance(raw, str) else list(raw or [])
        if len(values) != len(asked):
            raise AnswerRefused("Give the point's coordinates in the boxes under the chart.")
        texts = {name: str(value).strip() for name, value in zip(asked, values, strict=True)}
        for name, text in texts.items():
            if not text:
                raise AnswerRefused(f"Give the {_word(name)} before checking.")
            if len(text) > MAX_TEXT:
                raise AnswerRefused(f"The {_word(name)} is too long: write it as 3.2e13 or 32 T.")
        return texts

    def draft(self, raw) -> str:
        values = [raw] if isinstance(raw, str) else list(raw or [])
        texts = [str(v)[:MAX_TEXT] for v in values[: len(COORDINATES)]]
        return json.dumps(texts) if any(t.strip() for t in texts) else ""

    def stored(self, clean) -> str:
        return json.dumps(clean)

    def from_stored(self, raw: str) -> dict[str, str]:
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        if isinstance(value, list):  # an exam's draft: the boxes' texts in order
            return {"_boxes": [str(v) for v in value]}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        from quizzes.engine.kinds.roofline_point.grading import grade_point

        texts = self.from_stored(response) if isinstance(response, str) else dict(response)
        if "_boxes" in texts:
            try:
                texts = self.clean(texts["_boxes"], part)
            except AnswerRefused as refused:
                from quizzes.grading.results import Grade

                return Grade("invalid", 0.0, str(refused))
        return grade_point(part.settings, texts, variant.answers[part.id], _figures(variant, part))

    def read_back(self, part, raw) -> tuple[bool, str]:
        texts = self.from_stored(raw)
        if "_boxes" in texts:
            try:
                texts = self.clean(texts["_boxes"], part)
            except AnswerRefused as refused:
                return False, f"Cannot be read: {refused}"
        shown = []
        for name in ASKS[part.settings.ask]:
            try:
                shown.append(shown_coordinate(name, read_coordinate(name, texts.get(name, ""))))
            except ValueError as error:
                return False, f"Cannot be read: {error}"
        return True, "Read as " + ", ".join(shown)

    # -- showing ------------------------------------------------------------------------------

    def input_state(self, facts, raw) -> dict[str, str]:
        texts = self.from_stored(raw)
        boxes = texts.pop("_boxes", None)
        if boxes is not None:
            texts = dict(zip(facts.get("asked", COORDINATES), boxes, strict=False))
        point = _point(facts, texts)
        return {**texts, **({"points": [("your point", *point)]} if point else {})}

    def reading(self, facts, raw, interpreted) -> dict:
        """The coordinates as typed, as read (base units), and the point they make."""
        texts = self.from_stored(raw)
        point = _point(facts, texts)
        return {
            "typed": ", ".join(t for k, t in texts.items() if k in COORDINATES),
            "text": interpreted or "",
            "points": [("your point", *point)] if point else [],
        }

    def answer_key(self, part, answer) -> dict:
        x, y = answer
        shown = [shown_coordinate(name, value) for name, value in zip(COORDINATES, (x, y))]
        asked = ASKS[part.settings.ask]
        text = ", ".join(s for name, s in zip(COORDINATES, shown) if name in asked)
        return {"text": text, "points": [("the right point", x, y)]}

    def answer_text(self, part, answer, *, sig=None) -> str:
        return self.answer_key(part, answer)["text"]

    def demo_answer(self, part, answer, common, right, rng):
        x, y = answer
        factor = 1.0 if right else rng.choice([0.25, 4.0])
        texts = dict(zip(COORDINATES, (f"{x * factor:.3g}", f"{y:.3g}"), strict=True))
        asked = ASKS[part.settings.ask]
        return self.stored({k: v for k, v in texts.items() if k in asked}), None, ""

    def _number(self, template, expr: Expr, names, what: str) -> float:
        value = evaluate(expr.text, names, source=template.source, line=expr.line)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExpressionError(
                template.source, expr.line, expr.text, f"{what} must be a number, not {value!r}"
            )
        return float(value)


def _hardware(source: str, settings, names):
    """The part's accelerator and data type (catalog entries) in a variant's `names`."""
    from content.physics import accelerator, dtype

    values = []
    for expr in (settings.accelerator, settings.dtype):
        try:
            value = evaluate(expr.text, names, source=source, line=expr.line)
            values.append(accelerator(value) if not values else dtype(value))
        except (KeyError, TypeError, ValueError) as error:
            raise ExpressionError(source, expr.line, expr.text, str(error)) from None
    acc, dt = values
    try:
        acc.peak(dt)
    except (KeyError, ValueError) as error:
        expr = settings.dtype
        raise ExpressionError(source, expr.line, expr.text, str(error)) from None
    return acc, dt


def figures(hardware, settings) -> dict:
    """What the chart is drawn from (a student may see all of it): the part's accelerator and
    data type, its ceilings, fixed axes around the ridge point, what is asked."""
    acc, dt = hardware
    peak, bandwidth = float(acc.peak(dt)), float(acc.memory_bandwidth)
    ridge = math.log10(peak / bandwidth)
    return {
        "name": acc.name,
        "dtype": dt.name,
        "peak": peak,
        "bandwidth": bandwidth,
        "x_range": (10.0 ** (math.floor(ridge) - 3), 10.0 ** (math.ceil(ridge) + 2)),
        "y_range": (10.0 ** (math.floor(math.log10(peak)) - 4), peak * 1.5),
        "values": settings.values,
        "asked": ASKS[settings.ask],
    }


def _figures(variant, part) -> dict:
    """The chart's figures of a stored variant (its own catalog snapshot)."""
    from quizzes.engine.namespace import names_for

    with variant.replaying():
        hardware = _hardware("<variant>", part.settings, names_for(variant.params))
    return figures(hardware, part.settings)


def _point(facts, texts) -> tuple[float, float] | None:
    """The point the typed coordinates put on the chart, if they can be read."""
    try:
        if "intensity" in facts.get("asked", ()):
            x = read_coordinate("intensity", texts.get("intensity", ""))
        else:
            x = facts["at"]
        if "performance" in facts.get("asked", ()):
            y = read_coordinate("performance", texts.get("performance", ""))
        else:
            y = min(facts["peak"], x * facts["bandwidth"])
    except (ValueError, KeyError, TypeError):
        return None
    return x, y


def _needs(key: str) -> str:
    return {
        "accelerator": "a roofline part needs accelerator: the chart's accelerator",
        "dtype": "a roofline part needs dtype: the data type of its peak",
        "intensity": "a roofline part needs intensity: the kernel's FLOP per byte",
    }[key]


def _word(name: str) -> str:
    return {"intensity": "arithmetic intensity", "performance": "attainable FLOP/s"}[name]
