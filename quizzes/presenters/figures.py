"""A question's figure as HTML: the SVG of a variant's drawn numbers (``engine.figures``).

Two drawers: horizontal ``bars`` (stacked series, a linear or logarithmic axis, an optional
reference line such as a serving budget) and the ``roofline`` with the variant's kernels, drawn
by ``courseware.charts`` in its narrow frame. Both are 360 SVG units wide, the frame that stays
readable on a 390 px phone (the roofline part's, ledger B-S9); each bar's label and value sit
on one line above it, so no text runs past the right edge. Every label went through the
template engine's autoescaping; the figure carries a title, a description and its numbers as a
table, for a screen reader and for anyone who wants the exact figures.

The HTML is part of the question view, rendered and cached with it per variant
(``display._cached``) under ``drawing_digest()``, which the attempt page's section memo keys on
too: a changed drawing template is never served an old picture; bump ``FIGURE_VERSION`` when
this module changes what it draws.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache
from pathlib import Path

from django.template import loader
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import format_quantity

FIGURE_VERSION = 2
TEMPLATES = ("quizzes/_figure_bars.html", "quizzes/_figure_roofline.html")
WIDTH, LEFT, RIGHT = 360, 6, 350  # SVG units: bars run from LEFT to RIGHT
ROW, TOP, LINE = 40, 34, 16  # a bar's row; the first bar's top; one more line of text
LINE_CHARS = 46  # characters of 14-unit text that fit the frame's width
# The book's bar colours (static/css/book.css), one per series in order.
SERIES_CLASSES = ("weights", "cache", "link", "network")


@lru_cache(maxsize=1)
def drawing_digest() -> str:
    """What a drawn figure depends on besides the variant: this module's version and the
    drawing templates' own source."""
    digest = hashlib.sha256(str(FIGURE_VERSION).encode())
    for name in TEMPLATES:
        digest.update(Path(loader.get_template(name).origin.name).read_bytes())
    return f"figure{digest.hexdigest()[:12]}"


def figure_html(drawn) -> SafeString | str:
    """The figure of a variant (``engine.figures.DrawnFigure``), or "" when there is none."""
    if drawn is None:
        return ""
    if drawn.draw == "roofline":
        return _roofline(drawn)
    return _bars(drawn)


def _figure_id(drawn) -> str:
    digest = hashlib.sha1(repr(drawn).encode(), usedforsecurity=False).hexdigest()[:8]
    return f"figure-{digest}"


def _quantity(value: float, unit: str, sig: int = 3) -> str:
    return format_quantity(value, unit, sig=sig) if value else f"0 {unit}"


# ---- bars ------------------------------------------------------------------------------------


def _nice_top(largest: float) -> float:
    """The axis end: the first of 1, 2, 2.5, 5 × 10^k at or above ``largest`` × 1.04."""
    target = largest * 1.04
    power = 10.0 ** math.floor(math.log10(target))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= target:
            return step * power
    return 10 * power


def _exact_sig(value: float) -> int:
    """The fewest significant figures (at least 2) that write ``value`` exactly, so a tick at
    1.25 GB reads "1.25 GB", not "1.3 GB" (bank-rc6 S6-5); a quarter of a 1-2-2.5-5 axis end
    needs at most four."""
    for sig in range(2, 7):
        if math.isclose(float(f"{value:.{sig}g}"), value, rel_tol=1e-9):
            return sig
    return 6


def _axis(drawn):
    """(position of a value, tick values) for the figure's scale."""
    totals = [bar.total for bar in drawn.bars] + ([drawn.reference[1]] if drawn.reference else [])
    if drawn.scale == "log":
        smallest = min(v for bar in drawn.bars for v in bar.values if v > 0)
        low, high = math.floor(math.log10(smallest)), math.ceil(math.log10(max(totals)))
        high = max(high, low + 1)

        def at(value: float) -> float:
            if value <= 0:
                return LEFT
            fraction = (math.log10(value) - low) / (high - low)
            return LEFT + (RIGHT - LEFT) * fraction

        step = max(1, math.ceil((high - low) / 5))
        return at, [10.0**k for k in range(low, high + 1, step)], 10.0**low
    top = _nice_top(max(totals))

    def at(value: float) -> float:  # noqa: F811 - one of two scales
        return LEFT + (RIGHT - LEFT) * value / top

    return at, [top * k / 4 for k in range(5)], 0.0


def _bars(drawn) -> SafeString:
    at, ticks, origin = _axis(drawn)
    stacked = len(drawn.series) > 1
    bars, y = [], TOP
    for bar in drawn.bars:
        segments, start = [], origin
        for cls, value in zip(SERIES_CLASSES, bar.values, strict=False):
            if value <= 0:
                continue
            x0, x1 = at(start), at(start + value)
            segments.append({"cls": cls if stacked else "level", "x": x0, "width": max(x1 - x0, 1)})
            start += value
        value = _quantity(bar.total, drawn.unit)
        # A label and its value share a line while they fit the frame; else the value goes on
        # a line of its own, so nothing runs past the right edge on a phone.
        wrapped = len(bar.label) + len(value) + 2 > LINE_CHARS
        y += LINE if wrapped else 0
        bars.append(
            {"label": bar.label, "value": value, "y": y, "wrapped": wrapped, "segments": segments}
        )
        y += ROW
    axis_y = y - 8
    line = None
    if drawn.reference is not None:
        x = at(drawn.reference[1])
        text = f"{drawn.reference[0]}: {_quantity(drawn.reference[1], drawn.unit)}"
        line = {"x": x, "text": text, "anchor": "end" if x > WIDTH / 2 else "start"}
    tick_marks = [
        {
            "x": at(v) if v else LEFT,
            "text": format_quantity(v, drawn.unit, sig=_exact_sig(v)) if v else "0",
            "anchor": "start" if n == 0 else "end" if n == len(ticks) - 1 else "middle",
        }
        for n, v in enumerate(ticks)
    ]
    # Gridlines run only beside the bars, never through the label lines above them.
    grid = [
        {"x": mark["x"], "y1": bar["y"] - 1, "y2": bar["y"] + 16}
        for mark in tick_marks
        for bar in bars
    ]
    head = ["bar", *(drawn.series if stacked else ()), "total" if stacked else "value"]
    table = [
        [
            bar.label,
            *(_quantity(v, drawn.unit) for v in (bar.values if stacked else ())),
            _quantity(bar.total, drawn.unit),
        ]
        for bar in drawn.bars
    ]
    scale = "logarithmic" if drawn.scale == "log" else "linear"
    description = (
        f"Horizontal bars on a {scale} axis in {drawn.unit}: "
        + "; ".join(
            f"{bar.label}: "
            + (
                ", ".join(
                    f"{s} {_quantity(v, drawn.unit)}"
                    for s, v in zip(drawn.series, bar.values, strict=False)
                )
                + f", total {_quantity(bar.total, drawn.unit)}"
                if stacked
                else _quantity(bar.total, drawn.unit)
            )
            for bar in drawn.bars
        )
        + (f". A line marks the {line['text']}." if line else ".")
    )
    return render_to_string(
        "quizzes/_figure_bars.html",
        {
            "id": _figure_id(drawn),
            "title": drawn.title,
            "description": description,
            "width": WIDTH,
            "height": axis_y + 22,
            "axis_y": axis_y,
            "bars": bars,
            "ticks": tick_marks,
            "grid": grid,
            "line": line,
            "keys": list(zip(SERIES_CLASSES, drawn.series, strict=False)) if stacked else [],
            "scale_note": "Each division of the axis is ten times the one before."
            if drawn.scale == "log"
            else "",
            "table_head": head,
            "table": table,
            "reference": line["text"] if line else "",
        },
    )


# ---- roofline --------------------------------------------------------------------------------


def _roofline(drawn) -> SafeString:
    from courseware.charts import roofline_chart_html, roofline_of

    chart = roofline_of(drawn.accelerator, drawn.dtype, drawn.peak, drawn.bandwidth, drawn.points)
    svg = roofline_chart_html(
        chart,
        title=drawn.title,
        x_range=drawn.x_range,
        y_range=drawn.y_range,
        values=drawn.values,
        bounds=drawn.bounds,
        compact=True,
    )
    rows = [
        [
            label,
            format_quantity(x, "FLOP/B"),
            format_quantity(y, "FLOP/s"),
        ]
        for label, x, y in sorted(drawn.points, key=lambda p: p[1])
    ]
    return render_to_string(
        "quizzes/_figure_roofline.html",
        {
            "id": _figure_id(drawn),
            "svg": svg,
            "title": drawn.title,
            "table": rows,
            "values": drawn.values,
            "peak": format_quantity(drawn.peak, "FLOP/s"),
            "bandwidth": format_quantity(drawn.bandwidth, "B/s"),
            "dtype": drawn.dtype,
            "name": drawn.accelerator,
        },
    )
