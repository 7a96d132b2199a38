"""Passwords: Argon2id at OWASP's minimum, an older PBKDF2 hash upgraded at the next login, and a
login that lasts the exam day."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    identify_hasher,
    make_password,
)
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_new_passwords_are_argon2id_at_owasp_minimum_or_above():
    encoded = make_password("correct horse battery staple")
    algorithm, variety, version, params, *_ = encoded.split("$")
    assert (algorithm, variety) == ("argon2", "argon2id")
    settings = dict(pair.split("=") for pair in params.split(","))
    # OWASP Password Storage Cheat Sheet: m = 19 MiB, t = 2, p = 1 at least.
    assert int(settings["m"]) >= 19 * 1024 and int(settings["t"]) >= 2
    assert int(settings["p"]) >= 1


def test_a_pbkdf2_password_is_rehashed_with_argon2_at_the_next_login(client):
    user = UserFactory()
    # Few iterations keep the test fast; any PBKDF2 hash is upgraded the same way.
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "somesalt1234", iterations=1000)
    user.save(update_fields=["password"])
    reply = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert reply.status_code == 302  # logged in with the old hash
    user.refresh_from_db()
    assert identify_hasher(user.password).algorithm == "argon2"
    assert user.check_password(PASSWORD)


def test_an_argon2_hash_with_other_parameters_is_rehashed_at_the_next_login(client):
    """A hash stored under other Argon2 parameters (here below the guidance, cheap to test)
    still logs its owner in, and is replaced by one at the configured parameters (Django's
    `must_update`), so a change of parameters reaches every account that logs in."""
    user = UserFactory()
    weaker = Argon2PasswordHasher()
    weaker.memory_cost, weaker.time_cost = 1024, 1
    user.password = weaker.encode(PASSWORD, weaker.salt())
    user.save(update_fields=["password"])
    reply = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert reply.status_code == 302
    user.refresh_from_db()
    assert "$m=19456,t=2,p=1$" in user.password
    assert user.check_password(PASSWORD)


def test_a_wrong_password_leaves_the_old_hash_alone(client):
    user = UserFactory()
    old = PBKDF2PasswordHasher().encode(PASSWORD, "somesalt1234", iterations=1000)
    user.password = old
    user.save(update_fields=["password"])
    reply = client.post(reverse("login"), {"username": user.username, "password": "wrong-one"})
    assert reply.status_code == 200
    user.refresh_from_db()
    assert user.password == old


def test_a_login_outlasts_an_exam_day_so_nobody_logs_in_twice(client, student):
    reply = client.post(reverse("login"), {"username": student.username, "password": PASSWORD})
    assert reply.status_code == 302
    assert client.session.get_expiry_age() >= 12 * 60 * 60
    assert not client.session.get_expire_at_browser_close()
