"""Login throttling: repeated wrong passwords lock that account from that address, with a
clear message, on the site's login and the admin's; a reset command unlocks it."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT


def _post(client, username, password, url=None, ip="198.51.100.7"):
    return client.post(
        url or reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=ip,
    )


def _fail(client, username, times, **kw):
    for _ in range(times):
        response = _post(client, username, "wrong-password", **kw)
    return response


@pytest.fixture(autouse=True)
def throttling_on(settings):
    settings.AXES_ENABLED = True  # the suite turns it off for the test client's login()
    # Every login attempt hashes a password; the real hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def victim():
    return UserFactory(username="victim")


def test_the_limit_is_small(settings):
    import config.settings as configured

    assert getattr(configured, "AXES_ENABLED", True)  # on unless a deployment turns it off
    assert configured.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"
    assert 3 <= settings.AXES_FAILURE_LIMIT <= 10
    assert settings.AXES_COOLOFF_TIME


def test_failures_below_the_limit_are_ordinary_failures(client, victim):
    response = _fail(client, "victim", LIMIT - 1)
    assert response.status_code == 200
    assert "did not match" in response.content.decode()
    assert _post(client, "victim", PASSWORD).status_code == 302


def test_n_failures_lock_and_the_page_says_so(client, victim):
    response = _fail(client, "victim", LIMIT)
    assert response.status_code == 429
    body = response.content.decode()
    assert "Too many failed attempts" in body
    assert "15 minutes" in body or "minutes" in body
    assert 'name="username"' in body  # still the login page, not a bare error


def test_a_correct_password_is_refused_while_locked(client, victim):
    _fail(client, "victim", LIMIT)
    response = _post(client, "victim", PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_admin_login_is_throttled_too(victim):
    admin = Client()
    url = "/admin/login/?next=/admin/"
    for _ in range(LIMIT):
        response = admin.post(url, {"username": "victim", "password": "bad"}, REMOTE_ADDR="1.2.3.4")
    assert response.status_code == 429
    response = admin.post(url, {"username": "victim", "password": PASSWORD}, REMOTE_ADDR="1.2.3.4")
    assert response.status_code == 429


def test_a_lock_on_the_admin_also_holds_on_the_site_login(client, victim):
    _fail(client, "victim", LIMIT, url="/admin/login/")
    assert _post(client, "victim", PASSWORD).status_code == 429


def test_other_users_are_unaffected(client, victim):
    UserFactory(username="bystander")
    _fail(client, "victim", LIMIT)
    assert _post(Client(), "bystander", PASSWORD).status_code == 302


def test_the_same_account_from_another_address_is_unaffected(client, victim):
    # The lock is on the pair: a classmate failing on purpose cannot lock a student out.
    _fail(client, "victim", LIMIT, ip="203.0.113.9")
    assert _post(Client(), "victim", PASSWORD, ip="198.51.100.20").status_code == 302


def test_unlock_command_resets_the_account(client, victim):
    _fail(client, "victim", LIMIT)
    call_command("axes_reset_username", "victim", verbosity=0)
    assert _post(client, "victim", PASSWORD).status_code == 302


def test_full_reset_command_unlocks_everyone(client, victim):
    _fail(client, "victim", LIMIT)
    call_command("axes_reset", verbosity=0)
    assert _post(client, "victim", PASSWORD).status_code == 302


def test_a_success_resets_the_count(client, victim):
    _fail(client, "victim", LIMIT - 1)
    assert _post(client, "victim", PASSWORD).status_code == 302
    client.logout()
    response = _fail(client, "victim", LIMIT - 1)
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("hops", "forwarded", "expected"),
    [
        (0, "203.0.113.1", "10.0.0.2"),  # no proxy trusted: the header is ignored
        (1, "203.0.113.1", "203.0.113.1"),
        (1, "6.6.6.6, 203.0.113.1", "203.0.113.1"),  # a spoofed left entry is not believed
        (2, "6.6.6.6, 203.0.113.1, 10.0.0.9", "203.0.113.1"),
        (2, "203.0.113.1", "10.0.0.2"),  # fewer hops than proxies: not trusted
    ],
)
def test_client_address_behind_trusted_proxies(settings, hops, forwarded, expected):
    from django.test import RequestFactory

    from courseware.throttling import client_ip

    settings.PROXY_COUNT = hops
    request = RequestFactory().post(
        "/accounts/login/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded
    )
    assert client_ip(request) == expected


@pytest.mark.django_db(transaction=True)
def test_a_login_after_no_failure_runs_fourteen_queries_and_deletes_nothing(
    client, victim, django_assert_num_queries
):
    """axes' two clean-ups after a login (expired attempts, this account's failures) ask
    whether there is anything first: Django's delete() of axes' attempts, which have delete
    signals, reads the rows and opens a transaction even for none (18 queries before)."""
    client.get(reverse("login"))
    # axes' failure count, the user; the new session (its key free? then stored, in its own
    # transaction); the two clean-ups' questions around axes' access log; last_login, the
    # account's time zone, the session's data (in its transaction).
    with django_assert_num_queries(14) as seen:
        assert _post(client, "victim", PASSWORD).status_code == 302
    assert not any(q["sql"].startswith("DELETE") for q in seen.captured_queries)


def test_a_login_after_failures_still_clears_them_and_the_expired_ones(client, victim):
    from datetime import timedelta

    from axes.models import AccessAttempt
    from django.utils import timezone

    _fail(client, "victim", LIMIT - 1)
    _fail(client, "other", 1, ip="203.0.113.9")
    old = AccessAttempt.objects.get(username="other")
    old.attempt_time = timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(minutes=1)
    old.save(update_fields=["attempt_time"])
    assert _post(client, "victim", PASSWORD).status_code == 302
    assert not AccessAttempt.objects.exists()
