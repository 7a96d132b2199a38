"""Template filters for worked solutions: a LaTeX fragment to inline MathML."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from courseware.rendering import render_math

register = template.Library()


@register.filter
def mathml(latex: str) -> SafeString:
    """``{{ step.formula|mathml }}``: sanitized MathML (or the escaped source)."""
    return render_math(str(latex or ""), display=False)
