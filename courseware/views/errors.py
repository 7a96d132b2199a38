"""Friendly error pages: never a traceback, always a way back."""

from __future__ import annotations

from django.shortcuts import render


def bad_request(request, exception=None):
    return render(request, "400.html", status=400)


def permission_denied(request, exception=None):
    message = str(exception) if exception and str(exception) else None
    return render(request, "403.html", {"message": message}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    # No context processors: the database may be what failed.
    from django.http import HttpResponseServerError
    from django.template import loader

    return HttpResponseServerError(loader.get_template("500.html").render({}))
