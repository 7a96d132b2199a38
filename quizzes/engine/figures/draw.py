"""Drawing a figure's numbers: the template's ``figure`` evaluated on a variant's parameters.

The result (``DrawnFigure``) is plain data, the same for every render of a stored variant (it
is computed from its parameters and its own catalog snapshot); ``quizzes.presenters.figures``
turns it into SVG. Every value is checked here: an expression that gives no finite number in
the drawable range, a label too long for a phone, a point off the roofline's axes is an
``ExpressionError`` naming the template's line, which the publication gate refuses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from content.expressions import ExpressionError, evaluate
from quizzes.engine.figures.limits import MAX_LABEL, MAX_LOG_DECADES, MAX_TITLE, MAX_VALUE
from quizzes.engine.model import Expr, Figure, Template, Text
from quizzes.engine.namespace import names_for


@dataclass(frozen=True)
class DrawnBar:
    label: str
    values: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.values)


@dataclass(frozen=True)
class DrawnFigure:
    """What one variant's figure shows: every number and label of it, nothing else."""

    draw: str
    title: str
    unit: str = ""
    scale: str = "linear"
    series: tuple[str, ...] = ()
    bars: tuple[DrawnBar, ...] = ()
    reference: tuple[str, float] | None = None
    accelerator: str = ""
    dtype: str = ""
    peak: float = 0.0
    bandwidth: float = 0.0
    points: tuple[tuple[str, float, float], ...] = ()
    values: bool = True
    bounds: bool = True
    x_range: tuple[float, float] = (1.0, 10.0)
    y_range: tuple[float, float] = (1.0, 10.0)

    def numbers(self) -> list[float]:
        """Every number a student can read off the figure (drawn, labelled or in its table)."""
        if self.draw == "roofline":
            shown = [self.peak, self.bandwidth] + [v for _, x, y in self.points for v in (x, y)]
            return shown + ([self.peak / self.bandwidth] if self.values else [])
        shown = [v for bar in self.bars for v in bar.values]
        shown += [bar.total for bar in self.bars if len(bar.values) > 1]
        return shown + ([self.reference[1]] if self.reference else [])

    def labels(self) -> list[str]:
        named = [self.title, *(b.label for b in self.bars), *(p[0] for p in self.points)]
        return named + ([self.reference[0]] if self.reference else [])


def draw_figure(template: Template, variant) -> DrawnFigure | None:
    """The figure of ``variant`` (None when the template has none); ExpressionError when a
    value or label cannot be drawn."""
    figure = template.figure
    if figure is None:
        return None
    names = names_for(variant.params)
    with variant.replaying():
        title = _label(template, figure.title, names, MAX_TITLE)
        if figure.draw == "roofline":
            return _roofline(template, figure, names, title)
        return _bars(template, figure, names, title)


def _bars(template: Template, figure: Figure, names, title: str) -> DrawnFigure:
    bars = tuple(
        DrawnBar(
            _label(template, bar.label, names, MAX_LABEL),
            tuple(_value(template, e, names, positive=figure.scale == "log") for e in bar.values),
        )
        for bar in figure.bars
    )
    reference = None
    if figure.reference is not None:
        text, expr = figure.reference
        reference = (
            _label(template, text, names, MAX_LABEL),
            _value(template, expr, names, positive=figure.scale == "log"),
        )
    everything = [bar.total for bar in bars] + ([reference[1]] if reference else [])
    if max(everything) <= 0:
        first = figure.bars[0].values[0]
        raise _error(template, first, "every value of the figure is zero: nothing to draw")
    if figure.scale == "log":
        smallest = min(v for bar in bars for v in bar.values)
        if math.log10(max(everything) / smallest) > MAX_LOG_DECADES:
            raise _error(
                template,
                figure.bars[0].values[0],
                f"the values span more than {MAX_LOG_DECADES} decades: no axis shows them all",
            )
    return DrawnFigure(
        draw="bars",
        title=title,
        unit=figure.unit,
        scale=figure.scale,
        series=figure.series,
        bars=bars,
        reference=reference,
    )


def _roofline(template: Template, figure: Figure, names, title: str) -> DrawnFigure:
    # The roofline kind's own reading of an accelerator and a data type (catalog entries).
    from quizzes.engine.kinds.roofline_point import _hardware

    acc, dt = _hardware(template.source, figure, names)
    peak, bandwidth = float(acc.peak(dt)), float(acc.memory_bandwidth)
    ridge = math.log10(peak / bandwidth)
    x_range = (10.0 ** (math.floor(ridge) - 3), 10.0 ** (math.ceil(ridge) + 2))
    y_range = (10.0 ** (math.floor(math.log10(peak)) - 4), peak * 1.5)
    points = []
    for point in figure.points:
        x = _value(template, point.intensity, names, positive=True)
        if not x_range[0] <= x <= x_range[1]:
            raise _error(
                template,
                point.intensity,
                f"{x:.3g} FLOP/byte is off the chart's axis ({x_range[0]:g} to {x_range[1]:g})",
            )
        roof = min(peak, x * bandwidth)
        y = roof
        if point.performance is not None:
            y = _value(template, point.performance, names, positive=True)
            if y > roof * (1 + 1e-9):
                raise _error(
                    template,
                    point.performance,
                    f"{y:.3g} FLOP/s is above the roofline ({roof:.3g})",
                )
            if y < y_range[0]:
                raise _error(template, point.performance, f"{y:.3g} FLOP/s is below the chart")
        points.append((_label(template, point.label, names, MAX_LABEL), x, y))
    return DrawnFigure(
        draw="roofline",
        title=title,
        accelerator=acc.name,
        dtype=dt.name,
        peak=peak,
        bandwidth=bandwidth,
        points=tuple(points),
        values=figure.values,
        bounds=figure.bounds,
        x_range=x_range,
        y_range=y_range,
    )


def _value(template: Template, expr: Expr, names, *, positive: bool = False) -> float:
    value = evaluate(expr.text, names, source=template.source, line=expr.line)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(template, expr, f"a figure's value must be a number, not {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise _error(template, expr, f"a figure's value must be a finite number, not {value}")
    if value < 0 or (positive and value == 0):
        need = "more than zero" if positive else "zero or more"
        raise _error(template, expr, f"a figure's value must be {need}, not {value:g}")
    if value > MAX_VALUE:
        raise _error(template, expr, f"{value:.3g} is beyond what a figure draws ({MAX_VALUE:g})")
    return value


def _label(template: Template, text: Text, names, most: int) -> str:
    from quizzes.engine.render import render_text

    shown = " ".join(render_text(template, text, names, math_aware=False).split())
    if not shown or len(shown) > most:
        raise ExpressionError(
            template.source,
            text.line,
            text.text.strip()[:60],
            f"a figure's label must be 1 to {most} characters as shown, not {len(shown)}",
        )
    return shown


def _error(template: Template, expr: Expr, message: str) -> ExpressionError:
    return ExpressionError(template.source, expr.line, expr.text, message)
