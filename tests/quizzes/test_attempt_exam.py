"""Exam mode: autosave, one graded submission per part at the end, the deadline, release."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, Response, SavedAnswer
from quizzes.services import attempts as service
from quizzes.services.availability import QuizRuleError
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam(course):
    return make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        mode="exam",
        time_limit_minutes=30,
    )


def _right_choice(variant) -> str:
    return correct_answers(variant)["bound"][0]


def test_exam_saves_answers_and_grades_them_once_at_submission(exam, student):
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    assert attempt.deadline == now + timedelta(minutes=30)
    numeric = attempt.variants.get(item__position=1)
    choice = attempt.variants.get(item__position=2)
    seconds = correct_answers(numeric)["t"]
    service.autosave(variant=numeric, part_id="t", raw="1 s", student=student, now=now)
    service.autosave(variant=numeric, part_id="t", raw=f"{seconds} s", student=student, now=now)
    service.autosave(
        variant=choice, part_id="bound", raw=_right_choice(choice), student=student, now=now
    )
    assert SavedAnswer.objects.count() == 2
    assert not Response.objects.exists()  # nothing graded while the exam runs
    with pytest.raises(QuizRuleError, match="graded when you submit"):
        service.submit_response(
            variant=numeric,
            part_id="t",
            raw="1 s",
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=now,
        )
    service.submit_attempt(attempt=attempt, student=student, now=now + timedelta(minutes=5))
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and not attempt.auto_submitted
    assert Response.objects.count() == 2
    assert set(Response.objects.values_list("try_number", flat=True)) == {1}
    assert attempt.score == Decimal("2.000")


def test_autosave_after_the_deadline_is_refused_and_the_attempt_auto_submitted(exam, student):
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    variant = attempt.variants.get(item__position=1)
    service.autosave(variant=variant, part_id="t", raw="1 ms", student=student, now=now)
    late = now + timedelta(minutes=31)
    with pytest.raises(QuizRuleError, match="Time is up"):
        service.autosave(variant=variant, part_id="t", raw="2 ms", student=student, now=late)
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and attempt.auto_submitted
    assert attempt.submitted_at == attempt.deadline
    assert SavedAnswer.objects.get().raw == "1 ms"  # the late text was stored nowhere
    assert Response.objects.get().raw == "1 ms"  # the saved answer was graded


def test_extra_minutes_of_an_extension_lengthen_the_deadline(exam, student):
    from quizzes.models import Extension

    Extension.objects.create(quiz=exam, student=student, extra_minutes=15)
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    assert attempt.deadline == now + timedelta(minutes=45)


def test_close_expired_attempts_command_submits_overdue_attempts(exam, student, capsys):
    past = timezone.now() - timedelta(hours=2)
    attempt = service.start_attempt(quiz=exam, student=student, now=past)
    variant = attempt.variants.get(item__position=2)
    service.autosave(
        variant=variant, part_id="bound", raw=_right_choice(variant), student=student, now=past
    )
    call_command("close_expired_attempts")
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and attempt.auto_submitted
    assert attempt.score == Decimal("1.000")
    assert "closed 1 expired attempt" in capsys.readouterr().out


def test_opening_an_overdue_exam_page_auto_submits_it(client, exam, student):
    attempt = service.start_attempt(
        quiz=exam, student=student, now=timezone.now() - timedelta(hours=1)
    )
    client.login(username=student.username, password=PASSWORD)
    response = client.get(attempt.get_absolute_url())
    assert response.status_code == 302
    assert response["Location"] == reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    assert Attempt.objects.get(pk=attempt.pk).auto_submitted


def test_exam_page_fills_inputs_from_saved_answers(client, exam, student):
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    variant = attempt.variants.get(item__position=1)
    service.autosave(variant=variant, part_id="t", raw="4.2 ms", student=student, now=now)
    client.login(username=student.username, password=PASSWORD)
    html = client.get(attempt.get_absolute_url()).content.decode()
    assert 'value="4.2 ms"' in html
    assert reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"]) in html
    assert "data-deadline" in html


def test_autosave_view_answers_htmx_with_a_status_fragment(client, exam, student):
    attempt = service.start_attempt(quiz=exam, student=student, now=timezone.now())
    variant = attempt.variants.get(item__position=1)
    client.login(username=student.username, password=PASSWORD)
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    fragment = client.post(url, {"answer": "3 ms"}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert "Saved at" in fragment.content.decode()
    assert "<html" not in fragment.content.decode()
    # The time of the save names its zone, the offering's here (the account's has not been set).
    exam.offering.time_zone = "Asia/Tokyo"
    exam.offering.save(update_fields=["time_zone"])
    tokyo = client.post(url, {"answer": "4 ms"}, HTTP_HX_REQUEST="true").content.decode()
    assert re.search(r"Saved at \d\d:\d\d:\d\d Tokyo time", tokyo), tokyo
    plain = client.post(url, {"answer": "5 ms"})
    assert plain.status_code == 302 and plain["Location"].endswith(f"#part-{variant.pk}-t")
    assert SavedAnswer.objects.get().raw == "5 ms"


def test_results_wait_for_the_due_date_when_release_is_after_due(course, student, client):
    now = timezone.now()
    quiz = make_quiz(
        course,
        mode="exam",
        release="after_due",
        due_at=now + timedelta(days=1),
        closes_at=now + timedelta(days=2),
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    variant = attempt.variants.get()
    seconds = correct_answers(variant)["t"]
    service.autosave(variant=variant, part_id="t", raw=f"{seconds} s", student=student, now=now)
    service.submit_attempt(attempt=attempt, student=student, now=now)
    client.login(username=student.username, password=PASSWORD)
    html = client.get(
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    ).content.decode()
    assert "released after the due date" in html
    assert "Worked solution" not in html
    assert "Correct" not in html


def test_quiz_list_hides_an_exam_score_until_release(course, student, client):
    now = timezone.now()
    quiz = make_quiz(
        course, mode="exam", release="after_due", due_at=now + timedelta(days=1), title="Held"
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    variant = attempt.variants.get()
    seconds = correct_answers(variant)["t"]
    service.autosave(variant=variant, part_id="t", raw=f"{seconds} s", student=student, now=now)
    service.submit_attempt(attempt=attempt, student=student, now=now)
    client.login(username=student.username, password=PASSWORD)
    html = client.get(reverse("quizzes:quiz_list", args=[OFFERING])).content.decode()
    assert "Submitted" in html and "1 / 1" not in html
    quiz.due_at = now - timedelta(minutes=1)
    quiz.save()
    html = client.get(reverse("quizzes:quiz_list", args=[OFFERING])).content.decode()
    assert "1 / 1" in html
