"""Request hygiene that every page relies on, before any view runs."""

from __future__ import annotations

from django.shortcuts import render


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
