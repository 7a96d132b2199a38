"""Second attack review: ways around the login throttle. Each test passes when it holds.

A lock is of no use if the same account can be reached under another spelling (spaces, a
full-width form that NFKC folds), from a forged client address, or through another login page.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT
IP = "198.51.100.7"


@pytest.fixture(autouse=True)
def throttling_on(settings):
    settings.AXES_ENABLED = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def victim():
    return UserFactory(username="victim")


def _post(client, username, password, url=None, **extra):
    extra.setdefault("REMOTE_ADDR", IP)
    return client.post(
        url or reverse("login"), {"username": username, "password": password}, **extra
    )


SPELLINGS = [" victim", "victim ", "\tvictim", "ｖｉｃｔｉｍ", "  victim  "]


def test_the_spellings_reach_the_account(client, victim):
    # Otherwise the tests below would prove nothing.
    for spelling in SPELLINGS:
        client.logout()
        assert _post(client, spelling, PASSWORD).status_code == 302, repr(spelling)


def test_other_spellings_of_the_name_share_one_count(client, victim):
    """Many spellings of one account each with its own budget would be unlimited guessing."""
    for n in range(LIMIT):
        _post(client, SPELLINGS[n % len(SPELLINGS)], "wrong-password")
    for spelling in ["victim", *SPELLINGS]:
        response = _post(client, spelling, PASSWORD)
        assert response.status_code == 429, repr(spelling)
        assert "_auth_user_id" not in client.session


def test_a_locked_name_stays_locked_under_another_spelling(client, victim):
    for _ in range(LIMIT):
        _post(client, "victim", "wrong-password")
    for spelling in SPELLINGS:
        assert _post(client, spelling, PASSWORD).status_code == 429, repr(spelling)


def test_a_forged_forwarded_for_header_does_not_give_a_fresh_address(client, victim, settings):
    settings.PROXY_COUNT = 0  # the default: no trusted proxy in front
    for n in range(LIMIT):
        _post(client, "victim", "wrong-password", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    response = _post(client, "victim", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.200")
    assert response.status_code == 429


def test_behind_one_proxy_a_client_cannot_prepend_addresses(client, victim, settings):
    settings.PROXY_COUNT = 1
    # The proxy appends the real peer on the right; what the client wrote is on the left.
    for n in range(LIMIT):
        _post(client, "victim", "wrong-password", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, {IP}")
    response = _post(client, "victim", PASSWORD, HTTP_X_FORWARDED_FOR=f"10.9.9.9, {IP}")
    assert response.status_code == 429


def test_the_admin_login_counts_the_same_spellings(client, victim):
    admin_login = reverse("admin:login")
    for n in range(LIMIT):
        _post(client, SPELLINGS[n % len(SPELLINGS)], "wrong-password", url=admin_login)
    assert _post(client, "victim", PASSWORD).status_code == 429


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_odd_methods_on_the_login_do_not_log_in(client, victim, method):
    body = f"username=victim&password={PASSWORD}"
    response = getattr(client, method)(
        reverse("login"), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code in (200, 403, 405)
    assert "_auth_user_id" not in client.session
