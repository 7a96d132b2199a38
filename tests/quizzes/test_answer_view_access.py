"""Who may post to a part: the answer views read the role, the attempt and the extension in one
query (quizzes/views/targets.py), and decide exactly as `student_required` and the views' own
lookups did; nothing that grants access is kept from one request to the next."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from courseware import roles
from courseware.models import Course, Enrollment
from quizzes.models import Extension, Quiz, QuizMode, Response, SavedAnswer
from quizzes.services import attempts as service
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, make_quiz

pytestmark = pytest.mark.django_db


def _exam_part(course, student, **fields):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=QuizMode.EXAM, **fields)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    return quiz, reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])


def _save(client, url, text="1 s", sequence="1"):
    return client.post(url, {"answer": text, "sequence": sequence}, HTTP_HX_REQUEST="true")


def test_another_students_part_is_not_found_and_nothing_is_saved(client, course, student):
    _quiz, url = _exam_part(course, student)
    other = EnrollmentFactory(course=course, role="student").user
    client.login(username=other.username, password=PASSWORD)
    assert _save(client, url).status_code == 404
    check = url.replace("autosave/", "")
    assert client.post(check, {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}).status_code
    assert not SavedAnswer.objects.exists() and not Response.objects.exists()


def test_staff_get_the_403_page_whether_or_not_the_part_exists(client, course, student, instructor):
    _quiz, url = _exam_part(course, student)
    client.login(username=instructor.username, password=PASSWORD)
    assert _save(client, url).status_code == 403
    missing = reverse("quizzes:autosave", args=[OFFERING, 999999, 999999, "t"])
    assert _save(client, missing).status_code == 403  # the role is checked before the lookup
    assert not SavedAnswer.objects.exists()


def test_anonymous_visitors_are_sent_to_log_in(client, course, student):
    _quiz, url = _exam_part(course, student)
    reply = _save(client, url)
    assert reply.status_code == 302 and "/login/" in reply["Location"]


def test_an_unenrolled_student_is_refused_at_the_very_next_post(client, course, student):
    _quiz, url = _exam_part(course, student)
    client.login(username=student.username, password=PASSWORD)
    assert "save-status saved" in _save(client, url).content.decode()
    Enrollment.objects.filter(user=student).delete()
    assert _save(client, url, "2 s", "2").status_code == 403
    assert SavedAnswer.objects.get().raw == "1 s"


def test_the_extension_is_read_with_the_variant_and_lets_the_check_in(client, course, student):
    # The student's extension rides in the variant's query: no query of its own.
    now = timezone.now()
    quiz = make_quiz(
        course, examples=["decode-step-memory-floor"], closes_at=now + timedelta(hours=1)
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    variant = attempt.variants.get()
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=now - timedelta(minutes=1))
    Extension.objects.create(quiz=quiz, student=student, closes_at=now + timedelta(hours=1))
    client.login(username=student.username, password=PASSWORD)

    def check():
        data = {"answer": "123 s", "idempotency_key": uuid.uuid4().hex}
        return client.post(url, data, HTTP_HX_REQUEST="true")

    with CaptureQueriesContext(connection) as queries:
        assert check().status_code == 200
    sql = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert not [s for s in sql if s.startswith('SELECT "quizzes_extension"')], sql
    assert Response.objects.count() == 1


def test_the_site_course_row_is_kept_briefly_and_forgotten_when_saved(course, monkeypatch):
    assert roles.site_course().title == course.title
    course.title = "Renamed here"
    course.save()  # this process forgets it at once
    assert roles.site_course().title == "Renamed here"
    Course.objects.filter(pk=course.pk).update(title="Renamed on another server")
    assert roles.site_course().title == "Renamed here"  # within the bound
    monkeypatch.setattr(roles, "COURSE_TTL_SECONDS", 0.0)
    assert roles.site_course().title == "Renamed on another server"
    assert roles.site_course() is not roles.site_course()  # a copy per caller
