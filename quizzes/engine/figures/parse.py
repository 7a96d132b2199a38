"""Parsing ``figure``: a drawer's name from the fixed registry and the expressions it draws.

An author names what to draw and writes expressions over the parameters (never over a part's
answer: ``part_<id>`` names are unknown here); the engine evaluates them per variant and the
server draws the picture. No markup from the template reaches the page.
"""

from __future__ import annotations

from content.expressions import did_you_mean
from quizzes.engine.figures.limits import (
    DRAWERS,
    MAX_BARS,
    MAX_POINTS,
    MAX_SERIES,
    MAX_SERIES_NAME,
    SCALES,
)
from quizzes.engine.model import Figure, FigureBar, FigurePoint
from quizzes.engine.parse.base import ParserBase
from quizzes.engine.units import unit_problem
from quizzes.engine.yamlnodes import Loc

_FIELDS = {
    "bars": ["draw", "title", "unit", "scale", "series", "bars", "line"],
    "roofline": ["draw", "title", "accelerator", "dtype", "points", "values", "bounds"],
}


class FigureRules(ParserBase):
    def parse_figure(self, loc: Loc | None, names: frozenset[str]) -> Figure | None:
        if loc is None:
            return None
        if not isinstance(loc.children, dict):
            self.issue(loc, "figure", "must be a mapping: {draw: bars or roofline, title: ...}")
            return None
        draw = loc.get("draw")
        if draw is None or draw.value not in DRAWERS:
            shown = draw.value if draw is not None else None
            hint = did_you_mean(str(shown), DRAWERS) if shown is not None else ""
            what = f"unknown drawer {shown!r}{hint}; " if shown is not None else "is required: "
            self.issue(draw or loc, "draw", f"{what}one of {', '.join(DRAWERS)}")
            return None
        self.unknown_keys(loc, _FIELDS[draw.value], f"a {draw.value} figure")
        before = len(self.issues)
        title = self.live(self.text_field(loc, "title"), "title", names)
        fields = self._bars(loc, names) if draw.value == "bars" else self._roofline(loc, names)
        if len(self.issues) > before or title is None or fields is None:
            return None
        return Figure(draw=draw.value, title=title, line=loc.line, **fields)

    # -- bars ----------------------------------------------------------------------------------

    def _bars(self, loc: Loc, names: frozenset[str]) -> dict | None:
        unit = loc.get("unit")
        if unit is None:
            self.issue(loc, "unit", "is required: the unit of every value, such as B or B/s")
        elif problem := unit_problem(unit.value):
            self.issue(unit, "unit", problem)
        scale = loc.get("scale")
        if scale is not None and scale.value not in SCALES:
            self.issue(scale, "scale", f"must be {' or '.join(SCALES)}")
        series = self.str_list(loc.get("series"), "series") or ("value",)
        if len(series) > MAX_SERIES:
            self.issue(
                loc.get("series"), "series", f"has {len(series)} names; at most {MAX_SERIES}"
            )
        for name in series:
            if not name.strip() or len(name) > MAX_SERIES_NAME:
                self.issue(
                    loc.get("series"), "series", f"names of 1 to {MAX_SERIES_NAME} characters"
                )
        bars = loc.get("bars")
        if bars is None or not isinstance(bars.children, list) or not bars.children:
            self.issue(bars or loc, "bars", "is required: a list of {label: ..., values: [...]}")
            return None
        if len(bars.children) > MAX_BARS:
            self.issue(bars, "bars", f"has {len(bars.children)} entries; at most {MAX_BARS}")
            return None
        parsed = tuple(b for item in bars.items() if (b := self._bar(item, names, len(series))))
        reference = self._reference(loc.get("line"), names)
        if unit is None or len(parsed) != len(bars.children):
            return None
        return {
            "unit": unit.value,
            "scale": scale.value if scale is not None else "linear",
            "series": series,
            "bars": parsed,
            "reference": reference,
        }

    def _bar(self, item: Loc, names: frozenset[str], series: int) -> FigureBar | None:
        if not isinstance(item.children, dict):
            self.issue(item, "bars", "each bar is {label: ..., values: [expression, ...]}")
            return None
        self.unknown_keys(item, ["label", "value", "values"], "a bar")
        label = self.live(self.text_field(item, "label"), "label", names)
        values = item.get("values")
        if item.get("value") is not None and values is None:
            values = Loc([item.get("value").value], item.line, item.line, [item.get("value")])
        if values is None or not isinstance(values.children, list):
            self.issue(item, "values", "is required: one expression per series")
            return None
        if len(values.children) != series:
            self.issue(
                values, "values", f"has {len(values.children)}; give one per series ({series})"
            )
            return None
        exprs = tuple(self.expr(v, "values", names) for v in values.items())
        if label is None or None in exprs:
            return None
        return FigureBar(label, exprs)

    def _reference(self, loc: Loc | None, names: frozenset[str]):
        if loc is None:
            return None
        if not isinstance(loc.children, dict):
            self.issue(loc, "line", "must be {label: ..., value: expression}")
            return None
        self.unknown_keys(loc, ["label", "value"], "the line")
        label = self.live(self.text_field(loc, "label"), "label", names)
        value = self.expr(loc.get("value"), "value", names)
        return (label, value) if label is not None and value is not None else None

    # -- roofline ------------------------------------------------------------------------------

    def _roofline(self, loc: Loc, names: frozenset[str]) -> dict | None:
        fields: dict = {}
        for key in ("accelerator", "dtype"):
            fields[key] = self.expr(loc.get(key), key, names)
        for key in ("values", "bounds"):
            flag = loc.get(key)
            if flag is not None and not isinstance(flag.value, bool):
                self.issue(flag, key, "must be true or false")
            elif flag is not None:
                fields[key] = flag.value
        points = loc.get("points")
        items = points.items() if points is not None else []
        if points is not None and not isinstance(points.children, list):
            self.issue(points, "points", "must be a list of {label, intensity, performance}")
        elif len(items) > MAX_POINTS:
            self.issue(points, "points", f"has {len(items)} entries; at most {MAX_POINTS}")
            return None
        fields["points"] = tuple(p for item in items if (p := self._point(item, names)))
        if None in (fields["accelerator"], fields["dtype"]) or len(fields["points"]) != len(items):
            return None
        return fields

    def _point(self, item: Loc, names: frozenset[str]) -> FigurePoint | None:
        if not isinstance(item.children, dict):
            self.issue(item, "points", "each point is {label, intensity, performance}")
            return None
        self.unknown_keys(item, ["label", "intensity", "performance"], "a point")
        label = self.live(self.text_field(item, "label"), "label", names)
        intensity = self.expr(item.get("intensity"), "intensity", names)
        performance = None
        if item.get("performance") is not None:
            performance = self.expr(item.get("performance"), "performance", names)
            if performance is None:
                return None
        if label is None or intensity is None:
            return None
        return FigurePoint(label, intensity, performance)
