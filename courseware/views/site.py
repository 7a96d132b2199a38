"""Small site-wide pages: the favicon a browser asks for by habit."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.views.decorators.http import require_GET


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    # Not permanent: the static URL carries a content hash in production and may change.
    return redirect(static("favicon.svg"))
