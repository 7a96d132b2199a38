"""Issue 26, item 7: the offering in the URL costs no extra query. The student's answer posts
(a homework Check, an exam autosave) and the attempt page (first drawn, then from its memo) run
exactly as many queries as they did with one course (measured on the commit before offerings:
Check 12, autosave 5, attempt page 7 drawn and 5 from its memo, on the same test)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuizMode
from quizzes.services import attempts as service
from tests.factories import PASSWORD, EnrollmentFactory, OfferingFactory, make_quiz

pytestmark = pytest.mark.django_db

# (Check, autosave, attempt page drawn, attempt page from its memo), plus one UPDATE on a Check
# since the ORM raises the attempt's page stamp itself (issue 34 item 3; test_answer_post_cost).
BEFORE_OFFERINGS = (13, 5, 7, 5)


def _open(client, offering, student, mode):
    quiz = make_quiz(offering, examples=["decode-step-memory-floor"], mode=mode)
    client.login(username=student.username, password=PASSWORD)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt, attempt.variants.get()


def _count(client, method, url, data=None) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, data or {}, HTTP_HX_REQUEST="true")
    return len(queries), response.status_code


def _page(client, url) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return len(queries), response.status_code


@pytest.mark.parametrize("offerings", [1, 3], ids=["one offering", "a student of three"])
def test_answer_posts_and_the_attempt_page_cost_what_they_did_before_offerings(
    client, offering, student, offerings
):
    """Being in more offerings (the header's switcher lists them) costs nothing either: the
    role check reads them all in its one query."""
    for n in range(1, offerings):
        other = OfferingFactory(course=offering.course, slug=f"other-{n}", title=f"Other {n}")
        EnrollmentFactory(user=student, offering=other)
    counts = []
    attempt, variant = _open(client, offering, student, QuizMode.HOMEWORK)
    check = reverse("quizzes:submit_part", args=[offering.slug, attempt.pk, variant.pk, "t"])
    data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
    queries, status = _count(client, "post", check, data)
    assert status == 200
    counts.append(queries)

    exam, exam_variant = _open(client, offering, student, QuizMode.EXAM)
    save = reverse("quizzes:autosave", args=[offering.slug, exam.pk, exam_variant.pk, "t"])
    queries, status = _count(client, "post", save, {"answer": "12 GB", "sequence": "1"})
    assert status == 200
    counts.append(queries)

    page = attempt.get_absolute_url()
    for _ in range(2):  # drawn, then served from the memo
        queries, status = _page(client, page)
        assert status == 200
        counts.append(queries)
    # No page costs more than before offerings (PostgreSQL's exam save costs one query fewer).
    assert all(now <= before for now, before in zip(counts, BEFORE_OFFERINGS)), counts
