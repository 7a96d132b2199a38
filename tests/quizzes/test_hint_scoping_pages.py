"""A hint about one part never follows a wrong answer to another part of the same question:
the student's Check earns only the hints of the part that was checked (issue 16, item 4)."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from quizzes.models import Attempt
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db

# The hint of kv-cache-fits is about its first part, the size of the cache.
CACHE_HINT = "KV cache = 2 × layers × KV heads"


def _check(client, attempt, variant, part, answer):
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part])
    data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_a_wrong_total_earns_no_hint_about_the_cache_and_a_wrong_cache_does(
    client, course, student
):
    quiz = make_quiz(course, examples=["kv-cache-fits"])
    client.login(username=student.username, password=PASSWORD)
    client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]))
    attempt = Attempt.objects.get(quiz=quiz)
    variant = attempt.variants.get()

    fragment = _check(client, attempt, variant, "total", "1 B")
    assert fragment.status_code == 200 and "Not quite" in fragment.content.decode()
    assert CACHE_HINT not in fragment.content.decode()
    assert CACHE_HINT not in client.get(attempt.get_absolute_url()).content.decode()

    fragment = _check(client, attempt, variant, "kv", "1 B").content.decode()
    assert CACHE_HINT in fragment
    page = client.get(attempt.get_absolute_url()).content.decode()
    assert page.count(CACHE_HINT) == 1
    # Shown beside the part it is about, under that part's own heading.
    assert "Hint for part 1" in page
