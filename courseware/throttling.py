"""Login throttling (django-axes): who is locked out, and what they see.

Which failures lock what is set in config.security (`lockout_parameters`); docs/deploy.md says
how to tune it and how to unlock an account.
"""

from __future__ import annotations

import ipaddress

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import render

# The address counted when none is known: behind a proxy on a Unix socket REMOTE_ADDR is empty,
# and axes applies no lock at all to an empty address. Such clients share this one address, so
# the lock on an account (from that address) still holds.
UNKNOWN_ADDRESS = "0.0.0.0"


def _address(value: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address((value or "").strip()))
    except ValueError:
        return None


def client_ip(request) -> str:
    """The client's address: REMOTE_ADDR, or behind DJANGO_PROXY_COUNT trusted proxies the
    address that the nearest of them saw (taken from the right of X-Forwarded-For); always a
    valid address (`UNKNOWN_ADDRESS` when there is none), as axes' address column needs."""
    hops = settings.PROXY_COUNT
    if hops:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [a for a in forwarded if a]
        if len(forwarded) >= hops:
            found = _address(forwarded[-hops])
            if found:
                return found
    return _address(request.META.get("REMOTE_ADDR")) or UNKNOWN_ADDRESS


def locked_out(request, response=None, credentials=None):
    """The login page again, with a sentence saying why and for how long (HTTP 429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    form = AuthenticationForm(request, initial={"username": username})
    context = {
        "form": form,
        "locked_out": True,
        "cooloff_minutes": minutes,
        "next": request.POST.get("next") or request.GET.get("next", ""),
    }
    return render(request, "registration/login.html", context, status=429)


class AxesHandler(AxesDatabaseHandler):
    """axes' database handler (`AXES_HANDLER`), whose two clean-ups at every login delete only
    when there is something to delete. axes connects delete signals to its attempts, so
    Django's `delete()` reads the rows first and then opens a transaction even for none: three
    round trips each, six of the log-in POST's eighteen queries, for the login that follows no
    failure (nearly all of a class arriving). One `exists()` each says there is nothing."""

    def clean_expired_user_attempts(self, request=None, credentials=None) -> int:
        if settings.AXES_COOLOFF_TIME is not None and not settings.AXES_USE_ATTEMPT_EXPIRATION:
            expired = AccessAttempt.objects.filter(
                attempt_time__lte=get_cool_off_threshold(request)
            )
            if not expired.exists():
                return 0
        return super().clean_expired_user_attempts(request, credentials)

    def reset_user_attempts(self, request, credentials=None) -> int:
        if not any(
            attempts.exists() for attempts in self.filter_user_attempts(request, credentials)
        ):
            return 0
        return super().reset_user_attempts(request, credentials)
