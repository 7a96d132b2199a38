"""A score the instructor set by hand reaches the student with its reason: on the results page
and in the quiz page's list of attempts; the latest override wins."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services.instructor import override_score
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, student):
    client.login(username=student.username, password=PASSWORD)
    return client


def _submitted(course, student, examples=("decode-step-memory-floor",)):
    quiz = make_quiz(course, examples=examples)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    return quiz, attempt


def test_results_page_shows_the_latest_attempt_override_with_its_reason(
    logged_in, course, student, instructor
):
    _, attempt = _submitted(course, student)
    override_score(attempt=attempt, score="0.25", reason="First look", by=instructor)
    override_score(attempt=attempt, score="0.5", reason="Unit typo forgiven", by=instructor)

    html = logged_in.get(
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    ).content.decode()
    assert "Score set by your instructor:" in html
    assert "0.50/1</strong> — Unit typo forgiven" in html
    assert "First look" not in html


def test_quiz_page_lists_the_override_next_to_the_attempt(logged_in, course, student, instructor):
    quiz, attempt = _submitted(course, student)
    override_score(attempt=attempt, score="1", reason="Regraded by hand", by=instructor)

    html = logged_in.get(
        reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug])
    ).content.decode()
    assert "Score set by your instructor:" in html
    assert "1/1</strong> — Regraded by hand" in html


def test_an_item_override_names_the_question_and_sets_its_points(
    logged_in, course, student, instructor
):
    quiz, attempt = _submitted(
        course, student, examples=("decode-step-memory-floor", "kv-cache-fits")
    )
    second = quiz.items.order_by("position")[1]
    override_score(
        attempt=attempt, item=second, score="0.75", reason="Partial credit", by=instructor
    )

    html = logged_in.get(
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    ).content.decode()
    number = attempt.item_ids.index(second.pk) + 1
    assert f"Question {number}: score set by your instructor:" in html
    assert "0.75/1</strong> — Partial credit" in html
    assert "0.75 / 1 point" in html  # the item's own score line follows the override


def test_no_note_without_an_override(logged_in, course, student):
    quiz, attempt = _submitted(course, student)
    results = logged_in.get(reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk]))
    detail = logged_in.get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug]))
    assert "set by your instructor" not in results.content.decode()
    assert "set by your instructor" not in detail.content.decode()


def test_override_reason_is_escaped(logged_in, course, student, instructor):
    _, attempt = _submitted(course, student)
    override_score(attempt=attempt, score=Decimal(1), reason="<b>fixed</b>", by=instructor)
    html = logged_in.get(
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    ).content.decode()
    assert "&lt;b&gt;fixed&lt;/b&gt;" in html and "<b>fixed</b>" not in html
