"""Login paths besides the login form: without e-mail configured, password reset is off (and
its pages say to ask the instructor for a set-password link; tests/security/test_passwords.py
covers reset by e-mail when it is on), and `next` never leaves the site."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

RESET_URLS = [
    "/accounts/password_reset/",
    "/accounts/password_reset/done/",
    "/accounts/reset/MQ/set-password/",
    "/accounts/reset/done/",
]


@pytest.fixture(autouse=True)
def _no_mail(settings):
    settings.PASSWORD_RESET_BY_EMAIL = False


@pytest.mark.parametrize("url", RESET_URLS)
def test_password_reset_pages_are_off_and_say_who_can_help(client, course, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "ask your instructor for a set-password link" in response.content.decode()


def test_password_reset_post_sends_no_mail(course):
    UserFactory(username="someone", email="someone@example.org")
    response = Client(raise_request_exception=False).post(
        "/accounts/password_reset/", {"email": "someone@example.org"}
    )
    assert response.status_code == 404
    assert mail.outbox == []


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "javascript:1"]
)
def test_login_never_redirects_off_the_site(client, course, target):
    UserFactory(username="someone")
    response = client.post(
        f"/accounts/login/?next={target}",
        {"username": "someone", "password": PASSWORD, "next": target},
    )
    assert response.status_code == 302
    # The site's own landing page, which sends each role to its home (here: the course home).
    assert response.headers["Location"] == "/welcome/"
    assert client.get("/welcome/").headers["Location"] == "/"
