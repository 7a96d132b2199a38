"""Taking a homework quiz through the pages: start, answer, feedback, tries, solution, submit."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from quizzes.models import Attempt, Response, Variant
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiz(course):
    return make_quiz(course, examples=["decode-step-memory-floor", "bound-by-what"])


@pytest.fixture
def client_for(client):
    def log_in(user):
        client.login(username=user.username, password=PASSWORD)
        return client

    return log_in


def _start(client, quiz) -> Attempt:
    response = client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]))
    assert response.status_code == 302
    return Attempt.objects.get(quiz=quiz)


def _variant(attempt, slug) -> Variant:
    return attempt.variants.get(item__template__slug=slug)


def _post(client, attempt, variant, part, answer, **extra):
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part])
    data = {"answer": answer, "idempotency_key": extra.pop("key", uuid.uuid4().hex)}
    return client.post(url, data, **extra)


def test_student_starts_an_attempt_and_sees_their_numbers(client_for, student, quiz):
    client = client_for(student)
    attempt = _start(client, quiz)
    page = client.get(attempt.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert "Question 1" in html and "Question 2" in html
    assert "Answer in a unit of" in html  # the unit hint of the numeric part
    assert 'type="radio"' in html  # the choice part
    # Reloading shows the same numbers.
    assert client.get(attempt.get_absolute_url()).content.decode().count("<math") == html.count(
        "<math"
    )


def test_correct_answer_is_graded_correct_and_shows_the_solution(client_for, student, quiz):
    client = client_for(student)
    attempt = _start(client, quiz)
    variant = _variant(attempt, "decode-step-memory-floor")
    seconds = correct_answers(variant)["t"]
    response = _post(
        client, attempt, variant, "t", f"{seconds * 1000:.6g} ms", HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Correct" in html
    assert "Worked solution" in html
    assert "<html" not in html  # a fragment, not the page
    stored = Response.objects.get(variant=variant)
    assert stored.status == "correct" and stored.try_number == 1


def test_hints_follow_wrong_tries_and_the_solution_waits_for_the_final_answer(
    client_for, student, quiz
):
    client = client_for(student)
    attempt = _start(client, quiz)
    variant = _variant(attempt, "decode-step-memory-floor")
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert "Hint" not in page and "Worked solution" not in page
    _post(client, attempt, variant, "t", "1 s")
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert "bytes per second the memory delivers" in page  # the hint after one try
    assert "Worked solution" not in page
    _post(client, attempt, variant, "t", "2 s")
    _post(client, attempt, variant, "t", "3 s")  # the third and last try
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert "Worked solution" in page
    assert "Try again with new numbers" in page
