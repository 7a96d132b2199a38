"""The hostile template and chapter through every page that shows them: the studio preview,
the student's question page and results, the instructor's view of that student, the chapter."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services.questions import common_error_values
from quizzes.services.submission import submit_attempt
from tests.factories import (
    OFFERING,
    PASSWORD,
    ChapterFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
)
from tests.security.hostile import hostile_chapter, hostile_source
from tests.security.payloads import page_active_content

pytestmark = pytest.mark.django_db


@pytest.fixture
def hostile_quiz(course, author):
    template = QuestionTemplateFactory(
        course=course, slug="hostile-payloads", title="Hostile", draft_source=hostile_source()
    )
    quiz = QuizFactory(course=course, slug="hostile", tries_per_variant=1)
    QuizItemFactory(quiz=quiz, template=template, position=1)
    return quiz


@pytest.fixture
def taken(hostile_quiz, student):
    """The student answered both parts wrong (one diagnosed) and submitted."""
    now = timezone.now()
    attempt = service.start_attempt(quiz=hostile_quiz, student=student, now=now)
    variant = attempt.variants.get()
    slip = common_error_values(variant)["bw"]["bits-for-bytes"]
    for part, raw in (("bw", f"{slip:.6g} B/s"), ("pick", ["no"])):
        service.submit_response(
            variant=variant,
            part_id=part,
            raw=raw,
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=now,
        )
    submit_attempt(attempt=attempt, student=student, now=now)
    return attempt


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def _assert_inert(response, **kwargs):
    assert response.status_code == 200
    html = response.content.decode()
    assert page_active_content(html, **kwargs) == []
    return html


def test_studio_preview_of_the_hostile_template_is_inert(client, author, hostile_quiz):
    _login(client, author)
    url = reverse("studio:template_preview", args=["hostile-payloads"])
    response = client.post(url, {"source": hostile_source(), "seed": "1"})
    html = _assert_inert(response)
    assert "onerror=alert(1)" in html  # shown as text (escaped), not dropped silently


def test_studio_preview_fragment_is_inert(client, author, hostile_quiz):
    _login(client, author)
    url = reverse("studio:template_preview", args=["hostile-payloads"])
    response = client.post(url, {"source": hostile_source(), "seed": "1"}, HTTP_HX_REQUEST="true")
    _assert_inert(response)


def test_students_question_page_is_inert(client, student, hostile_quiz):
    attempt = service.start_attempt(quiz=hostile_quiz, student=student, now=timezone.now())
    _login(client, student)
    html = _assert_inert(client.get(reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk])))
    assert "<math" in html and "<mtext>" in html


def test_students_results_with_feedback_and_solution_are_inert(client, student, taken):
    _login(client, student)
    html = _assert_inert(client.get(reverse("quizzes:attempt_results", args=[OFFERING, taken.pk])))
    assert "<math" in html


def test_instructors_view_of_the_students_history_is_inert(client, instructor, student, taken):
    _login(client, instructor)
    _assert_inert(client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk])))


def test_chapter_with_payloads_is_inert(client, course, student):
    chapter = ChapterFactory(source=hostile_chapter(), slug="hostile-chapter")
    _login(client, student)
    html = _assert_inert(client.get(chapter.get_absolute_url()))
    # The chapter keeps its text; the mutation payloads swallow what follows them, as a browser
    # parsing the same source would, but nothing of it runs and the page around it is whole.
    assert "A paragraph." in html and "site-footer" in html


TYPED = [
    "<img src=x onerror=alert(1)>",
    "$\\text{<img src=x onerror=alert(1)>}$ GB",
    "'<svg onload=alert(1)>' B/s",
    '"><script>alert(1)</script>',
    "javascript:alert(1)",
]


def test_typed_answers_stay_text_for_the_student_and_the_instructor(
    client, student, instructor, hostile_quiz
):
    # What holds: a student's own words, quoted back by the grader or listed for the
    # instructor, are escaped text (each is unreadable, so costs no try).
    now = timezone.now()
    attempt = service.start_attempt(quiz=hostile_quiz, student=student, now=now)
    variant = attempt.variants.get()
    for raw in TYPED:
        service.submit_response(
            variant=variant,
            part_id="bw",
            raw=raw,
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=now,
        )
    _login(client, student)
    html = _assert_inert(client.get(reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk])))
    assert "onerror" in html  # the words are shown, escaped
    client.logout()
    _login(client, instructor)
    _assert_inert(client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk])))
