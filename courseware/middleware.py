"""Request hygiene that every page relies on, before any view runs, and the time zone every
page's dates are shown in."""

from __future__ import annotations

from django.shortcuts import render
from django.utils import timezone

from .timezones import SESSION_KEY, is_zone, zone


class RejectNullCharactersMiddleware:
    """Refuse form data and query strings that contain a NUL character.

    No legitimate input contains one, PostgreSQL cannot store one in a text column, and letting
    it through would turn a typo or a probe into a server error. The visitor gets the friendly
    400 page with a sentence saying what was wrong; nothing is stored.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _has_nul(request):
            response = render(
                request,
                "400.html",
                {
                    "message": "Your input contained a NUL character (\\0), which no answer or "
                    "form field may contain. Remove it and try again."
                },
                status=400,
            )
            # htmx swaps only 2xx responses by default; this header makes the message visible.
            if request.headers.get("HX-Request"):
                response["HX-Reswap"] = "innerHTML"
            return response
        return self.get_response(request)


def _has_nul(request) -> bool:
    if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
        return True
    if request.method in ("POST", "PUT", "PATCH"):
        content_type = request.META.get("CONTENT_TYPE", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            try:
                data = request.POST
            except Exception:  # noqa: BLE001 - a malformed body is Django's to report later
                return False
            return any("\x00" in value for values in data.lists() for value in values[1])
    return False


class TimeZoneMiddleware:
    """Show the request's dates in the reader's own time zone: the one their account holds
    (kept in the session, so a request reads no row for it), else the offering's once the
    page's offering is known (`activate_offering_zone`), else UTC.

    `request.account_zone` is the account's zone ("" when not known yet) and
    `request.zone_mode` says who sets it: "detected" (the browser reports it, and may again),
    "chosen" (the person chose it; the browser never changes it) or "anonymous".
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        name, mode = account_zone(request)
        request.account_zone, request.zone_mode = name, mode
        if name:
            timezone.activate(zone(name))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


def account_zone(request) -> tuple[str, str]:
    """(zone name or "", mode) of the request's user, from the session (read from the account
    once per session, and kept current by the account's time-zone page)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return "", "anonymous"
    held = request.session.get(SESSION_KEY)
    if not isinstance(held, list) or len(held) != 2:
        held = remember_account_zone(request, user)
    name, mode = held
    return (name if is_zone(name) else ""), mode


def remember_account_zone(request, user) -> list:
    from .models import AccountPreferences

    prefs = AccountPreferences.objects.filter(user_id=user.pk).first()
    held = (
        [prefs.time_zone, "detected" if prefs.time_zone_detected else "chosen"]
        if prefs
        else [
            "",
            "detected",
        ]
    )
    request.session[SESSION_KEY] = held
    return held


def activate_offering_zone(request, offering) -> None:
    """On an offering's page, a reader whose account has no zone yet sees the offering's."""
    if not getattr(request, "account_zone", "") and offering is not None:
        timezone.activate(zone(offering.time_zone))


def zone_at_login(sender, request, user, **kwargs) -> None:
    """`user_logged_in`: keep the account's zone in the new session."""
    if request is not None and hasattr(request, "session"):
        remember_account_zone(request, user)
