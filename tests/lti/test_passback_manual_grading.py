"""The manual-grading flow from a student's written explanation to the LMS: the submission is
sent as provisional (AGS gradingProgress "PendingManual"), the staff grade as "FullyGraded"
with the new score, through the quiz's existing line item."""

from __future__ import annotations

import pytest
from django.utils import timezone

from lti import passback
from lti.models import GradeSync
from quizzes.models import Response
from quizzes.services import manual_grading
from quizzes.services.attempts import autosave, start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import make_quiz
from tests.lti.conftest import launch

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_graded_explanation_reaches_the_lms_as_fully_graded(platform, course, instructor):
    quiz = make_quiz(
        course,
        examples=("explain-why-decode-is-memory-bound",),
        mode="exam",
        time_limit_minutes=60,
    )
    lineitem = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    done = launch(platform, user="student-ada", custom={"quiz": quiz.slug}, lineitem=lineitem)
    assert done.response.status_code == 302
    student = GradeSync.objects.get().user
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    autosave(
        variant=attempt.variants.get(),
        part_id="why",
        raw="Bandwidth bound.",
        student=student,
        now=timezone.now(),
    )
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    first = platform.scores[-1]
    assert first["lineitem"] == lineitem and first["userId"] == "student-ada"
    assert (first["scoreGiven"], first["gradingProgress"]) == (0.0, "PendingManual")
    response = Response.objects.get(variant__attempt=attempt)
    manual_grading.grade_response(
        offering=quiz.offering,
        response_id=response.pk,
        met=["bytes", "intensity", "bound"],
        comment="Complete.",
        version=0,
        grader=instructor,
        now=timezone.now(),
    )
    last = platform.scores[-1]
    assert len(platform.scores) == 2
    assert (last["scoreGiven"], last["scoreMaximum"]) == (1.0, 1.0)
    assert (last["activityProgress"], last["gradingProgress"]) == ("Completed", "FullyGraded")
    assert passback.is_current(GradeSync.objects.get())


def test_grading_to_the_same_score_still_tells_the_lms_it_is_final(platform, course, instructor):
    quiz = make_quiz(
        course,
        examples=("explain-why-decode-is-memory-bound",),
        mode="exam",
        time_limit_minutes=60,
    )
    lineitem = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    launch(platform, user="student-ada", custom={"quiz": quiz.slug}, lineitem=lineitem)
    student = GradeSync.objects.get().user
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    autosave(
        variant=attempt.variants.get(),
        part_id="why",
        raw="No idea.",
        student=student,
        now=timezone.now(),
    )
    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    response = Response.objects.get(variant__attempt=attempt)
    manual_grading.grade_response(
        offering=quiz.offering,
        response_id=response.pk,
        met=[],
        comment="",
        version=0,
        grader=instructor,
        now=timezone.now(),
    )
    scores = [(s["scoreGiven"], s["gradingProgress"]) for s in platform.scores]
    assert scores == [(0.0, "PendingManual"), (0.0, "FullyGraded")]
