"""The roofline chart for any template (an answer kind's, a page's): ``{% roofline_chart ... %}``
draws it from given figures with ``courseware.charts``, on fixed axes and with given points."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from courseware.charts import roofline_chart_html, roofline_of

register = template.Library()


@register.simple_tag
def roofline_chart(figures, points=(), title=None, compact=False) -> SafeString:
    """The roofline of ``figures`` (a mapping: ``name``, ``dtype``, ``peak`` in FLOP/s,
    ``bandwidth`` in B/s, optional ``x_range``/``y_range`` in FLOP/B and FLOP/s and ``values``)
    with ``points``, a list of (label, intensity, FLOP/s); ``compact`` for a narrow frame."""
    chart = roofline_of(
        figures["name"], figures["dtype"], figures["peak"], figures["bandwidth"], points
    )
    return roofline_chart_html(
        chart,
        title=title,
        x_range=figures.get("x_range"),
        y_range=figures.get("y_range"),
        values=figures.get("values", True),
        compact=compact,
    )
