"""Edges of the site every visitor meets: the favicon, and a logout link opened directly."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.urls import reverse

pytestmark = pytest.mark.django_db

FAVICON = Path(settings.BASE_DIR) / "static" / "favicon.svg"


def test_every_page_links_an_svg_favicon(client, course):
    html = client.get(reverse("courseware:home")).content.decode()
    assert '<link rel="icon" type="image/svg+xml" href="/static/favicon.svg' in html


def test_the_favicon_is_a_small_svg():
    text = FAVICON.read_text()
    assert text.lstrip().startswith("<svg") and "viewBox" in text
    assert len(text.encode()) < 2048


def test_favicon_ico_is_no_longer_a_404(client, course):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].startswith("/static/favicon")


def test_opening_logout_directly_explains_and_offers_a_post_button(client, student):
    client.force_login(student)
    response = client.get("/accounts/logout/")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert 'method="post" action="/accounts/logout/"' in html
    assert "csrfmiddlewaretoken" in html and "Log out</button>" in html
    assert SESSION_KEY in client.session, "a GET must not log anyone out"


def test_logout_page_for_someone_not_logged_in_offers_to_log_in(client, course):
    html = client.get("/accounts/logout/").content.decode()
    assert "not logged in" in html and 'href="/accounts/login/' in html
    assert "Log out</button>" not in html


def test_posting_to_logout_logs_out(client, student):
    client.force_login(student)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == reverse(settings.LOGOUT_REDIRECT_URL)
    assert SESSION_KEY not in client.session


def test_logout_without_a_csrf_token_is_refused(student):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(student)
    assert strict.post("/accounts/logout/").status_code == 403
    assert SESSION_KEY in strict.session


def test_logout_refuses_other_methods_politely(client, course):
    assert client.put("/accounts/logout/").status_code == 405
