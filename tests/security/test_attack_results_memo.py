"""The graded results page's memo (`presenters.results_memo`): never stale, never past the
release policy, never another student's.

Each test warms the results page (the second read is asserted to come from the memo: the
presenter that draws the sections is made to fail), then changes what the page may show the
way an instructor or a write in the site does, and reads the page again: it fails if the
memoised sections were served.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import AnswerRelease, Quiz, QuizMode, ReleasePolicy, Response
from quizzes.presenters import results_memo
from quizzes.services import attempts as service
from quizzes.services.instructor import grant_extension, override_score
from tests.factories import OFFERING, EnrollmentFactory, check_answer, make_quiz

pytestmark = pytest.mark.django_db
ANSWER = 'class="correct-answer"'
TOKEN = re.compile(r'"X-CSRFToken": "[A-Za-z0-9]+"|name="csrfmiddlewaretoken" value="[A-Za-z0-9]+"')


@pytest.fixture(autouse=True)
def inline_grading(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")


def _submitted(course, student, **quiz_fields):
    quiz = make_quiz(course, tries_per_variant=1, **quiz_fields)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    check_answer(variant, student, "1 s")  # wrong: the part is final, its answer may show
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    return attempt


def _url(attempt) -> str:
    return reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])


def _page(client, attempt) -> str:
    """The page without its CSRF token (masked afresh on every request)."""
    return TOKEN.sub("", client.get(_url(attempt)).content.decode())


def _warm(client, attempt, monkeypatch) -> str:
    """The page drawn, then served from the memo (drawing again would fail)."""
    first = _page(client, attempt)

    def drawn_again(*args, **kwargs):
        raise AssertionError("the memoised sections were drawn again")

    with monkeypatch.context() as patch:
        patch.setattr(results_memo, "result_items", drawn_again)
        assert _page(client, attempt) == first
    return first


def test_the_warm_page_is_the_page_drawn(client, course, student, monkeypatch):
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_SUBMISSION)
    client.force_login(student)
    page = _warm(client, attempt, monkeypatch)
    assert ANSWER in page and "Results" in page


def test_an_instructor_who_withholds_answers_is_obeyed_at_once(
    client, course, student, monkeypatch
):
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_SUBMISSION)
    client.force_login(student)
    assert ANSWER in _warm(client, attempt, monkeypatch)
    # The quiz page's policy switch writes with update(), no signal, no save().
    Quiz.objects.filter(pk=attempt.quiz_id).update(show_answers=AnswerRelease.NEVER)
    assert ANSWER not in client.get(_url(attempt)).content.decode()


def test_moving_the_due_date_later_hides_answers_released_after_it(
    client, course, student, monkeypatch
):
    past = timezone.now() - timedelta(days=1)
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_DUE, due_at=past)
    client.force_login(student)
    assert ANSWER in _warm(client, attempt, monkeypatch)
    quiz = attempt.quiz
    quiz.due_at = timezone.now() + timedelta(days=3)
    quiz.save(update_fields=["due_at"])
    assert ANSWER not in client.get(_url(attempt)).content.decode()


def test_an_extension_for_this_student_hides_answers_released_after_the_due_date(
    client, course, student, instructor, monkeypatch
):
    past = timezone.now() - timedelta(hours=1)
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_DUE, due_at=past)
    client.force_login(student)
    assert ANSWER in _warm(client, attempt, monkeypatch)
    grant_extension(
        quiz=attempt.quiz,
        student=student,
        by=instructor,
        due_at=timezone.now() + timedelta(days=2),
        reason="illness",
    )
    assert ANSWER not in client.get(_url(attempt)).content.decode()


def test_an_exams_results_wait_again_when_its_due_date_moves_later(
    client, course, student, monkeypatch
):
    quiz = make_quiz(
        course,
        mode=QuizMode.EXAM,
        release=ReleasePolicy.AFTER_DUE,
        show_answers=AnswerRelease.AFTER_SUBMISSION,
        time_limit_minutes=60,
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.autosave(
        variant=attempt.variants.get(), part_id="t", raw="1 s", student=student, now=timezone.now()
    )
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    Quiz.objects.filter(pk=quiz.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    client.force_login(student)
    page = _warm(client, attempt, monkeypatch)
    assert ANSWER in page and "score-big" in page
    Quiz.objects.filter(pk=quiz.pk).update(due_at=timezone.now() + timedelta(days=1))
    page = client.get(_url(attempt)).content.decode()
    assert ANSWER not in page and "score-big" not in page
    assert "released after the due date" in page


def test_an_override_shows_at_once(client, course, student, instructor, monkeypatch):
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_SUBMISSION)
    client.force_login(student)
    _warm(client, attempt, monkeypatch)
    override_score(
        attempt=attempt,
        item=None,
        score=Decimal("0.75"),
        reason="marked by hand 9217",
        by=instructor,
    )
    page = client.get(_url(attempt)).content.decode()
    assert "marked by hand 9217" in page and "0.75" in page


def test_a_grade_rewritten_through_the_orm_shows_at_once(client, course, student, monkeypatch):
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_SUBMISSION)
    client.force_login(student)
    assert "feedback-rewritten-5521" not in _warm(client, attempt, monkeypatch)
    # A bulk rewrite (a regrade's shape): no signal is sent, the queryset raises the stamp.
    Response.objects.filter(variant__attempt=attempt).update(feedback="feedback-rewritten-5521")
    assert "feedback-rewritten-5521" in client.get(_url(attempt)).content.decode()


def test_another_student_never_gets_the_memoised_page(client, course, student, monkeypatch):
    attempt = _submitted(course, student, show_answers=AnswerRelease.AFTER_SUBMISSION)
    client.force_login(student)
    _warm(client, attempt, monkeypatch)
    other = EnrollmentFactory(offering=attempt.quiz.offering).user
    client.force_login(other)
    assert client.get(_url(attempt)).status_code == 404
