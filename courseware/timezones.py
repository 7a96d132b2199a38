"""Time zones: which zone a page shows its dates in, how a zone is named for people, and a form
field that reads a date and time in a given zone (an offering's, for its staff).

Dates are stored in UTC. Each person sees them in their own zone: the one their account holds
(detected by their browser, or chosen on their account page), else the offering's, else UTC
(`TimeZoneMiddleware` activates it for the request; `enter_offering_zone` once the offering
is known). Staff enter an offering's dates in the offering's zone, whatever their own.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime
from functools import lru_cache

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

# The session key holding the account's stored zone ("" when the account has none yet).
SESSION_KEY = "account_time_zone"


@lru_cache(maxsize=1)
def zone_names() -> tuple[str, ...]:
    """Every zone a person may choose, sorted (the IANA names Python knows)."""
    return tuple(sorted(zoneinfo.available_timezones() - {"localtime", "Factory"}))


def is_zone(name: str) -> bool:
    return bool(name) and name in zone_names()


def zone(name: str | None) -> zoneinfo.ZoneInfo:
    """The zone called `name`, or UTC for an empty or unknown name."""
    return zoneinfo.ZoneInfo(name) if name and is_zone(name) else zoneinfo.ZoneInfo("UTC")


def place_name(name: str) -> str:
    """How a zone is named beside a time: "Berlin time", "New York time", "UTC"."""
    if not name or name in {"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Universal", "Zulu", "GMT"}:
        return "UTC"
    if name.startswith("Etc/"):
        return name.removeprefix("Etc/")
    return name.rsplit("/", 1)[-1].replace("_", " ") + " time"


def _ambiguous_or_imaginary(value: datetime, tz) -> bool:
    """True for a wall-clock time a zone's clock change skips or repeats (02:30 on the night
    the clocks go forward, or back)."""
    earlier, later = value.replace(tzinfo=tz, fold=0), value.replace(tzinfo=tz, fold=1)
    return earlier.utcoffset() != later.utcoffset()


def aware_in(value: datetime, name: str) -> datetime:
    """A wall-clock time read in the zone `name`; ValidationError when that zone's clock skips
    or repeats it."""
    tz = zone(name)
    if timezone.is_aware(value):
        return value
    if _ambiguous_or_imaginary(value, tz):
        raise ValidationError(
            f"{value:%d %b %Y, %H:%M} does not happen exactly once in {name} (the clocks change "
            "that night): choose a time an hour earlier or later."
        )
    return value.replace(tzinfo=tz)


class ZonedDateTimeField(forms.DateTimeField):
    """A date and time typed in one zone (given when the form is made), shown back in it."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
    input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]

    def __init__(self, *args, zone_name: str = "UTC", **kwargs):
        self.zone_name = zone_name
        super().__init__(*args, **kwargs)

    def prepare_value(self, value):
        if isinstance(value, datetime) and timezone.is_aware(value):
            return value.astimezone(zone(self.zone_name)).replace(tzinfo=None)
        return value

    def to_python(self, value):
        # Read as a naive wall-clock time, then placed in this field's zone (not the request's).
        with timezone.override(UTC):
            result = super().to_python(value)
        if result is None:
            return None
        return aware_in(result.replace(tzinfo=None), self.zone_name)


def set_zone_of(form: forms.Form, name: str) -> None:
    """Make every zoned field of `form` read and show its times in the zone `name`, and say so
    in its help text."""
    for field in form.fields.values():
        if isinstance(field, ZonedDateTimeField):
            field.zone_name = name
            field.help_text = f"In {name} ({place_name(name)})."
