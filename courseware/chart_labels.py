"""Where a chart's text goes: boxes of labels, the test for overlap, and the search for a free
place that the roofline chart (``courseware.charts``) uses for its points' and ceilings' labels.

A label is a box ``(x, y, width, height)`` in SVG units, ``_CHAR_WIDTH`` per character and
``_LABEL_HEIGHT`` tall, its baseline 3 units above the box's bottom.  ``free_spot`` is the last
resort of every placement: when none of a label's preferred places is free, it searches outward
from the thing labelled for the nearest place that overlaps nothing, and the chart draws a thin
leader line from the label back to its mark.  A label is never drawn over another (the sixth
review's D04-7: the fp8 chart's "bf16 roof" label ran over the 4-bit point's label because the
placement fell back to its first choice).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

_CHAR_WIDTH, _LABEL_HEIGHT = 6.4, 13
# a point's label keeps this far from the roofline (half its 2.5-unit stroke, and a gap)
_ROOF_CLEARANCE = 2.5
# the search's rings: every 10 units out to 200, sixteen directions on each
_RING_STEP, _RING_REACH, _DIRECTIONS = 10, 200, 16

Box = tuple[float, float, float, float]


def overlaps(box: Box, boxes: Sequence[Box]) -> bool:
    x, y, w, h = box
    return any(
        x < bx + bw and bx < x + w and y < by + bh and by < y + h for bx, by, bw, bh in boxes
    )


def crosses(box: Box, segments, margin: float = _ROOF_CLEARANCE) -> bool:
    """Whether a line segment ((x0, y0), (x1, y1)) of ``segments`` passes through ``box`` grown
    by ``margin`` on every side (Liang-Barsky clipping)."""
    bx, by, bw, bh = box
    bx, by, bw, bh = bx - margin, by - margin, bw + 2 * margin, bh + 2 * margin
    for (x0, y0), (x1, y1) in segments:
        dx, dy = x1 - x0, y1 - y0
        enter, leave = 0.0, 1.0
        for p, q in ((-dx, x0 - bx), (dx, bx + bw - x0), (-dy, y0 - by), (dy, by + bh - y0)):
            if p == 0:
                if q < 0:
                    break
                continue
            t = q / p
            if p < 0:
                enter = max(enter, t)
            else:
                leave = min(leave, t)
            if enter > leave:
                break
        else:
            return True
    return False


def label_box(tx: float, ty: float, anchor: str, width: float) -> Box:
    """The box of a label of ``width`` drawn at (tx, ty) with ``text-anchor`` ``anchor``."""
    x0 = {"start": tx, "end": tx - width, "middle": tx - width / 2}[anchor]
    return (x0, ty - _LABEL_HEIGHT + 3, width, _LABEL_HEIGHT)


def inside(box: Box, bounds: tuple[float, float, float, float]) -> bool:
    left, top, right, bottom = bounds
    x, y, w, h = box
    return x >= left and x + w <= right and y >= top and y + h <= bottom + 3


def free_spot(
    x: float,
    y: float,
    width: float,
    taken: Sequence[Box],
    bounds: tuple[float, float, float, float],
    segments=(),
) -> tuple[tuple[float, float, str], Box, dict] | None:
    """The nearest place around (x, y) for a label ``width`` wide that lies within ``bounds``
    and overlaps none of ``taken``, preferring one clear of ``segments`` too: ((tx, ty,
    "middle"), its box, a leader line from (x, y) to the box's nearest edge), or None when
    the whole search finds nothing (the caller then leaves the label out of the drawing: the
    table under the chart still has it)."""
    fallback = None
    for radius in range(_RING_STEP, _RING_REACH + 1, _RING_STEP):
        for k in range(_DIRECTIONS):
            angle = 2 * math.pi * k / _DIRECTIONS
            cx, cy = x + radius * math.cos(angle), y + radius * math.sin(angle)
            box = (cx - width / 2, cy - _LABEL_HEIGHT / 2, width, _LABEL_HEIGHT)
            if not inside(box, bounds) or overlaps(box, taken):
                continue
            spot = ((round(cx, 1), round(box[1] + _LABEL_HEIGHT - 3, 1), "middle"), box)
            if not crosses(box, segments):
                return (*spot, leader(x, y, box))
            fallback = fallback or (*spot, leader(x, y, box))
    return fallback


def leader(x: float, y: float, box: Box) -> dict:
    """A line from (x, y) to the nearest point of ``box``'s edge."""
    bx, by, bw, bh = box
    return {
        "x1": round(x, 1),
        "y1": round(y, 1),
        "x2": round(min(max(x, bx), bx + bw), 1),
        "y2": round(min(max(y, by), by + bh), 1),
    }


def measured_name(name: str, level, figure: str = "bandwidth") -> str:
    """``name`` with the part ``level``'s ``figure`` was measured on, when the catalog entry
    says it is another part's: "L2 (H200)" for the H100's L2 bandwidth (F-6, F-19).  Read from
    the entry (``MemoryLevel.measured_on``), never typed, so a label cannot outlive its figure."""
    from content.physics import accelerator

    key = level.measured_on.get(figure)
    if not key:
        return name
    part = accelerator(key)
    return f"{name} ({part.aliases[0] if part.aliases else part.name})"
