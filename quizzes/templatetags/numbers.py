"""`{{ value|plain }}`: a number as people write it, without trailing zeros (1.5, 2, 0.25)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template

register = template.Library()


@register.filter
def plain(value) -> str:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return "" if value is None else str(value)
    text = f"{number.normalize():f}"
    return text
