"""Second attack review: grading starvation. A student's free (no-try) answers are limited per
student, not per attempt, quiz or tab; a second formula while one is being checked is refused
at once; another student is unaffected by either."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services.availability import QuizRuleError
from tests.factories import EnrollmentFactory, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_budget(settings, monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    settings.GRADING_FREE_BUDGET = 3
    settings.GRADING_FREE_WINDOW = 300


def _variant(quiz, student):
    return service.start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()


def _send(variant, student, raw="2 n b ("):
    return service.submit_response(
        variant=variant,
        part_id="kv",
        raw=raw,
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )


def test_the_free_budget_follows_the_student_across_quizzes(course, student):
    one = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="budget-a")
    two = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="budget-b")
    first = _variant(one, student)
    for _ in range(3):
        assert _send(first, student).status == "invalid"
    with pytest.raises(QuizRuleError, match="Slow down"):
        _send(_variant(two, student), student)  # a fresh quiz, a fresh attempt: same budget
    other = EnrollmentFactory(course=course).user
    assert _send(_variant(one, other), other).status == "invalid"  # not theirs


def test_a_second_formula_while_one_is_checked_is_refused_for_that_student_only(course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="in-flight")
    mine = _variant(quiz, student)
    other = EnrollmentFactory(course=course).user
    theirs = _variant(quiz, other)
    cache.set(f"grading-in-flight:{student.pk}", 1, 30)  # another tab's formula is being checked
    with pytest.raises(QuizRuleError, match="still being checked"):
        _send(mine, student, raw="2 n b")
    assert mine.responses.count() == 0
    assert _send(theirs, other, raw="2 n b").status == "incorrect"
    cache.delete(f"grading-in-flight:{student.pk}")
    assert _send(mine, student, raw="2 n b").status == "incorrect"
