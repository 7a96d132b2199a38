"""An extension granted while an exam attempt is open: the attempt's deadline is the one the new
window gives it (extra minutes and a new close date both count), and the student can save and
submit until that deadline even when it is past the quiz's close."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.models import Attempt, AttemptStatus, Extension, QuizMode, SavedAnswer, Variant
from quizzes.services import attempts as service
from quizzes.services.instructor import writes
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db
SLUG = "decode-step-memory-floor"


def _exam(course, student, *, closes_in: int):
    """A 60-minute exam closing in `closes_in` minutes, started now."""
    now = timezone.now()
    quiz = make_quiz(
        course,
        examples=[SLUG],
        mode=QuizMode.EXAM,
        time_limit_minutes=60,
        closes_at=now + timedelta(minutes=closes_in),
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    return quiz, attempt


def _deadline(attempt):
    return Attempt.objects.get(pk=attempt.pk).deadline


def test_a_new_close_date_moves_an_open_attempt_cut_by_the_old_close(course, student, instructor):
    quiz, attempt = _exam(course, student, closes_in=10)
    assert attempt.deadline == quiz.closes_at  # cut by the close
    writes.grant_extension(
        quiz=quiz, student=student, by=instructor, closes_at=quiz.closes_at + timedelta(hours=2)
    )
    assert _deadline(attempt) == attempt.started_at + timedelta(minutes=60)
    # Extra minutes on top, the close still far enough: the time limit grows by them.
    writes.grant_extension(
        quiz=quiz,
        student=student,
        by=instructor,
        closes_at=quiz.closes_at + timedelta(hours=2),
        extra_minutes=30,
    )
    assert _deadline(attempt) == attempt.started_at + timedelta(minutes=90)


def test_extra_minutes_are_counted_from_the_start_and_capped_by_the_close(
    course, student, instructor
):
    quiz, attempt = _exam(course, student, closes_in=120)
    writes.grant_extension(quiz=quiz, student=student, by=instructor, extra_minutes=30)
    assert _deadline(attempt) == attempt.started_at + timedelta(minutes=90)
    # Replacing it with 80 minutes: the close (120 minutes after the start) caps it, so the
    # timer and the close agree and no minute is shown that would be refused.
    writes.grant_extension(quiz=quiz, student=student, by=instructor, extra_minutes=80)
    assert _deadline(attempt) == quiz.closes_at


def test_an_attempt_whose_deadline_is_past_the_close_saves_and_submits_until_it(course, student):
    quiz, attempt = _exam(course, student, closes_in=10)
    # Given time past the quiz's close: 30 extra minutes added to its deadline, as extensions
    # were granted before deadlines were recomputed (the window still closes at the close).
    Extension.objects.create(quiz=quiz, student=student, extra_minutes=30)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=quiz.closes_at + timedelta(minutes=30))
    later = quiz.closes_at + timedelta(minutes=5)  # past the close, before the deadline
    variant = Variant.objects.select_related("attempt__quiz", "item", "version").get(
        attempt=attempt
    )
    service.autosave(
        variant=variant, part_id="t", raw="2 ms", student=student, now=later, sequence=1
    )
    assert SavedAnswer.objects.get(variant=variant, part_id="t").raw == "2 ms"
    mine = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    assert service.submit_attempt(attempt=mine, student=student, now=later)
    assert Attempt.objects.get(pk=attempt.pk).status == AttemptStatus.SUBMITTED


def test_past_its_deadline_an_attempt_is_refused_and_submitted(course, student):
    quiz, attempt = _exam(course, student, closes_in=10)
    variant = Variant.objects.select_related("attempt__quiz", "item", "version").get(
        attempt=attempt
    )
    with pytest.raises(service.QuizRuleError, match="Time is up"):
        service.autosave(
            variant=variant,
            part_id="t",
            raw="2 ms",
            student=student,
            now=quiz.closes_at + timedelta(seconds=1),
            sequence=1,
        )
    assert Attempt.objects.get(pk=attempt.pk).status == AttemptStatus.SUBMITTED
