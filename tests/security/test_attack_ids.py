"""Second attack review: every id a student sends, swept over every student URL, with another
student's attempt (and its variant); every staff URL as a student. Each is refused (404, 403 or
the login page) and nothing is stored or changed."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, Response, SavedAnswer, Variant
from quizzes.services import attempts as service
from tests.factories import OFFERING, EnrollmentFactory, make_quiz

pytestmark = pytest.mark.django_db


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def victim_attempt(course):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="idor-hw")
    victim = EnrollmentFactory(course=course).user
    attempt = service.start_attempt(quiz=quiz, student=victim, now=timezone.now())
    return attempt, attempt.variants.get()


def _state():
    return (
        Response.objects.count(),
        SavedAnswer.objects.count(),
        Variant.objects.count(),
        list(Attempt.objects.order_by("pk").values_list("pk", "status", "score")),
    )


def _part_urls(attempt, variant):
    args = [attempt.pk, variant.pk, "kv"]
    return [
        ("get", reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk])),
        ("get", reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])),
        ("post", reverse("quizzes:submit_attempt", args=[OFFERING, attempt.pk])),
        ("post", reverse("quizzes:submit_part", args=[OFFERING, *args])),
        ("get", reverse("quizzes:preview_part", args=[OFFERING, *args]) + "?answer=2+n+b"),
        ("post", reverse("quizzes:autosave", args=[OFFERING, *args])),
        ("post", reverse("quizzes:new_variant", args=[OFFERING, attempt.pk, variant.pk])),
    ]


@pytest.mark.parametrize("htmx", [False, True])
def test_another_students_attempt_on_every_student_url(course, student, victim_attempt, htmx):
    attempt, variant = victim_attempt
    client = _as(student)
    before = _state()
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    data = {"answer": "2 n b", "idempotency_key": uuid.uuid4().hex}
    for method, url in _part_urls(attempt, variant):
        response = getattr(client, method)(url, data if method == "post" else None, **extra)
        assert response.status_code in (403, 404), (url, response.status_code)
        assert b"2 n b" not in response.content  # nothing of the victim's work is echoed
    assert _state() == before


def test_my_attempt_with_the_victims_variant_on_every_part_url(course, student, victim_attempt):
    attempt, variant = victim_attempt
    mine = service.start_attempt(quiz=attempt.quiz, student=student, now=timezone.now())
    client = _as(student)
    before = _state()
    data = {"answer": "2 n b", "idempotency_key": uuid.uuid4().hex}
    for method, url in _part_urls(mine, variant)[3:]:
        response = getattr(client, method)(url, data if method == "post" else None)
        assert response.status_code in (403, 404), (url, response.status_code)
    assert _state() == before


STAFF_URLS = [
    ("get", "instructor:dashboard", [OFFERING]),
    ("get", "instructor:gradebook", [OFFERING]),
    ("get", "instructor:misconceptions", [OFFERING]),
    ("get", "instructor:variant_search", [OFFERING]),
    ("get", "instructor:item_index", [OFFERING]),
    ("get", "instructor:export_gradebook_csv", [OFFERING]),
    ("get", "instructor:export_responses_csv", [OFFERING]),
    ("get", "instructor:export_responses_json", [OFFERING]),
    ("get", "instructor:regrade", [OFFERING]),
    ("get", "studio:template_list", []),
    ("post", "studio:template_create", []),
    ("get", "instructor:quiz_index", [OFFERING]),
    ("get", "studio:bank_export", []),
    ("post", "studio:bank_import", []),
]


@pytest.mark.parametrize("method,name,args", STAFF_URLS, ids=[n for _, n, _ in STAFF_URLS])
def test_a_student_is_refused_on_staff_urls(course, student, victim_attempt, method, name, args):
    client = _as(student)
    before = _state()
    response = getattr(client, method)(reverse(name, args=args))
    assert response.status_code in (302, 403, 404), response.status_code
    if response.status_code == 302:
        assert "/accounts/login" in response["Location"]
    assert b"kv-cache" not in response.content
    assert _state() == before


def test_a_student_is_refused_on_the_victims_history_and_override(course, student, victim_attempt):
    attempt, _ = victim_attempt
    client = _as(student)
    before = _state()
    for method, url in [
        ("get", reverse("instructor:student_detail", args=[OFFERING, attempt.student_id])),
        ("post", reverse("instructor:override_score", args=[OFFERING, attempt.pk])),
        ("post", reverse("instructor:grant_extension", args=[OFFERING, attempt.student_id])),
    ]:
        response = getattr(client, method)(url, {"score": "100", "reason": "x"})
        assert response.status_code in (302, 403, 404), (url, response.status_code)
    assert _state() == before
