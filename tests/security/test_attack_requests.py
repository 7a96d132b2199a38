"""Second attack review: requests with missing or odd headers and methods. Each gets a clear
4xx (or the ordinary page), never a 500, and changes nothing it should not."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Response
from quizzes.services import attempts as service
from tests.factories import OFFERING, PASSWORD, UserFactory, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def work(course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="odd-requests")
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt, attempt.variants.get()


def _part_url(attempt, variant, name="submit_part"):
    return reverse(f"quizzes:{name}", args=[OFFERING, attempt.pk, variant.pk, "kv"])


@pytest.mark.parametrize("method", ["get", "put", "patch", "delete", "options"])
def test_the_answer_endpoint_takes_only_post(client, student, work, method):
    client.force_login(student)
    response = getattr(client, method)(_part_url(*work))
    assert response.status_code == 405
    assert Response.objects.count() == 0


def test_head_of_a_page_is_not_an_error(client, student, work):
    client.force_login(student)
    response = client.head(work[0].get_absolute_url())
    assert response.status_code in (200, 405)  # GET-only views refuse HEAD cleanly


def test_an_answer_without_a_csrf_token_is_refused(student, work):
    client = Client(enforce_csrf_checks=True)
    client.force_login(student)
    response = client.post(
        _part_url(*work), {"answer": "2 n b", "idempotency_key": uuid.uuid4().hex}
    )
    assert response.status_code == 403
    assert Response.objects.count() == 0


def test_an_anonymous_htmx_answer_gets_the_login_not_a_grade(client, work):
    response = client.post(
        _part_url(*work),
        {"answer": "2 n b", "idempotency_key": uuid.uuid4().hex},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code in (302, 401, 403)
    assert Response.objects.count() == 0


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"answer": "2 n b"},  # no key
        {"answer": "2 n b", "idempotency_key": "x" * 500},
        {"answer": "2 n b", "idempotency_key": "../../etc"},
        {"answer": ["a", "b", "c"], "idempotency_key": uuid.uuid4().hex},
        {"answer": "n" * 100_000, "idempotency_key": uuid.uuid4().hex},
        {"answer": "2 n b\x00", "idempotency_key": uuid.uuid4().hex},
    ],
    ids=["empty", "no-key", "long-key", "odd-key", "many", "huge", "nul"],
)
def test_odd_answer_posts_get_a_message_not_a_500(client, student, work, data, monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    client.force_login(student)
    response = client.post(_part_url(*work), data, HTTP_HX_REQUEST="true")
    assert response.status_code < 500
    assert Response.objects.filter(try_number__isnull=False).count() == 0


def test_a_preview_with_a_huge_query_is_refused_quickly(client, student, work):
    client.force_login(student)
    url = _part_url(*work, name="preview_part")
    response = client.get(url, {"answer": "n" * 50_000}, HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 400)
    assert b"Too long" in response.content or response.status_code == 400


@pytest.mark.parametrize("remote", [None, "", "not-an-address", "::1"])
def test_a_login_without_a_usable_client_address_is_still_throttled(remote, settings):
    """Behind a proxy on a Unix socket REMOTE_ADDR is empty: the lock must hold all the same
    (it did not: with an empty address axes never locked), and an address PostgreSQL's inet
    column refuses must not reach it."""
    settings.AXES_ENABLED = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    UserFactory(username="victim")
    client = Client()
    extra = {} if remote is None else {"REMOTE_ADDR": remote}
    if remote is None:
        client.defaults.pop("REMOTE_ADDR", None)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post(
            reverse("login"), {"username": "victim", "password": "wrong"}, **extra
        )
        assert response.status_code in (200, 429)
    response = client.post(reverse("login"), {"username": "victim", "password": PASSWORD}, **extra)
    assert response.status_code == 429


def test_the_configured_proxy_count_defaults_to_trusting_no_header():
    import config.settings as configured

    assert configured.PROXY_COUNT == 0 or settings.PROXY_COUNT == configured.PROXY_COUNT
