"""Grades are written and attempts scored by one function each, so a submission, a regrade,
an override and demo data agree (`services.grades`, `submission.score_attempt`)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.grading import Grade
from quizzes.models import Attempt, Response
from quizzes.services import attempts as service
from quizzes.services import seed
from quizzes.services.grades import grade_fields, graded_response, regrade_response
from quizzes.services.questions import correct_answers
from quizzes.services.submission import recompute_attempt_score
from tests.factories import ChapterFactory, make_quiz, offering_of

pytestmark = pytest.mark.django_db


def test_one_mapping_from_a_grade_to_the_row():
    grade = Grade("incorrect", 1.7, "Not quite.", "reciprocal", "3 s", 3.0)
    fields = grade_fields(grade)
    assert fields["score"] == 1.0  # kept within 0..1 whoever writes it
    assert (fields["diagnosis"], fields["interpreted"], fields["counterexample"]) == (
        "reciprocal",
        "3 s",
        "",
    )
    row = graded_response(part_id="t", raw="3 s", grade=grade, try_number=1)
    assert (row.status, row.value, row.try_number) == ("incorrect", 3.0, 1)
    now = timezone.now()
    regrade_response(row, Grade("correct", 1.0, "Correct."), now=now)
    assert (row.status, row.diagnosis, row.value, row.regraded_at) == ("correct", "", None, now)


def _submitted(course, student, quiz):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    for variant in attempt.variants.all():
        service.submit_response(
            variant=variant,
            part_id="t",
            raw=f"{correct_answers(variant)['t']} s",
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=timezone.now(),
        )
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    return Attempt.objects.get(pk=attempt.pk)


def test_rescoring_a_submitted_attempt_gives_the_submissions_score_in_fixed_queries(
    course, student, django_assert_num_queries
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = _submitted(course, student, quiz)
    assert attempt.score == attempt.max_score == 1
    Attempt.objects.filter(pk=attempt.pk).update(score=0)
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    # items, variants, overrides, save and the quiz's statistics counter the save raises
    # (quizzes/stamps.py): however many items the attempt has
    with django_assert_num_queries(5):
        recompute_attempt_score(attempt)
    attempt.refresh_from_db()
    assert attempt.score == 1


def test_demo_attempts_score_as_a_rescore_would(course):
    ChapterFactory(part__course=course)
    make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        due_at=timezone.now() - timedelta(days=1),
        late_penalty=0.25,
    )
    seed.seed_class(offering=offering_of(course), students=6)
    attempts = list(Attempt.objects.select_related("quiz"))
    assert attempts and Response.objects.exists()
    stored = {a.pk: (a.score, a.max_score) for a in attempts}
    for attempt in attempts:
        recompute_attempt_score(attempt)
    assert {a.pk: (a.score, a.max_score) for a in attempts} == stored
