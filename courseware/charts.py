"""The roofline chart: a server-rendered, accessible SVG of attainable FLOP/s against intensity.

``roofline_svg(acc, dt, points=[(label, intensity, flops)])`` draws the roofline of one
accelerator in one data type on log-log axes, marks and labels the ridge point, and plots the
given kernels; ``roofline_figure_html`` adds the table that screen readers (and the curious) read
instead of the picture.  By default the chapter's example kernels are plotted too, each computed
with ``content.physics`` (vector additions, square matmuls of growing side, softmax, the decode
matrix-vector product of a 7B model).  Another app plots a student's kernel with, for example,
``roofline_svg("H100", "bf16", points=[("your kernel", 12.5, 40e12)], examples=False)``, or
draws a roofline from its own numbers (a stored variant's snapshot) with ``roofline_of`` and
``roofline_chart_html``, on fixed axes and, for a question that asks a value off the chart,
without the value labels.  Units are SI: intensity in FLOP/byte, rates in FLOP/s.

Two lighter lines add what the single roof leaves out: the lower flat ceiling of the ordinary
fp32 lanes, under which elementwise work and softmax run (drawn when the format's peak is a
tensor-core rate above it), and the slope of the L2 cache where the catalog has a measured L2
bandwidth (a working set that fits in L2 sees that higher line and a ridge further left).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    arithmetic_intensity,
    attainable_flops,
    dtype,
    format_number,
    format_quantity,
    matmul_bytes,
    matmul_flops,
    memory_hierarchy,
    model,
    model_flops_per_token,
    ridge_point,
    weights_bytes,
)
from courseware.chart_labels import (
    _CHAR_WIDTH,
    _LABEL_HEIGHT,
    free_spot,
    inside,
    label_box,
    measured_name,
)
from courseware.chart_labels import crosses as _crosses
from courseware.chart_labels import leader as leader_line
from courseware.chart_labels import overlaps as _overlaps

DEFAULT_ACCELERATOR = "h100-sxm"
DEFAULT_DTYPE = "bf16"
DECODE_MODEL = "llama-2-7b"
MATMUL_SIDES = (64, 256, 1024, 4096, 16384)
_MATMUL_PREFIX = "matmul "
_ELEMENTS = 1e8  # elementwise kernels: the intensity does not depend on the length

# Plot geometry in SVG user units; the SVG scales to its container.
WIDTH, HEIGHT = 760, 460
# A question's chart: narrow enough that, scaled to a 390 px phone, its labels stay readable and
# its y-axis stays in view (the new-templates review's B-S9); the plot keeps the same margins.
COMPACT_WIDTH, COMPACT_HEIGHT = 360, 330


def _decade_tick(at: float, value: float, compact: bool) -> dict:
    """A tick of the x-axis; a narrow frame writes 1000 and up (and 0.01 and down) as a power of
    ten, "10" with a raised exponent, so the labels stay apart at half the width."""
    exponent = round(math.log10(value))
    if compact and not -1 <= exponent <= 2:
        return {"at": at, "label": "10", "exponent": str(exponent)}
    return {"at": at, "label": format_number(value)}


LEFT, RIGHT, TOP, BOTTOM = 92, 24, 28, 58


@dataclass(frozen=True)
class RooflinePoint:
    """A kernel on the chart: intensity (FLOP/byte) and the FLOP/s it reaches or may reach."""

    label: str
    intensity: float
    flops: float
    memory_bound: bool
    example: bool = True
    # what the figure's table says bounds it, where "memory" or "compute" alone would mislead
    # (chapter 02's prefill attention: memory at the datasheet peaks, compute at achieved rates)
    bound: str = ""


@dataclass(frozen=True)
class Roofline:
    """The numbers behind one chart: the part, the format, its two ceilings and the points."""

    accelerator_name: str
    dtype_name: str
    peak: float
    bandwidth: float
    ridge: float
    points: tuple[RooflinePoint, ...]
    ceilings: tuple[tuple[str, float], ...] = ()  # lower flat ceilings: (label, FLOP/s)
    slopes: tuple[tuple[str, float], ...] = ()  # faster memory levels: (label, bytes/s)
    # the points are bounded by roofs of several formats (chapter 04's precision roofline): the
    # y axis names no format and the ridge label names the format whose ridge it marks (H-14)
    mixed_formats: bool = False


def _lower_ceilings(part, fmt) -> tuple[tuple[str, float], ...]:
    """The fp32 lanes' ceiling, when the format's peak is a faster (tensor-core) rate."""
    lanes = part.peak_flops.get("fp32")
    if fmt.name == "fp32" or lanes is None or not lanes < part.peak(fmt):
        return ()
    return (("fp32 lanes", lanes),)


def _faster_slopes(part) -> tuple[tuple[str, float], ...]:
    """The L2 cache's slope, where the catalog has a measured L2 bandwidth, labelled with the
    part it was measured on when that is another one ("L2 (H200)")."""
    l2 = memory_hierarchy(part)[2]
    if l2.bandwidth is None or not l2.bandwidth > part.memory_bandwidth:
        return ()
    return ((measured_name("L2", l2), l2.bandwidth),)


def example_kernels(acc, dt) -> list[tuple[str, float, float]]:
    """The roofline chapter's kernels as (label, intensity, attainable FLOP/s) on ``acc``/``dt``.

    Vector additions read two operands and write one (1 FLOP per element); softmax does about
    5 FLOP per element for one read and one write; square matmuls move each operand and the
    result once; decode multiplies every weight of the model by one token (2 FLOP per weight).
    """
    fmt = dtype(dt)
    n = _ELEMENTS
    kernels = [
        ("vector add, fp32", arithmetic_intensity(n, 3 * n * dtype("fp32").bytes)),
        ("vector add, fp16", arithmetic_intensity(n, 3 * n * dtype("fp16").bytes)),
        (f"softmax, {fmt.name}", arithmetic_intensity(5 * n, 2 * n * fmt.bytes)),
        (
            f"decode GEMV, {model(DECODE_MODEL).name}",
            arithmetic_intensity(
                model_flops_per_token(DECODE_MODEL), weights_bytes(DECODE_MODEL, fmt)
            ),
        ),
    ]
    for side in MATMUL_SIDES:
        intensity = arithmetic_intensity(
            matmul_flops(side, side, side), matmul_bytes(side, side, side, fmt)
        )
        kernels.append((f"{_MATMUL_PREFIX}n={side}", intensity))
    return [(label, i, attainable_flops(acc, fmt, i)) for label, i in kernels]


def roofline(
    acc, dt, points: Iterable[tuple[str, float, float | None]] = (), *, examples: bool = True
) -> Roofline:
    """The chart's numbers; a point whose FLOP/s is None sits on the roof at its intensity."""
    part, fmt = accelerator(acc), dtype(dt)
    ridge = ridge_point(part, fmt)
    plotted: list[RooflinePoint] = []
    if examples:
        for label, intensity, flops in example_kernels(part, fmt):
            plotted.append(RooflinePoint(label, intensity, flops, intensity < ridge))
    for label, intensity, flops in points:
        if intensity is None or not intensity > 0:
            raise ValueError(f"{label}: the intensity must be a positive number of FLOP/byte")
        reached = attainable_flops(part, fmt, intensity) if flops is None else flops
        plotted.append(RooflinePoint(str(label), intensity, reached, intensity < ridge, False))
    return Roofline(
        part.name,
        fmt.name,
        part.peak(fmt),
        part.memory_bandwidth,
        ridge,
        tuple(plotted),
        _lower_ceilings(part, fmt),
        _faster_slopes(part),
    )


def roofline_of(name: str, dtype_name: str, peak: float, bandwidth: float, points=()) -> Roofline:
    """The chart's numbers from given figures (no catalog look-up): ``points`` are (label,
    intensity, FLOP/s), none of them an example kernel."""
    ridge = peak / bandwidth
    plotted = tuple(
        RooflinePoint(str(label), float(x), float(y), x < ridge, False) for label, x, y in points
    )
    return Roofline(name, dtype_name, peak, bandwidth, ridge, plotted)


class _Axis:
    """A logarithmic axis over whole decades mapped onto [start, end] in SVG units."""

    def __init__(self, low: float, high: float, start: float, end: float) -> None:
        self.lo = math.floor(math.log10(low))
        self.hi = max(math.ceil(math.log10(high)), self.lo + 1)
        self.start, self.end = start, end

    def __call__(self, value: float) -> float:
        fraction = (math.log10(value) - self.lo) / (self.hi - self.lo)
        return round(self.start + fraction * (self.end - self.start), 1)

    def decades(self) -> list[float]:
        return [10.0**k for k in range(self.lo, self.hi + 1)]


def _place_labels(
    marks: list[dict],
    bounds: tuple[float, float, float, float],
    reserved: list[tuple],
    roof: Sequence[tuple[float, float]] = (),
    lines: Sequence[tuple[tuple[float, float], tuple[float, float]]] = (),
) -> None:
    """Put each label next to its point where it overlaps no other label, point or the edges,
    and does not touch the roofline (``roof``, its corners).

    Points on the flat roof take labels below it; points on the slope below-right or above-left
    of it.  A point just right of the ridge has the slope under its left side: its label moves
    right before it moves down (the third bank re-check's S3-5 leftover).  Where no place is
    clear of the roof, the first clear of the other labels is taken; where none is clear of the
    other labels, ``free_spot`` finds the nearest free place further out and a leader line
    joins it to its point (the sixth review's D04-7).  ``lines`` are more
    segments a label keeps as clear of as of the roof: the ridge's dashed line, which a label
    of a point just either side of the ridge otherwise sits on (the sixth re-check's S6-4).
    """
    left, top, right, bottom = bounds
    segments = list(zip(roof, roof[1:])) + list(lines)
    placed = list(reserved) + [(m["x"] - 5, m["y"] - 5, 10, 10) for m in marks]
    for mark in sorted(marks, key=lambda m: (m["x"], m["y"])):
        width = len(mark["label"]) * _CHAR_WIDTH
        x, y = mark["x"], mark["y"]
        if len(mark["label"]) <= 2:
            # a point's number (the narrow drawing) hugs its point: right, left, below, above
            candidates = [(x + 8, y + 4, "start"), (x - 8, y + 4, "end")]
            candidates += [(x, y + 17, "middle"), (x, y - 9, "middle")]
            candidates += [(x + 7, y + 16, "start"), (x - 7, y - 7, "end")]
            candidates += [(x + 7, y - 7, "start"), (x - 7, y + 16, "end")]
        elif mark["memory_bound"]:
            candidates = [(x + 8, y + 15, "start"), (x - 8, y - 6, "end")]
            candidates += [(x + 8, y + dy, "start") for dy in (29, 43, 57)]
            candidates += [(x - 8, y - dy, "end") for dy in (20, 34, 48)]
        else:
            # centred below, one row lower, else slid right just far enough (to below-right at
            # most, or as far as the frame allows): both clear a slope under its left end
            slid = [x - width / 2 + shift for shift in range(4, int(width / 2) + 9, 4)]
            slid = [min(x0, right - width) for x0 in slid]
            candidates = [(x, y + 18, "middle"), (x, y + 32, "middle")]
            candidates += [(x0, y + 18, "start") for x0 in slid]
            candidates += [(x, y + dy, "middle") for dy in (46, 60, 74)]
            candidates += [(x + 8, y + dy, "start") for dy in (32, 46)]
        boxes = []
        for tx, ty, anchor in candidates:
            x0 = {"start": tx, "end": tx - width, "middle": tx - width / 2}[anchor]
            box = (x0, ty - _LABEL_HEIGHT + 3, width, _LABEL_HEIGHT)
            inside = x0 >= left and x0 + width <= right and box[1] >= top and ty <= bottom
            if anchor == "start" and not mark["memory_bound"]:
                # a label slid along a row keeps a letter's gap to its neighbours, which would
                # otherwise sit flush with it
                box = (x0 - _CHAR_WIDTH, box[1], width + 2 * _CHAR_WIDTH, box[3])
            if inside and not _overlaps(box, placed):
                boxes.append(((tx, ty, anchor), box))
        clear = [spot for spot in boxes if not _crosses(spot[1], segments)]
        mark["leader"], mark["shown"] = None, True
        if clear or boxes:
            chosen, box = (clear or boxes)[0]
        else:
            # no place beside the point is free: the nearest free one further out, with a
            # leader line back to the point; none at all, and the label is left to the table
            found = free_spot(x, y, width, placed, bounds, segments)
            chosen, box, mark["leader"] = found or (candidates[0], None, None)
            mark["shown"] = found is not None
        if box:
            placed.append(box)
        mark["tx"], mark["ty"], mark["anchor"] = chosen


def _two_readings(point: RooflinePoint) -> bool:
    """A point whose table row names both bounds (memory at the datasheet peaks, compute at
    achieved rates): drawn as a circle inside a square, with its own legend entry, so the
    picture gives the text's verdict as well as the datasheet's (rv-3's K-17)."""
    return "memory" in point.bound and "compute" in point.bound


def _chart_labels(points: Sequence[RooflinePoint]) -> list[str]:
    """Labels as drawn: the square matmuls read as one series ("matmul n=64", then "n=256",
    "n=1024" ...), so the several that sit on the roof past the ridge do not crowd its corner."""
    labels, seen_matmul = [], False
    for point in points:
        label = point.label
        if point.example and label.startswith(_MATMUL_PREFIX):
            if seen_matmul:
                label = label.removeprefix(_MATMUL_PREFIX)
            seen_matmul = True
        labels.append(label)
    return labels


def _chart_id(chart: Roofline, title: str | None = None, variant: str = "") -> str:
    # The title too: two charts of one page with the same figures (a question's input and its
    # answer key) each need their own ids for their <title> and <desc>; the variant, for the
    # phone's drawing of a figure beside the wide one.
    text = repr((chart.accelerator_name, chart.dtype_name, chart.points)) + (title or "")
    text += variant
    return "roofline-" + hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:8]


def _context(
    chart: Roofline,
    title: str | None,
    *,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    values: bool = True,
    bounds: bool = True,
    width: int = WIDTH,
    height: int = HEIGHT,
    numbered: bool = False,
    variant: str = "",
) -> dict:
    """What the chart's template draws.  ``x_range``/``y_range`` fix the axes (the decades
    holding them) instead of fitting them to the points; ``values=False`` leaves the peak, the
    bandwidth and the ridge point unlabelled (a question asks for one of them); ``bounds=False``
    draws every point alike and leaves "memory-bound" out of the description (a question asks
    which side of the ridge a point is on).  ``numbered``
    labels each point with its number, left to right, and returns the ``key`` of numbers to
    labels (the phone's drawing of a book figure, whose labels would not fit beside the
    points)."""
    plot_right, plot_bottom = width - RIGHT, height - BOTTOM
    compact = width < WIDTH
    xs = [p.intensity for p in chart.points] + [chart.ridge]
    ys = [p.flops for p in chart.points] + [chart.peak] + [f for _, f in chart.ceilings]
    x_axis = _Axis(*(x_range or (min(xs) / 2, max(xs) * 4)), LEFT, plot_right)
    y_axis = _Axis(*(y_range or (min(ys) / 2, chart.peak * 1.5)), plot_bottom, TOP)
    x_lo, x_hi = 10.0**x_axis.lo, 10.0**x_axis.hi
    slope_start = max(x_lo, 10.0**y_axis.lo / chart.bandwidth)
    roof = [
        (x_axis(slope_start), y_axis(slope_start * chart.bandwidth)),
        (x_axis(chart.ridge), y_axis(chart.peak)),
        (x_axis(x_hi), y_axis(chart.peak)),
    ]
    marks = [
        {
            "label": label,
            "x": x_axis(p.intensity),
            "y": y_axis(p.flops),
            "memory_bound": p.memory_bound,
            # drawn alike: a diamond, neither the square nor the circle the book's legend names
            "shape": (
                ("both" if _two_readings(p) else "square" if p.memory_bound else "circle")
                if bounds
                else "diamond"
            ),
            "example": p.example,
        }
        for p, label in zip(chart.points, _chart_labels(chart.points), strict=True)
    ]
    key = []
    if numbered:
        order = sorted(range(len(marks)), key=lambda i: (chart.points[i].intensity, i))
        for n, i in enumerate(order, start=1):
            marks[i]["label"] = str(n)
            key.append({"number": n, "label": chart.points[i].label})
    ridge_text = format_quantity(chart.ridge, "FLOP/B")
    peak_label = format_quantity(chart.peak, "FLOP/s") + f" peak ({chart.dtype_name})"
    ridge_label = f"ridge point {ridge_text}"
    if chart.mixed_formats:
        ridge_label = f"{chart.dtype_name} ridge point {ridge_text}"
    if compact:  # the format is in the y-axis title, the unit of intensity in the x-axis title
        peak_label = format_quantity(chart.peak, "FLOP/s") + " peak"
        # the number alone: with its unit the label ran over the y axis in the 360-unit frame
        # when the ridge sits right of the middle (the third bank re-check's S3-5)
        ridge_label = f"ridge {format_number(chart.ridge)}"
    if not values:
        peak_label, ridge_label = f"peak ({chart.dtype_name})", "ridge point"
    ridge_x, roof_y = x_axis(chart.ridge), y_axis(chart.peak)
    ridge_start = ridge_x < (LEFT + plot_right) / 2
    ridge_width = len(ridge_label) * _CHAR_WIDTH
    reserved = [
        (plot_right - 4 - len(peak_label) * _CHAR_WIDTH, roof_y - 22, len(peak_label) * 6.8, 16),
        (
            ridge_x + 6 if ridge_start else ridge_x - 6 - ridge_width,
            plot_bottom - 21,
            ridge_width,
            16,
        ),
    ]
    slope_label = format_quantity(chart.bandwidth, "B/s") + " memory bandwidth"
    if compact:  # a narrow frame has room along the slope for the figure alone
        slope_label = format_quantity(chart.bandwidth, "B/s")
    if not values:
        slope_label = "memory bandwidth"
    peak_left = plot_right - 4 - len(peak_label) * _CHAR_WIDTH
    slope_at = _slope_label_position(
        roof, marks, len(slope_label) * _CHAR_WIDTH, clear_of_peak=peak_left < ridge_x + 30
    )
    reserved += _along(slope_at, len(slope_label) * _CHAR_WIDTH)
    slopes = []
    for name, bandwidth in chart.slopes:
        start = max(x_lo, 10.0**y_axis.lo / bandwidth)
        line = [
            (x_axis(start), y_axis(start * bandwidth)),
            (x_axis(chart.peak / bandwidth), roof_y),
        ]
        (x0, y0), (x1, y1) = line
        angle = round(math.degrees(math.atan2(y1 - y0, x1 - x0)), 1)
        # the narrow frame: the label higher up the line, clear of the axes, and shorter
        along = 0.55 if compact else 0.3
        at = {
            "x": round(x0 + (x1 - x0) * along - 6, 1),
            "y": round(y0 + (y1 - y0) * along - 8, 1),
            "angle": angle,
        }
        text = f"{name}: {format_quantity(bandwidth, 'B/s')}"
        slopes.append({"points": f"{x0},{y0} {x1},{y1}", "label": text, "at": at})
        reserved += _along(at, len(text) * _CHAR_WIDTH)
    ridge_line = ((ridge_x, roof_y), (ridge_x, plot_bottom))
    _place_labels(marks, (LEFT, TOP, plot_right, plot_bottom), reserved, roof, [ridge_line])
    ceilings = _ceiling_lines(
        chart,
        marks,
        reserved,
        (x_axis, y_axis),
        (LEFT, TOP, plot_right, plot_bottom),
        list(zip(roof, roof[1:])) + [ridge_line],
    )
    chart_id = _chart_id(chart, title, variant or ("narrow" if numbered else ""))
    return {
        "id": chart_id,
        "width": width,
        "height": height,
        "plot": {"left": LEFT, "top": TOP, "right": plot_right, "bottom": plot_bottom},
        "title": title or f"Roofline of the {chart.accelerator_name} in {chart.dtype_name}",
        "description": (
            f"Log-log roofline: attainable {'' if chart.mixed_formats else chart.dtype_name + ' '}"
            f"FLOP/s against arithmetic intensity. "
            f"The memory-bandwidth slope ({format_quantity(chart.bandwidth, 'B/s')}) meets the "
            f"compute roof ({format_quantity(chart.peak, 'FLOP/s')}) at the ridge point"
            + (f", {ridge_text}." if values else ".")
            + "".join(
                f" A lower ceiling marks the {name} at {format_quantity(f, 'FLOP/s')}."
                f" It meets the memory slope at {format_quantity(f / chart.bandwidth, 'FLOP/B')}."
                for name, f in chart.ceilings
            )
            + "".join(
                f" A higher line of the same slope marks the {name} cache at "
                f"{format_quantity(b, 'B/s')}."
                for name, b in chart.slopes
            )
            + "".join(
                f"{' ' if i == 0 else '; '}{p.label}: {format_quantity(p.intensity, 'FLOP/B')}, "
                f"{format_quantity(p.flops, 'FLOP/s')}"
                + (
                    (f", bound by {p.bound}" if p.bound else "")
                    or f", {'memory' if p.memory_bound else 'compute'}-bound"
                    if bounds
                    else ""
                )
                for i, p in enumerate(chart.points)
            )
            + ("." if chart.points else "")
        ),
        "values": values,
        "roof": " ".join(f"{x},{y}" for x, y in roof),
        "x_ticks": [_decade_tick(x_axis(v), v, compact) for v in x_axis.decades()],
        "y_ticks": [
            {"at": y_axis(v), "label": format_quantity(v, "FLOP/s")} for v in y_axis.decades()
        ],
        "ridge": {
            "x": x_axis(chart.ridge),
            "y": y_axis(chart.peak),
            "label": ridge_label,
            "anchor": "start" if ridge_start else "end",
        },
        "peak_label": peak_label,
        "slope_label": slope_label,
        "slope_label_at": slope_at,
        "ceilings": ceilings,
        "slopes": slopes,
        "marks": marks,
        "key": key,
        "numbered": numbered,
        "chart": chart,
        "rows": [
            {
                "label": p.label,
                "intensity": format_quantity(p.intensity, "FLOP/B"),
                "flops": format_quantity(p.flops, "FLOP/s"),
                "bound": p.bound or ("memory" if p.memory_bound else "compute"),
            }
            for p in sorted(chart.points, key=lambda p: p.intensity)
        ],
        "peak": format_quantity(chart.peak, "FLOP/s"),
        "bandwidth": format_quantity(chart.bandwidth, "B/s"),
        "ridge_text": ridge_text,
        # the axes' decades, for a script that maps a click on the plot back to values
        "axes": {"x": (x_axis.lo, x_axis.hi), "y": (y_axis.lo, y_axis.hi)},
    }


def _ceiling_lines(chart, marks, reserved, axes, plot, segments=()) -> list[dict]:
    """Each lower ceiling as a line from the memory slope to the right edge, its ridge (where
    it meets the slope) marked and named in its label (the sixth review's D04-7: the bf16
    ridge on the fp8 chart), the label put after the points' labels wherever it overlaps none
    of them: below the line at the right end, else above it, else at the line's left end,
    else the nearest free place with a leader line to the line."""
    x_axis, y_axis = axes
    left, top, right, bottom = plot
    x_lo = 10.0**x_axis.lo
    taken = list(reserved) + [(m["x"] - 5, m["y"] - 5, 10, 10) for m in marks]
    for m in marks:
        if m.get("shown", True):
            taken.append(label_box(m["tx"], m["ty"], m["anchor"], len(m["label"]) * _CHAR_WIDTH))
    lines = []
    for name, flops in chart.ceilings:
        y = y_axis(flops)
        knee = flops / chart.bandwidth
        start = x_axis(max(x_lo, knee))
        text = f"{name}: {format_quantity(flops, 'FLOP/s')}, ridge {format_number(knee)}"
        width = len(text) * _CHAR_WIDTH
        spots = [
            (right - 4, y + 15, "end"),
            (right - 4, y - 6, "end"),
            (start + 8, y - 6, "start"),
            (start + 8, y + 15, "start"),
        ]
        line = {"points": f"{start},{y} {right},{y}", "label": text, "leader": None}
        line["knee"] = {"x": start, "y": y} if knee > x_lo else None
        for tx, ty, anchor in spots:
            box = label_box(tx, ty, anchor, width)
            if inside(box, plot) and not _overlaps(box, taken):
                line.update(x=tx, y=ty, anchor=anchor)
                break
        else:
            found = free_spot(right - 4 - width / 2, y, width, taken, plot, segments)
            (tx, ty, anchor), box, leader = found or (spots[0], None, None)
            if box:  # the leader runs to the line beneath the label, not to the search's centre
                leader = leader_line(min(max(tx, start), right), y, box)
            line.update(x=tx, y=ty, anchor=anchor, leader=leader, shown=found is not None)
        if line.get("shown", True):
            taken.append(label_box(line["x"], line["y"], line["anchor"], width))
        lines.append(line)
    return lines


def _along(at: dict, length: float) -> list[tuple[float, float, float, float]]:
    """Boxes covering a rotated label centred on ``at`` (so point labels keep clear of it)."""
    dx, dy = math.cos(math.radians(at["angle"])), math.sin(math.radians(at["angle"]))
    boxes = []
    for step in range(-3, 4):
        cx, cy = at["x"] + dx * length * step / 6, at["y"] + dy * length * step / 6
        boxes.append((cx - 8, cy - 10, 16, 14))
    return boxes


def _slope_label_position(
    roof: Sequence[tuple[float, float]],
    marks: list[dict],
    length: float = 0.0,
    clear_of_peak: bool = False,
) -> dict:
    """Midway along the widest stretch of the sloped roof that has no point on it.  With
    ``clear_of_peak`` (the peak's label reaches back over the ridge, as in a narrow chart) a
    label of ``length`` units slides down the slope until its upper end, text included, stays
    below that label."""
    (x0, y0), (x1, y1) = roof[0], roof[1]
    stops = sorted([x0, x1] + [m["x"] for m in marks if x0 < m["x"] < x1])
    left, right = max(zip(stops, stops[1:]), key=lambda pair: pair[1] - pair[0])
    fraction = ((left + right) / 2 - x0) / (x1 - x0) if x1 > x0 else 0.5
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    if clear_of_peak and y0 > y1:
        # the text stands about 20 units above its line; the peak's label sits 8-20 above the roof
        half = length / 2 / math.hypot(x1 - x0, y1 - y0)
        highest = (y0 - (y1 + 32)) / (y0 - y1) - half
        fraction = max(min(fraction, highest), min(0.5, half))
    x = x0 + (x1 - x0) * fraction
    y = y0 + (y1 - y0) * fraction
    return {"x": round(x - 6, 1), "y": round(y - 8, 1), "angle": round(angle, 1)}


def roofline_svg(
    acc,
    dt,
    points: Iterable[tuple[str, float, float | None]] = (),
    *,
    examples: bool = True,
    title: str | None = None,
) -> SafeString:
    """The roofline of ``acc`` in ``dt`` as an inline SVG (``role="img"``, ``<title>``, ``<desc>``).

    ``points`` are extra kernels ``(label, intensity in FLOP/byte, FLOP/s or None)``; None puts
    the point on the roof.  ``examples=False`` leaves out the chapter's example kernels.
    KeyError for an unknown part or a format the part has no rate for; ValueError for a point
    without a positive intensity.
    """
    chart = roofline(acc, dt, points, examples=examples)
    return render_to_string("courseware/_roofline_chart.html", _context(chart, title))


def roofline_pair_html(
    acc,
    dt,
    points: Iterable[tuple[str, float, float | None]] = (),
    *,
    examples: bool = True,
    title: str | None = None,
) -> SafeString:
    """``roofline_svg``'s chart in two drawings, one shown by CSS (``static/css/book.css``):
    the wide one, and below 40rem the narrow frame with the labels beside the points (a
    student's one or two kernels fit there), so a results page's chart reads on a phone."""
    chart = roofline(acc, dt, points, examples=examples)
    wide = render_to_string("courseware/_roofline_chart.html", _context(chart, title))
    narrow = _context(chart, title, width=COMPACT_WIDTH, height=COMPACT_HEIGHT, variant="narrow")
    return format_html(
        '<div class="chart-wide">{}</div><div class="chart-narrow">{}</div>',
        wide,
        render_to_string("courseware/_roofline_chart.html", narrow),
    )


def roofline_chart_html(
    chart: Roofline,
    *,
    title: str | None = None,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    values: bool = True,
    bounds: bool = True,
    compact: bool = False,
) -> SafeString:
    """``chart`` (from ``roofline_of``) as an inline SVG, on fixed axes if given; ``compact``
    draws it in a narrower frame (a question's chart, which must read on a phone)."""
    size = (COMPACT_WIDTH, COMPACT_HEIGHT) if compact else (WIDTH, HEIGHT)
    context = _context(
        chart,
        title,
        x_range=x_range,
        y_range=y_range,
        values=values,
        bounds=bounds,
        width=size[0],
        height=size[1],
    )
    return render_to_string("courseware/_roofline_chart.html", context)


def roofline_figure_html(
    acc=DEFAULT_ACCELERATOR,
    dt=DEFAULT_DTYPE,
    points: Iterable[tuple[str, float, float | None]] = (),
    *,
    examples: bool = True,
) -> SafeString:
    """The SVG and, under it, a table with the same numbers."""
    return chart_figure_html(roofline(acc, dt, points, examples=examples))


def chart_figure_html(
    chart: Roofline, *, numbered_labels: bool = False, collapsed: bool = False
) -> SafeString:
    """``chart`` (built by the caller, e.g. with a second, lower roof) as the SVG and its table.

    ``numbered_labels`` prefixes each wide label and table row with the number the phone's
    drawing gives its point, so a text can say "point 3" for both; ``collapsed`` folds the table
    into a ``<details>``, as the bar figures' (chapters 02 and 03: pre-02b, pre-03).

    Two drawings of one chart: the wide one with its labels beside the points, and for a phone
    (a CSS media query shows one and hides the other, so a screen reader meets one) the narrow
    frame with numbered points and a key beneath: scaled to 390 px, the wide drawing's 11-unit
    labels would be under 5 px tall, and its labels do not fit beside the points in 360 units
    (the sixth reviews' C00-8, D03-10)."""
    narrow = _context(chart, None, width=COMPACT_WIDTH, height=COMPACT_HEIGHT, numbered=True)
    wide = chart
    if numbered_labels:
        order = sorted(range(len(chart.points)), key=lambda i: (chart.points[i].intensity, i))
        number = {i: n for n, i in enumerate(order, start=1)}
        points = tuple(
            dataclasses.replace(p, label=f"{number[i]}. {p.label}")
            for i, p in enumerate(chart.points)
        )
        wide = dataclasses.replace(chart, points=points)
    context = _context(wide, None)
    context["narrow_svg"] = render_to_string("courseware/_roofline_chart.html", narrow)
    context["narrow_key"] = narrow["key"]
    context["two_readings"] = any(_two_readings(p) for p in chart.points)
    context["collapsed"] = collapsed  # the table folded into a <details>, as the bar figures'
    return render_to_string("courseware/_roofline_figure.html", context)


def roofline_widget_html(acc=DEFAULT_ACCELERATOR, dt=DEFAULT_DTYPE) -> SafeString:
    """The interactive chart for a chapter page: the part/format form and the figure."""
    from courseware.forms import RooflineForm

    form = RooflineForm(initial={"accelerator": accelerator(acc).key, "dtype": dtype(dt).name})
    figure = roofline_figure_html(acc, dt)
    return render_to_string("courseware/_roofline_widget.html", {"form": form, "figure": figure})
