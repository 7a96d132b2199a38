"""The all-reduce chart of chapter 05: time against buffer size for each algorithm, with the
published measurements beside the lines.

``allreduce_chart()`` computes, with ``content.physics``, the α-β time of an all-reduce on
``gpus`` GPUs over one link for every algorithm of ``collectives.ALGORITHMS_ON_ONE_LINK``, at
buffers from 1 KiB to 16 GiB, using one step latency α (by default the one NCCL's 32 KiB
all-reduce on 8 H200s implies).  The published timings on the same GPU count and link are
plotted as points: the model is calibrated on one of them, and the others show how far real
kernels sit from it (above the lines for large buffers, where no collective reaches the link's
rate; above or below for small ones, where α depends on the software).  ``allreduce_figure_html``
renders the SVG with a table of the same numbers, which screen readers read instead.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    allreduce_crossover_bytes,
    allreduce_time,
    collective_measurements,
    dtype,
    format_number,
    format_quantity,
    latency_bound_below,
    link,
    model,
    step_latency,
)
from courseware.book_figures import figure_sources, sources_html
from courseware.charts import _Axis  # the time axis: whole decades

ALGORITHMS = ("ring", "tree", "in-switch", "one-shot")
SIZES = tuple(2.0**k for k in range(10, 35))  # 1 KiB to 16 GiB per GPU
X_TICKS = tuple(2.0**k for k in (10, 15, 20, 25, 30, 34))
TABLE_SIZES = tuple(2.0**k for k in (10, 14, 17, 20, 24, 27, 30, 34))
CALIBRATION = "nccl-8xh200-32kib"
DECODE_MODEL = "llama-3-70b"  # chapter 05's running example: its all-reduce at batch one

WIDTH, HEIGHT = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 78, 92, 28, 58
# The phone's drawing: 360 units, about its size on a 390 px screen, so its 11-unit text stays
# readable (the sixth review's D05-8); the lines' names move from the right margin to a key.
NARROW = {"width": 360, "height": 330, "left": 62, "right": 24}
_LABEL_GAP = 14


@dataclass(frozen=True)
class Series:
    algorithm: str
    times: tuple[float, ...]


@dataclass(frozen=True)
class Measured:
    label: str
    algorithm: str
    payload_bytes: float
    seconds: float
    sources: tuple = ()


@dataclass(frozen=True)
class AllreduceChart:
    gpus: int
    link_key: str
    link_name: str
    alpha: float
    sizes: tuple[float, ...]
    series: tuple[Series, ...]
    measured: tuple[Measured, ...]
    ring_latency_bound_below: float
    one_shot_until: float
    tree_until: float
    decode_bytes: float


def allreduce_chart(gpus: int = 8, ln: str = "nvlink4", calibration: str = CALIBRATION):
    """The chart's numbers: one series per algorithm, the measurements on the same GPUs and
    link, the ring's latency-bound size and the running example's decode all-reduce."""
    alpha = step_latency(calibration)
    series = tuple(
        Series(a, tuple(allreduce_time(b, gpus, ln, a, alpha) for b in SIZES)) for a in ALGORITHMS
    )
    wire = link(ln)
    measured = tuple(
        Measured(m.name, m.algorithm, m.payload_bytes, m.seconds, m.citations())
        for m in collective_measurements()
        if m.gpus == gpus and m.nodes == 1 and m.link == wire.key
    )
    example = model(DECODE_MODEL)
    return AllreduceChart(
        gpus,
        wire.key,
        wire.name,
        alpha,
        SIZES,
        series,
        measured,
        latency_bound_below(gpus, ln, "ring", alpha),
        allreduce_crossover_bytes(gpus, ln, "one-shot", "in-switch", alpha),
        allreduce_crossover_bytes(gpus, ln, "tree", "ring", alpha),
        example.d_model * dtype("bf16").bytes,
    )


def binary_size(size: float) -> str:
    """A buffer as the chapter writes it: 16 KiB, 9.6 MiB, 16 GiB (two significant figures
    below ten units, whole units above)."""
    units = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1))
    unit, scale = next((u, s) for u, s in units if size >= s or s == 1)
    value = size / scale
    shown = format_number(value, 2) if value < 10 else format_number(round(value), 4)
    return f"{shown} {unit}"


class _BinaryAxis:
    """A logarithmic axis from ``low`` to ``high`` exactly (the sizes are powers of two)."""

    def __init__(self, low: float, high: float, start: float, end: float) -> None:
        self.lo, self.hi = math.log2(low), math.log2(high)
        self.start, self.end = start, end

    def __call__(self, value: float) -> float:
        fraction = (math.log2(value) - self.lo) / (self.hi - self.lo)
        return round(self.start + fraction * (self.end - self.start), 1)


def _spread(wanted: list[float], low: float, high: float) -> list[float]:
    """Label heights as close to ``wanted`` as keeps them ``_LABEL_GAP`` apart, inside [low,
    high]: sorted, pushed down where they collide, then pushed back up from the bottom."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [wanted[i] for i in order]
    for j in range(1, len(placed)):
        placed[j] = max(placed[j], placed[j - 1] + _LABEL_GAP)
    placed[-1] = min(placed[-1], high)
    for j in range(len(placed) - 2, -1, -1):
        placed[j] = min(placed[j], placed[j + 1] - _LABEL_GAP)
    placed = [max(p, low) for p in placed]
    result = [0.0] * len(wanted)
    for j, i in enumerate(order):
        result[i] = round(placed[j], 1)
    return result


def _context(chart: AllreduceChart, narrow: bool = False) -> dict:
    """What the chart's template draws; ``narrow``, in the phone's frame, the lines unnamed
    (the figure's key names them) and the markers' labels shortened."""
    width, height = (NARROW["width"], NARROW["height"]) if narrow else (WIDTH, HEIGHT)
    left = NARROW["left"] if narrow else LEFT
    right, bottom = width - (NARROW["right"] if narrow else RIGHT), height - BOTTOM
    times = [t for s in chart.series for t in s.times] + [m.seconds for m in chart.measured]
    x = _BinaryAxis(min(chart.sizes), max(chart.sizes), left, right)
    y = _Axis(min(times), max(times), bottom, TOP)
    lines = []
    ends = [y(s.times[-1]) for s in chart.series]
    for s, label_y in zip(chart.series, _spread(ends, TOP + 10, bottom - 4), strict=True):
        points = " ".join(f"{x(b)},{y(t)}" for b, t in zip(chart.sizes, s.times, strict=True))
        lines.append({"algorithm": s.algorithm, "points": points, "label_y": label_y})
    marks = [
        {
            "x": x(m.payload_bytes),
            "y": y(m.seconds),
            "algorithm": m.algorithm,
            "label": f"{m.label}: {format_quantity(m.seconds, 's', sig=3)}",
            "sources": m.sources,
        }
        for m in chart.measured
    ]
    digest = hashlib.sha1(repr(chart).encode(), usedforsecurity=False).hexdigest()[:8]
    digest += "-narrow" if narrow else ""
    alpha = format_quantity(chart.alpha, "s", sig=3)
    bound = binary_size(chart.ring_latency_bound_below)
    decode = binary_size(chart.decode_bytes)
    one_shot = binary_size(chart.one_shot_until)
    tree = binary_size(chart.tree_until)
    title = f"All-reduce time on {chart.gpus} GPUs over {chart.link_name}"
    return {
        "id": f"allreduce-{digest}",
        "width": width,
        "height": height,
        "narrow": narrow,
        "plot": {"left": left, "top": TOP, "right": right, "bottom": bottom},
        "title": title,
        "description": (
            f"Log-log chart of the time of one all-reduce against the buffer on each GPU, from "
            f"{binary_size(chart.sizes[0])} to {binary_size(chart.sizes[-1])}. Lines: the "
            f"latency-plus-bandwidth model with a step latency of {alpha} for the ring, tree, "
            f"in-switch and one-shot algorithms. The one-shot algorithm, with one step, is the "
            f"fastest up to {one_shot}; above that the in-switch reduction, which moves the "
            f"fewest bytes, is. The tree beats the ring up to {tree}. The ring's time is mostly "
            f"latency below {bound}. Points: published measurements, "
            + "; ".join(m["label"] for m in marks)
            + f". A decode all-reduce of {model(DECODE_MODEL).name} at batch one is {decode}."
        ),
        "lines": lines,
        "marks": marks,
        "x_ticks": [{"at": x(v), "label": binary_size(v)} for v in X_TICKS],
        "y_ticks": [{"at": y(v), "label": format_quantity(v, "s")} for v in y.decades()],
        "bound": {
            "x": x(chart.ring_latency_bound_below),
            # two short lines in the narrow frame, where one ran past its right edge
            "lines": ["ring latency-bound", f"below {bound}"]
            if narrow
            else [f"ring latency-bound below {bound}"],
        },
        "decode": {
            "x": x(chart.decode_bytes),
            "label": f"decode, {decode}" if narrow else f"decode all-reduce, {decode}",
        },
        "alpha": alpha,
        "algorithms": ALGORITHMS,
        "rows": [
            {
                "size": binary_size(b),
                "times": [
                    # Two figures: the model's one small-message input is a single measurement.
                    format_quantity(
                        allreduce_time(b, chart.gpus, chart.link_key, a, chart.alpha), "s", sig=2
                    )
                    for a in ALGORITHMS
                ],
            }
            for b in TABLE_SIZES
        ],
        "measured": marks,
        "one_shot_until": one_shot,
        "tree_until": tree,
        # The link's per-direction rate is the lines' bandwidth term; each circle cites its own.
        "sources": sources_html(figure_sources(link(chart.link_key))),
    }


def allreduce_figure_html() -> SafeString:
    """Chapter 05's figure: the SVG (a wide drawing and a phone's, one shown by CSS), its key
    and a table of the same numbers."""
    chart = allreduce_chart()
    context = _context(chart)
    context["narrow_svg"] = render_to_string(
        "courseware/_allreduce_chart.html", _context(chart, narrow=True)
    )
    return render_to_string("courseware/_allreduce_figure.html", context)
