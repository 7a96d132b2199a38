"""Validation, publishing, retiring and quiz items from the studio."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuestionTemplate, Quiz, QuizItem, TemplateStatus, Variant
from quizzes.services import authoring
from quizzes.services.attempts import start_attempt
from tests.factories import OFFERING, EnrollmentFactory, offering_of
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_client(client, author):
    client.force_login(author)
    return client


@pytest.fixture
def instructor_client(client, instructor):
    client.force_login(instructor)
    return client


def test_validate_stores_the_summary_with_histograms(author_client, course):
    template = make_template(course)
    url = reverse("studio:template_validate", args=[template.slug])
    response = author_client.post(url, {"seeds": "60"})
    assert response.status_code == 200
    template.refresh_from_db()
    summary = template.last_validation
    assert summary["ok"] is True and summary["seeds"] == 60
    assert summary["revision"] == template.draft_revision
    assert template.last_validated_at is not None
    histogram = summary["parts"]["t"]["histogram"]
    assert sum(count for _, _, count in histogram) == summary["variants"]
    body = response.content.decode()
    assert "<svg" in body and "bits-for-bytes" in body


def test_validate_htmx_gets_the_report_fragment(author_client, course):
    template = make_template(course)
    url = reverse("studio:template_validate", args=[template.slug])
    body = author_client.post(url, {"seeds": "20"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="report-region"' in body and "<html" not in body


@pytest.mark.parametrize("seeds", ["5001", "0", "many", "-3"])
def test_validate_refuses_bad_seed_counts(author_client, course, seeds):
    template = make_template(course)
    url = reverse("studio:template_validate", args=[template.slug])
    response = author_client.post(url, {"seeds": seeds})
    assert response.status_code == 400
    template.refresh_from_db()
    assert template.last_validation is None


def test_validation_failures_link_to_their_seed(author_client, course, author):
    template = make_template(course)
    # An implausible range: every variant's answer falls outside it.
    text = template.draft_source.replace("plausible: [1.0e-4, 0.1]", "plausible: [1.0, 2.0]")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    url = reverse("studio:template_validate", args=[template.slug])
    body = author_client.post(url, {"seeds": "10"}).content.decode()
    edit = reverse("studio:template_edit", args=[template.slug])
    assert f"{edit}?seed=0#preview" in body
    assert template.__class__.objects.get(pk=template.pk).last_validation["ok"] is False


def test_validating_a_broken_draft_reports_instead_of_crashing(author_client, course, author):
    template = make_template(course)
    authoring.save_draft(template=template, text="slug: [", revision=1, user=author)
    url = reverse("studio:template_validate", args=[template.slug])
    response = author_client.post(url, {"seeds": "10"})
    assert response.status_code == 200
    assert "parse" in response.content.decode()


def test_publish_creates_the_next_version_and_keeps_students_variants(
    author_client, course, author, student
):
    template = make_template(course)
    url = reverse("studio:template_publish", args=[template.slug])
    author_client.post(url, {"draft_revision": "1", "note": "first"})
    template.refresh_from_db()
    v1 = template.current_version
    assert v1.number == 1 and template.status == TemplateStatus.PUBLISHED
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    QuizItem.objects.create(quiz=quiz, template=template, position=1)
    held = start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()
    assert held.version == v1

    text = template.draft_source.replace("rtol: 0.02", "rtol: 0.03")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    author_client.post(url, {"draft_revision": "2"})
    template.refresh_from_db()
    assert template.current_version.number == 2
    assert template.current_version.source == text
    held.refresh_from_db()
    assert held.version == v1
    other = EnrollmentFactory(course=course, role="student").user
    fresh = start_attempt(quiz=quiz, student=other, now=timezone.now()).variants.get()
    assert fresh.version == template.current_version
    page = author_client.get(reverse("studio:template_detail", args=[template.slug]))
    # Where the version is used: the quiz, named with its offering (authors are site-wide).
    assert f'Quiz <span class="muted small">({quiz.offering.title})</span>' in page.content.decode()


def test_publish_refuses_a_draft_with_errors_or_a_stale_revision(author_client, course, author):
    template = make_template(course)
    authoring.save_draft(template=template, text="slug: floor-time\n", revision=1, user=author)
    url = reverse("studio:template_publish", args=[template.slug])
    author_client.post(url, {"draft_revision": "2"})
    assert template.versions.count() == 0
    author_client.post(url, {"draft_revision": "1"})
    assert template.versions.count() == 0
    template.refresh_from_db()
    assert template.status == TemplateStatus.DRAFT


def test_publish_refuses_a_draft_that_fails_validation(course, author):
    template = make_template(course)
    text = template.draft_source.replace("plausible: [1.0e-4, 0.1]", "plausible: [1.0, 2.0]")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    with pytest.raises(authoring.AuthoringError, match="fails validation"):
        authoring.publish_draft(template=template, revision=2, user=author)
    assert template.versions.count() == 0


def test_publishing_the_same_text_twice_is_refused(course, author):
    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    with pytest.raises(authoring.AuthoringError, match="same as version 1"):
        authoring.publish_draft(template=template, revision=1, user=author)


def test_retire_keeps_versions_items_and_answers(author_client, course, student):
    template = make_template(course, publish=True)
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    item = QuizItem.objects.create(quiz=quiz, template=template, position=1)
    start_attempt(quiz=quiz, student=student, now=timezone.now())
    author_client.post(reverse("studio:template_retire", args=[template.slug]))
    template.refresh_from_db()
    assert template.status == TemplateStatus.RETIRED
    assert template.versions.count() == 1
    assert QuizItem.objects.filter(pk=item.pk).exists()
    assert Variant.objects.filter(item=item).count() == 1
    other = Quiz.objects.create(offering=offering_of(course), slug="q2", title="Other")
    with pytest.raises(authoring.AuthoringError):
        authoring.add_quiz_item(quiz=other, template=template, points=1, position=None)


def test_diff_between_versions_marks_added_and_removed_lines(author_client, course, author):
    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    text = template.draft_source.replace("difficulty: 2", "difficulty: 3")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    authoring.publish_draft(template=template, revision=2, user=author)
    url = reverse("studio:template_diff", args=[template.slug])
    body = author_client.get(url, {"a": "1", "b": "2"}).content.decode()
    assert 'class="del"' in body and 'class="add"' in body
    assert "difficulty: 2" in body and "difficulty: 3" in body


# -- quiz items -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["instructor"])
def test_staff_add_a_template_at_a_position_and_later_items_shift(client, course, role):
    first = make_template(course, "first-q", publish=True)
    second = make_template(course, "second-q", publish=True)
    new = make_template(course, "new-q", publish=True)
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    QuizItem.objects.create(quiz=quiz, template=first, position=1)
    QuizItem.objects.create(quiz=quiz, template=second, position=2)
    client.force_login(EnrollmentFactory(course=course, role=role).user)
    assert client.get(reverse("instructor:quiz_items", args=[OFFERING, "q"])).status_code == 200
    response = client.post(
        reverse("instructor:quiz_add_item", args=[OFFERING, "q"]),
        {"template": "new-q", "points": "2.5", "position": "2"},
    )
    assert response.status_code == 302
    order = list(quiz.items.order_by("position").values_list("template__slug", "position"))
    assert order == [("first-q", 1), ("new-q", 2), ("second-q", 3)]
    assert str(quiz.items.get(template=new).points) == "2.50"


def test_students_cannot_touch_quiz_items(client, course, student):
    make_template(course, publish=True)
    Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    client.force_login(student)
    assert client.get(reverse("instructor:quiz_items", args=[OFFERING, "q"])).status_code == 403
    assert (
        client.post(
            reverse("instructor:quiz_add_item", args=[OFFERING, "q"]), {"template": "floor-time"}
        ).status_code
        == 403
    )
    assert not QuizItem.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"template": "draft-q"}, "not published"),
        ({"template": "nope"}, "Choose a published template"),
        ({"template": "floor-time", "points": "-1"}, "Points must be more than 0"),
        ({"template": "floor-time", "points": "lots"}, "Points must be a number"),
        ({"template": "floor-time", "position": "two"}, "whole number"),
    ],
)
def test_add_item_refuses_bad_input_with_a_message(instructor_client, course, data, message):
    make_template(course, publish=True)
    make_template(course, "draft-q")
    Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    response = instructor_client.post(
        reverse("instructor:quiz_add_item", args=[OFFERING, "q"]), data, follow=True
    )
    assert message in response.content.decode()
    assert not QuizItem.objects.exists()


def test_remove_an_unanswered_item_but_never_an_answered_one(instructor_client, course, student):
    a = make_template(course, "a-q", publish=True)
    b = make_template(course, "b-q", publish=True)
    c = make_template(course, "c-q", publish=True)
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    items = [
        QuizItem.objects.create(quiz=quiz, template=t, position=n)
        for n, t in enumerate([a, b, c], 1)
    ]
    start_attempt(quiz=quiz, student=student, now=timezone.now())
    url = reverse("instructor:quiz_remove_item", args=[OFFERING, "q", items[0].pk])
    response = instructor_client.post(url, follow=True)
    assert "already been given" in response.content.decode()
    assert QuizItem.objects.filter(pk=items[0].pk).exists()

    fresh_quiz = Quiz.objects.create(offering=offering_of(course), slug="q2", title="Quiz 2")
    fresh = [
        QuizItem.objects.create(quiz=fresh_quiz, template=t, position=n)
        for n, t in enumerate([a, b, c], 1)
    ]
    instructor_client.post(
        reverse("instructor:quiz_remove_item", args=[OFFERING, "q2", fresh[1].pk])
    )
    order = list(fresh_quiz.items.order_by("position").values_list("template__slug", "position"))
    assert order == [("a-q", 1), ("c-q", 2)]
    assert QuestionTemplate.objects.filter(slug="b-q").exists()
