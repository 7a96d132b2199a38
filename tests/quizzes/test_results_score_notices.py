"""The results page of a released attempt says what changed its score after it was recorded
(an instructor's override, an applied regrade), with the reason, as My progress does; changes
to the student's other attempts, or to other students, stay off it."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import RegradeRun, RegradeStatus
from quizzes.services import attempts as service
from quizzes.services.instructor import override_score
from tests.factories import OFFERING, make_quiz

pytestmark = pytest.mark.django_db


def _submitted(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    return attempt


def _regrade(item, attempt, student, old, new):
    change = {"attempt": attempt.pk, "student": student, "part": "t"}
    RegradeRun.objects.create(
        offering=item.quiz.offering,
        template=item.template,
        target_version=item.template.current_version,
        status=RegradeStatus.APPLIED,
        applied_at=timezone.now(),
        preview=[change | {"old_status": old, "new_status": new}],
    )


def test_the_results_page_lists_the_override_and_the_regrade_of_this_attempt_only(
    client, course, student, instructor
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], title="Floor quiz")
    first, second = _submitted(quiz, student), _submitted(quiz, student)
    results = reverse("quizzes:attempt_results", args=[OFFERING, first.pk])
    client.force_login(student)
    assert "Changes to this score" not in client.get(results).content.decode()

    override_score(attempt=first, score="0.5", reason="Unit typo forgiven", by=instructor)
    item = quiz.items.get()
    _regrade(item, first, student.username, "incorrect", "correct")
    _regrade(item, second, student.username, "correct", "unreadable")
    _regrade(item, first, "someone-else", "correct", "incorrect")

    html = client.get(results).content.decode()
    notices = html[html.index("Changes to this score") :].split("</section>")[0]
    assert "Your instructor set the score</strong>\n      of the whole attempt" in notices
    assert "Reason: Unit typo forgiven" in notices
    assert "A regrade changed the grade" in notices and "incorrect → correct" in notices
    assert "Reason: The question was regraded against its version" in notices
    assert "unreadable" not in notices  # the other attempt's change
    assert "correct → incorrect" not in notices  # another student's change
