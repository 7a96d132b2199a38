"""Friendly error pages: never a traceback, always a way back.

Each renders for a bare request (no user, no session: a refused Host header is answered before
the authentication middleware runs) and without the database (the context processor degrades).
"""

from __future__ import annotations

from django.shortcuts import render

CSRF_MESSAGE = (
    "This form had expired or came without its security token, so nothing was sent. "
    "Reload the page and submit it again; what you typed may need to be entered again."
)


def bad_request(request, exception=None):
    return render(request, "400.html", status=400)


def permission_denied(request, exception=None):
    message = str(exception) if exception and str(exception) else None
    return render(request, "403.html", {"message": message}, status=403)


def csrf_failure(request, reason=""):
    # Django's reason ("CSRF cookie not set.") is for the log, not for the reader.
    return render(request, "403.html", {"message": CSRF_MESSAGE}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    # No context processors: the database may be what failed.
    from django.http import HttpResponseServerError
    from django.template import loader

    return HttpResponseServerError(loader.get_template("500.html").render({}))
