"""Variant search: which students were given a question with these parameter values (for
tracing a leaked question). Filters are written `name=value`, separated by spaces.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db.models import Q

from quizzes.models import Variant

_FILTER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=([^=]+)$")
# A new filter starts at a word followed by "=": "acc=RTX 4090 dt=int8" is two filters, the
# first with a space in its value, exactly as the student history shows it.
_NEXT_FILTER = re.compile(r"\s+(?=[^\s=]+=)")
FILTER_FORMAT = (
    "write filters as name=value separated by spaces, e.g. acc=H100 dt=fp8 or acc=RTX 4090 "
    "(the name is a parameter of the template; a value may contain spaces but no “=”)"
)


def parse_parameter_filters(text: str) -> list[tuple[str, str]]:
    """ "acc=RTX 4090 dt=fp8" -> [("acc", "RTX 4090"), ("dt", "fp8")]; ValidationError names a
    bad one.

    Spaces around "=" are forgiven, and a value may hold spaces (or be quoted); a filter with no
    name, no value or a second "=" (`zzz===`) is refused rather than searched for, since it could
    only ever match nothing.
    """
    filters = []
    text = re.sub(r"\s*=\s*", "=", (text or "").replace(",", " ")).strip()
    for token in _NEXT_FILTER.split(text) if text else ():
        match = _FILTER.match(token)
        if not match or "__" in match.group(1):
            raise ValidationError(f"Could not read “{token}”: {FILTER_FORMAT}.")
        value = " ".join(match.group(2).split()).strip("\"'")
        if not value:
            raise ValidationError(f"Could not read “{token}”: {FILTER_FORMAT}.")
        filters.append((match.group(1), value))
    return filters


def _value_q(name: str, value: str) -> Q:
    # Catalog parameters are stored as {"catalog": ..., "key": ...}, others as plain JSON.
    q = Q(**{f"parameters__{name}__iexact": value})
    q |= Q(**{f"parameters__{name}__key__iexact": value})
    for convert in (int, float):
        try:
            number = convert(value)
        except ValueError:
            continue
        q |= Q(**{f"parameters__{name}": number})
    return q


def variant_search(offering, *, template_slug: str = "", filters=(), limit: int = 500):
    """Variants of the offering whose parameters match every filter (JSON key lookups)."""
    variants = Variant.objects.filter(attempt__quiz__offering=offering)
    if template_slug:
        variants = variants.filter(item__template__slug=template_slug)
    for name, value in filters:
        variants = variants.filter(_value_q(name, value))
    return list(
        variants.select_related(
            "attempt__student", "attempt__quiz", "item__template", "version"
        ).order_by("attempt__student__username", "attempt__quiz__position", "index")[:limit]
    )
