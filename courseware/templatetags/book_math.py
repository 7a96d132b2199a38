"""Template filters for worked solutions: a LaTeX fragment to inline MathML."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from courseware.rendering import math_to_mathml

register = template.Library()


@register.filter
def mathml(latex: str) -> SafeString:
    """``{{ step.formula|mathml }}``: MathML (or the escaped source when it cannot convert)."""
    # math_to_mathml escapes whatever it cannot convert, so its output is safe markup.
    return mark_safe(math_to_mathml(str(latex or ""), display=False))  # noqa: S308
