"""Form data with a NUL character is refused with a message before any view stores it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import OFFERING

pytestmark = pytest.mark.django_db


def test_a_post_with_a_nul_character_gets_a_clear_400(client, student):
    client.force_login(student)
    response = client.post(reverse("courseware:home"), {"answer": "3.35\x00 TB/s"})
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()


def test_a_query_string_with_an_encoded_nul_gets_a_clear_400(client, course):
    response = client.get(reverse("courseware:calculator") + "?batch=1%00")
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()


def test_an_htmx_request_with_a_nul_character_is_swapped_in(client, course):
    response = client.get(reverse("courseware:calculator") + "?model=%00", HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert response["HX-Reswap"] == "innerHTML"


def test_ordinary_input_passes_through(client, course):
    response = client.get(reverse("courseware:calculator") + "?batch=4")
    assert response.status_code == 200


def test_an_answer_with_a_nul_character_is_refused_and_nothing_is_stored(client, course, student):
    import uuid

    from django.utils import timezone

    from quizzes.models import Response
    from quizzes.services import attempts
    from tests.factories import make_quiz

    quiz = make_quiz(course)
    attempt = attempts.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client.force_login(student)
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    response = client.post(url, {"answer": "4\x00 ms", "idempotency_key": uuid.uuid4().hex})
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()
    assert not Response.objects.exists()
