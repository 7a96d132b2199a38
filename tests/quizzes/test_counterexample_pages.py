"""The counterexample of a wrong formula on the student's page only once the part is final,
and always in the studio's try box."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services import authoring
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db
MARK = "Where it differs"


@pytest.fixture(autouse=True)
def inline(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    cache.clear()


def _answer(variant, raw, student):
    return service.submit_response(
        variant=variant,
        part_id="kv",
        raw=raw,
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )


def test_the_counterexample_appears_once_the_part_is_final(client, course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], tries_per_variant=2)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client.force_login(student)

    first = _answer(variant, "2 n b", student)
    assert first.status == "incorrect" and "your formula gives" in first.counterexample
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert "Not quite" in page and MARK not in page
    assert first.counterexample not in page

    second = _answer(variant, "3 n b", student)  # the last try: the part is now final
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert MARK in page
    assert "your formula gives" in page
    assert second.counterexample.split(" your formula")[0] in page


def test_a_correct_answer_shows_no_counterexample(client, course, student):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], tries_per_variant=2)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    expected = variant.answers["answers"]["kv"]
    assert _answer(variant, expected, student).counterexample == ""
    client.force_login(student)
    assert MARK not in client.get(attempt.get_absolute_url()).content.decode()


def test_the_studio_try_box_always_shows_the_counterexample(client, course, author):
    template = authoring.create_template(course=course, user=author, kind="formula", slug="ff")
    client.force_login(author)
    url = reverse("studio:template_preview", args=[template.slug])
    data = {"source": template.draft_source, "seed": "5", "draft_revision": 1}
    body = client.post(
        url, {**data, "response_flops": "4 m n", "try": "flops"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "feedback incorrect" in body
    assert "Where it differs" in body and "your formula gives" in body


def test_the_studio_preview_result_carries_it():
    source = authoring.starter_source("formula")
    preview = authoring.build_preview(source, 3, {"flops": "m n"})
    assert "your formula gives" in preview.parts[0].tried.counterexample
