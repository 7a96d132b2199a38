"""Issue 13 item 1, the audit: every client value that names a row (URL ids, hidden fields, form
choices) is looked up within what the user may touch. A foreign one is "not found" (or refused
with a message) and nothing is stored.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.models import (
    Extension,
    QuizItem,
    RegradeRun,
    Response,
    SavedAnswer,
    ScoreOverride,
    Variant,
)
from quizzes.services import attempts as service
from quizzes.services.bank import publish_version
from tests.factories import OFFERING, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = pytest.mark.django_db


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def other_course():
    return CourseFactory(slug="another-course", title="Another course")


@pytest.fixture
def two_attempts(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor", "kv-cache-fits"])
    other = EnrollmentFactory(course=course).user
    now = timezone.now()
    mine = service.start_attempt(quiz=quiz, student=student, now=now)
    theirs = service.start_attempt(quiz=quiz, student=other, now=now)
    return mine, theirs


def _stored() -> tuple[int, int, int]:
    return Response.objects.count(), SavedAnswer.objects.count(), Variant.objects.count()


# -- the student's own attempt, someone else's variant or a part that is not there -------------


def test_my_attempt_with_another_students_variant_is_not_found(student, two_attempts):
    mine, theirs = two_attempts
    foreign = theirs.variants.get(item__position=1)
    client = _as(student)
    before = _stored()
    urls = [
        reverse("quizzes:submit_part", args=[OFFERING, mine.pk, foreign.pk, "t"]),
        reverse("quizzes:autosave", args=[OFFERING, mine.pk, foreign.pk, "t"]),
        reverse("quizzes:new_variant", args=[OFFERING, mine.pk, foreign.pk]),
        reverse("quizzes:preview_part", args=[OFFERING, mine.pk, foreign.pk, "t"]),
    ]
    for url in urls:
        data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
        method = client.get if url.endswith("preview/") else client.post
        assert method(url, data).status_code == 404, url
    assert _stored() == before


def test_a_part_that_is_not_in_the_question_stores_nothing(student, two_attempts):
    mine, _ = two_attempts
    variant = mine.variants.get(item__position=1)
    client = _as(student)
    url = reverse(
        "quizzes:submit_part", args=[OFFERING, mine.pk, variant.pk, "kv"]
    )  # another item's part
    data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
    body = client.post(url, data, HTTP_HX_REQUEST="true")
    assert body.status_code == 404 or "not in this question" in body.content.decode()
    assert not Response.objects.exists()


def test_autosave_is_refused_in_homework(student, two_attempts):
    """Found in the audit: autosave stored drafts on homework variants, where nothing reads them."""
    mine, _ = two_attempts
    variant = mine.variants.get(item__position=1)
    url = reverse("quizzes:autosave", args=[OFFERING, mine.pk, variant.pk, "t"])
    body = _as(student).post(url, {"answer": "1 ms"}, HTTP_HX_REQUEST="true").content.decode()
    assert "checked when you press Check" in body
    assert not SavedAnswer.objects.exists()


def test_an_unpublished_or_foreign_quiz_cannot_be_started(course, student, other_course):
    hidden = make_quiz(course, is_published=False, slug="hidden")
    foreign = make_quiz(other_course, slug="foreign")
    client = _as(student)
    for quiz in (hidden, foreign):
        assert (
            client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug])).status_code
            == 404
        )
        assert (
            client.get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug])).status_code
            == 404
        )
    assert not Variant.objects.exists()


# -- the instructor's targets ------------------------------------------------------------------


def test_an_override_needs_an_attempt_and_a_question_of_this_course(
    course, instructor, other_course, two_attempts
):
    mine, _ = two_attempts
    service.submit_attempt(attempt=mine, student=mine.student, now=timezone.now())
    outsider = EnrollmentFactory(course=other_course).user
    foreign_quiz = make_quiz(other_course, slug="foreign")
    foreign_attempt = service.start_attempt(quiz=foreign_quiz, student=outsider, now=timezone.now())
    other_item = (
        QuizItem.objects.exclude(quiz=mine.quiz).first()
        or make_quiz(course, slug="third").items.get()
    )
    client = _as(instructor)
    data = {"score": "1", "reason": "test"}
    url = reverse("instructor:override_score", args=[OFFERING, foreign_attempt.pk])
    assert client.post(url, data).status_code == 404
    url = reverse("instructor:override_score", args=[OFFERING, mine.pk])
    page = client.post(url, {**data, "item": other_item.pk}, follow=True).content.decode()
    assert "unknown question" in page
    assert not ScoreOverride.objects.exists()
    client.post(url, {**data, "item": mine.item_ids[0]})
    assert ScoreOverride.objects.get().score == Decimal("1")  # the course's own question works


def test_an_extension_needs_a_student_and_a_quiz_of_this_course(
    course, instructor, student, other_course
):
    make_quiz(course, slug="mine")
    foreign = make_quiz(other_course, slug="foreign")
    client = _as(instructor)
    colleague = EnrollmentFactory(course=course, role="instructor").user
    outsider = EnrollmentFactory(course=other_course).user
    data = {"quiz": foreign.pk, "extra_minutes": "30", "reason": "x"}
    for user in (colleague, outsider):
        url = reverse("instructor:grant_extension", args=[OFFERING, user.pk])
        assert client.post(url, data).status_code == 404
    url = reverse("instructor:grant_extension", args=[OFFERING, student.pk])
    page = client.post(url, data, follow=True).content.decode()
    assert "The extension was not granted" in page
    assert not Extension.objects.exists()


def test_a_regrade_needs_a_version_of_its_own_template_in_this_course(
    course, instructor, other_course
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor", "kv-cache-fits"])
    first, second = (item.template for item in quiz.items.order_by("position"))
    foreign = make_quiz(other_course, slug="foreign").items.get().template
    client = _as(instructor)
    url = reverse("instructor:regrade", args=[OFFERING])
    for template, version in (
        (first, second.current_version),  # another template's version
        (first, foreign.current_version),  # another course's version
        (foreign, foreign.current_version),  # another course's template
    ):
        client.post(url, {"template": template.pk, "target_version": version.pk})
    assert not RegradeRun.objects.exists()
    publish_version(
        template=foreign,
        text=foreign.current_version.source,
        title=foreign.title,
        origin="studio",
    )
    run = RegradeRun.objects.create(
        offering=foreign.quiz_items.get().quiz.offering,
        template=foreign,
        target_version=foreign.current_version,
        created_by=instructor,
    )
    assert (
        client.get(reverse("instructor:regrade_detail", args=[OFFERING, run.pk])).status_code == 404
    )
    for name in ("regrade_apply", "regrade_progress"):
        assert (
            client.post(reverse(f"instructor:{name}", args=[OFFERING, run.pk])).status_code == 404
        )
    run.refresh_from_db()
    assert run.status == "previewed"


def test_instructor_pages_name_only_this_courses_rows(course, instructor, other_course):
    foreign = make_quiz(other_course, slug="foreign")
    outsider = EnrollmentFactory(course=other_course).user
    client = _as(instructor)
    template = foreign.items.get().template
    assert (
        client.get(reverse("instructor:student_detail", args=[OFFERING, outsider.pk])).status_code
        == 404
    )
    assert (
        client.get(reverse("instructor:item_analysis", args=[OFFERING, template.slug])).status_code
        == 404
    )
    search = client.get(
        reverse("instructor:variant_search", args=[OFFERING]), {"template": template.slug}
    )
    assert template.title not in search.content.decode()


# -- the studio --------------------------------------------------------------------------------


def test_studio_targets_stay_inside_the_course_and_the_quiz(
    course, author, instructor, other_course
):
    quiz = make_quiz(course, slug="mine")
    other_quiz = make_quiz(course, examples=["kv-cache-fits"], slug="other")
    foreign = make_quiz(other_course, examples=["bound-by-what"], slug="foreign")
    foreign_template = foreign.items.get().template
    client = _as(instructor)  # a quiz's items are its offering's instructors'
    # Another quiz's item through this quiz's URL, and another course's quiz.
    item = other_quiz.items.get()
    url = reverse("instructor:quiz_remove_item", args=[OFFERING, quiz.slug, item.pk])
    assert client.post(url).status_code == 404
    assert (
        client.post(
            reverse("instructor:quiz_show_answers", args=[OFFERING, foreign.slug])
        ).status_code
        == 404
    )
    assert (
        client.get(reverse("instructor:quiz_items", args=[OFFERING, foreign.slug])).status_code
        == 404
    )
    # Another course's template, by slug in the form and in the URL.
    add = reverse("instructor:quiz_add_item", args=[OFFERING, quiz.slug])
    client.post(add, {"template": foreign_template.slug, "points": "1"})
    assert QuizItem.objects.filter(quiz=quiz).count() == 1
    client = _as(author)  # the bank is the site's authors'
    for name in ("template_edit", "template_detail", "template_validate", "template_diff"):
        url = reverse(f"studio:{name}", args=[foreign_template.slug])
        assert client.get(url).status_code == 404, name
    edit = reverse("studio:template_edit", args=[foreign_template.slug])
    assert client.post(edit, {"source": "x", "draft_revision": "1"}).status_code == 404
    # A version number that is not this template's: a message, no other text shown.
    diff = reverse("studio:template_diff", args=[quiz.items.get().template.slug])
    response = client.get(diff, {"a": "99", "b": "draft"})
    assert response.status_code == 400
    foreign_template.refresh_from_db()
    assert foreign_template.draft_source != "x"
