"""The numeric-interval kind on the student's page and in the studio's preview."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuestionTemplate, Response
from quizzes.services import attempts as service
from quizzes.services import authoring
from quizzes.services.questions import correct_answers
from tests.factories import (
    OFFERING,
    PASSWORD,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = pytest.mark.django_db

STARTER = Path(__file__).resolve().parents[2] / "quizzes" / "starters" / "interval.yaml"


@pytest.fixture
def started(client, course, student):
    source = STARTER.read_text(encoding="utf-8")
    template = QuestionTemplateFactory(
        course=course, slug="decode-floor-range", title="Range", draft_source=source
    )
    quiz = QuizFactory(course=course)
    QuizItemFactory(quiz=quiz, template=template, position=1)
    client.login(username=student.username, password=PASSWORD)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return client, attempt, attempt.variants.get()


def test_the_page_shows_one_labelled_range_input_with_the_unit_hint(started):
    client, attempt, _ = started
    html = client.get(attempt.get_absolute_url()).content.decode()
    assert "Your range (low end to high end)" in html
    assert 'placeholder="2 TB/s to 5 TB/s"' in html
    assert "Answer in a unit of time" in html


def test_checking_a_range_records_its_grade_and_shows_the_feedback(started):
    client, attempt, variant = started
    true = correct_answers(variant)["t"]
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])

    def check(answer):
        data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
        return client.post(url, data, HTTP_HX_REQUEST="true").content.decode()

    wide = check(f"{true / 20:.4g} s to {true * 20:.4g} s")
    assert "the widest accepted here is a factor of 10" in wide
    assert "could not be read" not in wide
    unreadable = check("about a millisecond")
    assert "no try used" in unreadable
    check(f"{true / 2:.4g} s to {true * 2:.4g} s")
    statuses = list(Response.objects.order_by("pk").values_list("status", "diagnosis"))
    assert statuses == [
        ("incorrect", "interval-too-wide"),
        ("invalid", ""),
        ("correct", ""),
    ]


def test_the_studio_previews_the_starter_and_grades_a_tried_range(client, course, author):
    client.login(username=author.username, password=PASSWORD)
    created = client.post(
        reverse("studio:template_create"), {"kind": "interval", "slug": "my-estimate"}
    )
    assert created.status_code == 302
    template = QuestionTemplate.objects.get(slug="my-estimate")
    assert template.kind == "interval"
    preview = authoring.build_preview(template.draft_source, 3)
    [part] = preview.parts
    true = float(part.answer.split(" (")[1].split()[0])
    url = reverse("studio:template_preview", args=[template.slug])
    data = {"source": template.draft_source, "seed": "3", "draft_revision": 1, "try": "t"}
    body = client.post(url, {**data, "response_t": f"{true / 3:.4g} to {true * 3:.4g} s"})
    assert "feedback correct" in body.content.decode()
    missed = client.post(url, {**data, "response_t": f"{true * 3:.4g} to {true * 9:.4g} s"})
    assert "feedback incorrect" in missed.content.decode()
