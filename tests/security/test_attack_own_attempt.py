"""Attack review of the attempt pages' one lookup (`quizzes/views/targets.own_attempt` and
`student_part_view`), the enrolments lookup (`courseware/roles.enrollments_of`), both compiled
once per process (`courseware/prepared.PreparedLookup`), and the whole-page memo they feed
(`quizzes/presenters/page_memo`). Review: /work/reviews/attack-own-attempt.md.

Each test is an attack that must fail: a hostile student's ids, terms that change between
requests, remembered terms crossing students, the compiled SQL reused across threads and
connections.
"""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from courseware.roles import _ENROLLMENTS
from quizzes.services import attempts as service
from quizzes.views.targets import _OWN_ATTEMPT, _OWN_VARIANT
from tests.factories import OFFERING, make_quiz

pytestmark = pytest.mark.django_db


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _urls(attempt_id, variant_id, part="t") -> list[tuple[str, str]]:
    """Every student URL that names an attempt (and a variant of it)."""
    part_args = [OFFERING, attempt_id, variant_id, part]
    return [
        ("get", reverse("quizzes:attempt_detail", args=[OFFERING, attempt_id])),
        ("get", reverse("quizzes:attempt_results", args=[OFFERING, attempt_id])),
        ("post", reverse("quizzes:submit_attempt", args=[OFFERING, attempt_id])),
        ("post", reverse("quizzes:submit_part", args=part_args)),
        ("get", reverse("quizzes:preview_part", args=part_args) + "?answer=2"),
        ("post", reverse("quizzes:autosave", args=part_args)),
        ("post", reverse("quizzes:new_variant", args=[OFFERING, attempt_id, variant_id])),
    ]


# -- ids past any stored number --------------------------------------------------------------

# The URLs take any run of digits; an id column holds 64 bits. SQLite's driver refuses to send
# a larger Python int (OverflowError), which the ORM never asks it to (Django answers an
# out-of-range lookup with no rows) but the prepared lookups did: a 500 on SQLite.
HUGE = [2**63, 10**20, 10**40]


@pytest.mark.parametrize("huge", HUGE)
def test_an_id_past_64_bits_is_not_found_on_every_attempt_url(course, student, huge):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _as(student)
    data = {"answer": "2 s", "idempotency_key": uuid.uuid4().hex}
    urls = [
        *_urls(huge, variant.pk),
        *_urls(attempt.pk, huge)[3:],  # the part URLs: the attempt is real, the variant not
        *_urls(huge, huge)[3:],
    ]
    for method, url in urls:
        response = getattr(client, method)(url, data if method == "post" else None)
        assert response.status_code == 404, (url, response.status_code)
    assert client.get(attempt.get_absolute_url()).status_code == 200  # the real one still is


@pytest.mark.parametrize("huge", [*HUGE, -(2**63) - 1])
def test_a_prepared_lookup_finds_no_row_for_a_number_past_64_bits(course, student, huge):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    offering_id = attempt.quiz.offering_id
    assert _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=huge) is None
    assert _OWN_ATTEMPT.first(user_id=huge, offering_id=offering_id, attempt_id=attempt.pk) is None
    found = _OWN_VARIANT.first(
        user_id=student.pk, offering_slug=OFFERING, attempt_id=attempt.pk, variant_id=huge
    )
    assert found is None
    assert _ENROLLMENTS.all(user_id=huge) == []
    # The largest id a column holds is still asked of the database (and is not there).
    largest = 2**63 - 1
    assert (
        _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=largest) is None
    )
    mine = _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=attempt.pk)
    assert mine.pk == attempt.pk
