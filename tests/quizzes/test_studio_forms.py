"""The studio's edge: a bad seed or bad points get the form's message, the typed text comes
back in its box, and nothing stored changes; the editor parses a draft once per request."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quizzes.models import Quiz, QuizItem
from quizzes.services.bank import reading
from tests.factories import OFFERING, offering_of
from tests.quizzes.test_studio_views import (  # noqa: F401
    author_client,
    instructor_client,
    make_template,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ("1e999", "Points must be more than 0 and at most 1000."),
        ("-1", "Points must be more than 0 and at most 1000."),
        ("0.001", "Points must be more than 0 and at most 1000."),
        ("9" * 5000, "Points must be more than 0 and at most 1000."),
        ("lots", "Points must be a number, e.g. 1 or 2.5."),
        ("NaN", "Points must be a number, e.g. 1 or 2.5."),
    ],
)
def test_bad_points_keep_the_typed_text_beside_the_message(
    instructor_client,  # noqa: F811
    course,
    points,
    message,
):
    make_template(course, publish=True)
    Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    url = reverse("instructor:quiz_add_item", args=[OFFERING, "q"])
    response = instructor_client.post(url, {"template": "floor-time", "points": points})
    page = response.content.decode()
    assert response.status_code == 400
    assert message in page
    assert f'name="points" value="{points[:200]}' in page
    assert not QuizItem.objects.exists()


def test_good_points_are_stored_rounded_to_the_column(instructor_client, course):  # noqa: F811
    make_template(course, publish=True)
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q", title="Quiz")
    url = reverse("instructor:quiz_add_item", args=[OFFERING, "q"])
    assert (
        instructor_client.post(url, {"template": "floor-time", "points": " 2.505 "}).status_code
        == 302
    )
    assert str(quiz.items.get().points) == "2.51"


@pytest.mark.parametrize("seed", ["banana", "-4", "9" * 40])
def test_a_bad_seed_gets_the_message_and_keeps_its_text(author_client, course, seed):  # noqa: F811
    template = make_template(course)
    edit = reverse("studio:template_edit", args=[template.slug])
    page = author_client.get(edit, {"seed": seed}).content.decode()
    assert "A seed is a whole number from 0 to 2,147,483,647; showing seed 0." in page
    assert f'name="seed" value="{seed}"' in page
    preview = reverse("studio:template_preview", args=[template.slug])
    shown = author_client.post(
        preview, {"source": template.draft_source, "seed": seed, "draft_revision": 1}
    )
    assert "showing seed 0" in shown.content.decode()
    assert f'name="seed" value="{seed}"' in shown.content.decode()


def test_a_good_seed_shows_that_variant_without_a_message(author_client, course):  # noqa: F811
    template = make_template(course)
    page = author_client.get(
        reverse("studio:template_edit", args=[template.slug]), {"seed": "42"}
    ).content.decode()
    assert 'name="seed" value="42"' in page and "showing seed 0" not in page


def test_the_editor_parses_the_draft_once_per_request(author_client, course, monkeypatch):  # noqa: F811
    template = make_template(course)
    calls = []
    real = reading.parse_template
    monkeypatch.setattr(
        reading, "parse_template", lambda *a, **kw: calls.append(1) or real(*a, **kw)
    )
    from quizzes import engine

    monkeypatch.setattr(
        engine, "parse_template", lambda *a, **kw: calls.append(2) or real(*a, **kw)
    )
    preview = reverse("studio:template_preview", args=[template.slug])
    response = author_client.post(
        preview, {"source": template.draft_source, "seed": "3", "draft_revision": 1}
    )
    assert response.status_code == 200 and "Student preview" in response.content.decode()
    assert calls == [1]  # it was two: the draft's check, then the preview's own parse
    calls.clear()
    author_client.get(reverse("studio:template_edit", args=[template.slug]))
    assert calls == [1]
