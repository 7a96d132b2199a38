"""Framing and cookies for sessions opened by an LTI launch; every other response unchanged.

A page of a session launched from a registered platform gets `frame-ancestors` listing that
platform's origins (and no X-Frame-Options), and over HTTPS its session and CSRF cookies are
sent with SameSite=None; Secure, so they still reach us inside the LMS's iframe (a third-party
context). Any other response keeps frame-ancestors 'none' and SameSite=Lax.
"""

from __future__ import annotations

from django.conf import settings

from lti.models import PlatformFraming
from lti.tool import frame_origins

SESSION_KEY = "lti"


def _allow_framing(response, origins: list[str]) -> None:
    # Origins the operator lets frame every page (DJANGO_FRAME_ANCESTORS) stay allowed, and so
    # do any the response allows already.
    allowed = getattr(response, "_csp_replace", {}).get("frame-ancestors", [])
    extra = list(getattr(settings, "FRAME_ANCESTORS", []))
    response._csp_replace = {"frame-ancestors": list(dict.fromkeys(allowed + origins + extra))}
    response.xframe_options_exempt = True


def framed_by_platforms(response):
    """Let every active registered platform frame this response: a refusal page, shown before
    anyone is signed in, so no launched session names the platform, and in the LMS's frame a
    page that may not be framed is only the browser's "refused to connect"."""
    origins = []
    for framing in PlatformFraming.objects.filter(registration__is_active=True):
        origins += framing.origins
    if origins:
        _allow_framing(response, origins)
    return response


class LtiFrameMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        session = getattr(request, "session", None)
        launched = session.get(SESSION_KEY) if session is not None else None
        if not launched:
            return response
        origins = frame_origins(launched.get("registration"))
        if not origins:
            return response
        _allow_framing(response, origins)
        if request.is_secure():
            for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME):
                if name in response.cookies:
                    response.cookies[name]["samesite"] = "None"
                    response.cookies[name]["secure"] = True
        return response
