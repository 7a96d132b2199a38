"""Small site-wide pages: the favicon a browser asks for by habit, and a logout link opened
directly (Django's LogoutView takes POST only, and a bare 405 explains nothing), and the
password change, which an account that signs in through its LMS has no use for. Setting a
forgotten password is `passwords`'s."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LogoutView, PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_GET, require_http_methods


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    # Not permanent: the static URL carries a content hash in production and may change.
    return redirect(static("favicon.svg"))


@require_http_methods(["GET", "POST"])
def logout_page(request: HttpRequest) -> HttpResponse:
    """GET explains and offers a POST button; POST is Django's own logout (CSRF-checked)."""
    if request.method == "POST":
        return LogoutView.as_view()(request)
    return render(request, "courseware/logout_page.html")


@login_required
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    """Django's password change, except for an account without a usable password (made by an
    LTI launch): it would ask for an old password that does not exist, so say where it signs in
    instead, and change nothing."""
    if not request.user.has_usable_password():
        return render(request, "registration/password_change_unavailable.html")
    return PasswordChangeView.as_view()(request)
