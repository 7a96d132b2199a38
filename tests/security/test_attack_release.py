"""Second attack review: answers that could leak before the quiz's release policy allows.

A formula's counterexample ("at n = 4 your formula gives 96, the expected one 72") evaluates the
expected formula at a point: it is part of the correct answer, so it follows the quiz's
`show_answers` policy, not only "the part is final".
"""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.utils import timezone

from quizzes.models import AnswerRelease
from quizzes.services import attempts as service
from tests.factories import OFFERING, make_quiz

pytestmark = pytest.mark.django_db
MARK = "Where it differs"


@pytest.fixture(autouse=True)
def inline(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    cache.clear()


def _spent_formula(course, student, policy):
    quiz = make_quiz(
        course,
        examples=["kv-cache-bytes-formula"],
        tries_per_variant=1,
        show_answers=policy,
        slug=f"cx-{policy}",
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    response = service.submit_response(
        variant=variant,
        part_id="kv",
        raw="2 n b",
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    assert "your formula gives" in response.counterexample  # the grader made one
    return attempt, response


@pytest.mark.parametrize(
    "policy", [AnswerRelease.NEVER, AnswerRelease.AFTER_DUE, AnswerRelease.AFTER_SUBMISSION]
)
def test_a_counterexample_waits_for_the_release_policy(client, course, student, policy):
    attempt, response = _spent_formula(course, student, policy)
    client.force_login(student)
    got = client.get(attempt.get_absolute_url())
    assert got.status_code == 200, (got.status_code, got.get("Location"))
    page = got.content.decode()
    assert "Not quite" in page or "incorrect" in page
    assert MARK not in page
    assert response.counterexample.split(" your formula")[0] not in page


def test_the_default_policy_still_shows_it_once_final(client, course, student):
    attempt, response = _spent_formula(course, student, AnswerRelease.AFTER_FINAL)
    client.force_login(student)
    got = client.get(attempt.get_absolute_url())
    assert got.status_code == 200, (got.status_code, got.get("Location"))
    page = got.content.decode()
    assert MARK in page


def test_never_keeps_the_counterexample_off_the_results_page(client, course, student):
    from django.urls import reverse

    attempt, response = _spent_formula(course, student, AnswerRelease.NEVER)
    client.force_login(student)
    client.post(reverse("quizzes:submit_attempt", args=[OFFERING, attempt.pk]))
    got = client.get(reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk]))
    assert got.status_code == 200
    body = got.content.decode()
    assert "2 n b" in body  # the student's own answer is there
    assert MARK not in body
    assert response.counterexample.split(" your formula")[0] not in body


# -- feedback that costs no try says nothing about the answer ------------------------------------

MAGNITUDES = [1e-9, 1e-3, 1.0, 1e3, 1e6, 1e9, 1.4e14, 3e18]
FREE_INPUTS = ["1", "2", "", "x", "1e400", "1 KB", "1,5", "1 parsecs", "1 /s", "1 TB/"]


@pytest.mark.parametrize("unit", ["B/s", "s", "FLOP", "B", "FLOP/s", "tokens/s", "FLOP/B"])
def test_free_numeric_feedback_is_the_same_whatever_the_answer(unit):
    from quizzes.grading import grade_numeric

    for raw in FREE_INPUTS:
        outcomes = {grade_numeric(raw, value, unit=unit) for value in MAGNITUDES}
        statuses = {grade.status for grade in outcomes}
        if statuses != {"invalid"}:
            continue  # a readable answer of the right kind costs a try
        assert len({grade.feedback for grade in outcomes}) == 1, (unit, raw)
