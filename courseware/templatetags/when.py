"""Dates as people read them: `{{ moment|when }}` draws a `<time>` element in the request's
time zone with the zone named ("15 Jan 2027, 23:59 Berlin time"), its machine-readable moment
in `datetime` (UTC, ISO 8601). The site's script (`static/js/timezone.js`) re-draws these in
the browser's zone when the account's zone is not known yet, so without JavaScript a page shows
the account's stored zone (or the offering's), and with it the reader's own.

`when` takes an optional style: "long" (the default, with the year), "short" (no year) or
"clock" (the time of day only).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html

from courseware.timezones import place_name

register = template.Library()

FORMATS = {"long": "j M Y, H:i", "short": "j M, H:i", "clock": "H:i", "date": "j M Y"}


@register.filter
def when(moment, style: str = "long"):
    if not isinstance(moment, datetime):
        return "" if moment in (None, "") else moment
    pattern = FORMATS.get(style, FORMATS["long"])
    zone = timezone.get_current_timezone()
    local = timezone.localtime(moment, zone) if timezone.is_aware(moment) else moment
    stamp = (
        moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
        if timezone.is_aware(moment)
        else moment.isoformat()
    )
    return format_html(
        '<time datetime="{}" data-when="{}" title="{}">{} {}</time>',
        stamp,
        style if style in FORMATS else "long",
        timezone.get_current_timezone_name(),
        date_format(local, pattern),
        place_name(timezone.get_current_timezone_name()),
    )


@register.filter
def when_text(moment, style: str = "long") -> str:
    """The words of `when` as plain text, for an attribute (a tooltip): "15 Jan 2027, 23:59
    Berlin time"."""
    if not isinstance(moment, datetime):
        return "" if moment in (None, "") else str(moment)
    zone = timezone.get_current_timezone()
    local = timezone.localtime(moment, zone) if timezone.is_aware(moment) else moment
    pattern = FORMATS.get(style, FORMATS["long"])
    return f"{date_format(local, pattern)} {place_name(timezone.get_current_timezone_name())}"


@register.simple_tag
def zone_name() -> str:
    """The zone this page's dates are shown in, as people read it ("Berlin time")."""
    return place_name(timezone.get_current_timezone_name())


@register.simple_tag
def page_zone() -> str:
    """The IANA name of the zone this page's dates are drawn in."""
    return timezone.get_current_timezone_name()
