"""Edges of the site every visitor meets: the favicon."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
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
