"""Security headers on every kind of response: pages, htmx fragments, redirects, static files,
error pages (400, 403, 404, 500, CSRF failure, a refused NUL) and the admin."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import OFFERING, PASSWORD, ChapterFactory

pytestmark = pytest.mark.django_db

CSP = "Content-Security-Policy"


def assert_security_headers(response):
    policy = response.headers.get(CSP, "")
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
    )
    assert directives.get("default-src") == ["'self'"], policy
    assert directives.get("script-src") == ["'self'"], policy
    assert directives.get("style-src") == ["'self'"], policy
    assert directives.get("object-src") == ["'none'"], policy
    assert directives.get("base-uri") == ["'none'"], policy
    assert directives.get("frame-ancestors") == ["'none'"], policy
    assert directives.get("form-action") == ["'self'"], policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert response.headers.get("X-Frame-Options") == "DENY"
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") == "same-origin"


@pytest.fixture
def student_client(client, student):
    assert client.login(username=student.username, password=PASSWORD)
    return client


def test_full_page(client, course):
    response = client.get(reverse("courseware:home"))
    assert response.status_code == 200
    assert_security_headers(response)


def test_login_page(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert_security_headers(response)


def test_htmx_fragment(student_client, course):
    chapter = ChapterFactory()
    url = reverse("courseware:mark_read", args=[chapter.slug])
    response = student_client.post(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "<html" not in response.content.decode()
    assert_security_headers(response)


def test_redirect(client, course):
    response = client.get(reverse("quizzes:progress", args=[OFFERING]))
    assert response.status_code == 302
    assert_security_headers(response)


def test_403(student_client):
    response = student_client.get(reverse("instructor:dashboard", args=[OFFERING]))
    assert response.status_code == 403
    assert_security_headers(response)


def test_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert_security_headers(response)


def test_500(settings):
    settings.ROOT_URLCONF = "tests.security.urls"
    response = Client(raise_request_exception=False).get("/boom-for-tests/")
    assert response.status_code == 500
    assert_security_headers(response)


def test_400_for_a_foreign_host(client, course):
    response = client.get("/", HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    assert_security_headers(response)


def test_400_for_a_nul_character(client):
    response = client.get("/", {"q": "a\x00b"})
    assert response.status_code == 400
    assert_security_headers(response)


def test_csrf_failure(course):
    response = Client(enforce_csrf_checks=True).post(
        reverse("login"), {"username": "x", "password": "y"}
    )
    assert response.status_code == 403
    assert "Reload the page" in response.content.decode()
    assert_security_headers(response)


def test_static_file(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert_security_headers(response)


def test_admin_login(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert_security_headers(response)


def test_pages_carry_the_htmx_config_without_inline_styles_or_eval(client, course):
    html = client.get(reverse("courseware:home")).content.decode()
    assert 'name="htmx-config"' in html
    assert '"includeIndicatorStyles": false' in html
    assert '"allowEval": false' in html


def test_frame_ancestors_are_configurable(settings):
    from config.security import content_security_policy

    policy = content_security_policy(frame_ancestors=["https://lms.example.edu"])
    assert policy["DIRECTIVES"]["frame-ancestors"] == ["https://lms.example.edu"]
    assert content_security_policy(frame_ancestors=[])["DIRECTIVES"]["frame-ancestors"] == [
        "'none'"
    ]


def test_registered_lms_origins_replace_frame_denial():
    # Settings are read once per process: look at them in a fresh one.
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        "print(json.dumps([settings.CONTENT_SECURITY_POLICY['DIRECTIVES']['frame-ancestors'], "
        "'django.middleware.clickjacking.XFrameOptionsMiddleware' in settings.MIDDLEWARE]))"
    )
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_FRAME_ANCESTORS="https://lms.example.edu, https://canvas.example.org",
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    ancestors, xfo = json.loads(out.stdout.strip().splitlines()[-1])
    assert ancestors == ["https://lms.example.edu", "https://canvas.example.org"]
    assert xfo is False


def test_method_not_allowed(student_client):
    chapter = ChapterFactory()
    response = student_client.get(reverse("courseware:mark_read", args=[chapter.slug]))
    assert response.status_code == 405
    assert_security_headers(response)


def test_streamed_csv_export(client, instructor):
    assert client.login(username=instructor.username, password=PASSWORD)
    response = client.get(reverse("instructor:export_responses_csv", args=[OFFERING]))
    assert response.status_code == 200 and response.streaming
    assert_security_headers(response)


def test_favicon_redirect(client):
    response = client.get("/favicon.ico")
    assert response.status_code in (301, 302)
    assert_security_headers(response)
