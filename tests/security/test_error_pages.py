"""Error pages render for a bare request: no user, no session, no database.

A foreign Host header is refused before the authentication middleware runs, so the 400 page
is rendered for a request that has no `user`; the page (and its context processors) must not
need one, nor the database that may be the very thing that failed.
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.http import Http404
from django.test import RequestFactory

from courseware import views

HANDLERS = [
    ("400", lambda r: views.bad_request(r, Exception("bad")), 400),
    ("403", lambda r: views.permission_denied(r, PermissionDenied("Not yours.")), 403),
    ("404", lambda r: views.page_not_found(r, Http404("gone")), 404),
    ("500", lambda r: views.server_error(r), 500),
    ("csrf", lambda r: views.csrf_failure(r, reason="CSRF cookie not set."), 403),
]


@pytest.mark.parametrize(("name", "handler", "status"), HANDLERS, ids=[h[0] for h in HANDLERS])
def test_error_handler_renders_a_bare_request_without_user_or_database(name, handler, status):
    # No django_db mark: any database query here fails the test.
    request = RequestFactory().get("/somewhere/")
    assert not hasattr(request, "user") and not hasattr(request, "session")
    response = handler(request)
    assert response.status_code == status
    body = response.content.decode()
    assert "<html" in body and "Traceback" not in body


def test_csrf_failure_page_says_what_to_do():
    response = views.csrf_failure(RequestFactory().post("/x/"), reason="CSRF token missing.")
    body = response.content.decode()
    assert response.status_code == 403
    assert "reload the page" in body.lower()


@pytest.mark.django_db
def test_404_page_renders_when_the_database_fails(client):
    with mock.patch("courseware.context_processors.Course.objects.filter") as filt:
        filt.side_effect = OperationalError("database is down")
        response = client.get("/no-such-page-anywhere/")
    assert response.status_code == 404
    assert "We could not find that page" in response.content.decode()


@pytest.mark.django_db
def test_foreign_host_header_gets_the_friendly_400_not_a_500(client, course):
    # With a course in the database the context processor asks for the reader's role.
    response = client.get("/", HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    assert "<html" in response.content.decode()


def test_csrf_failure_view_is_the_sites_own(settings):
    assert settings.CSRF_FAILURE_VIEW == "courseware.views.csrf_failure"
