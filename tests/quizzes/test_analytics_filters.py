"""The misconception map filtered by quiz, group and date range (issue 27, item 7): each filter
counts only its answers; the date range is whole days in the offering's time zone; a filter
value that cannot be used is named and left out, never an error; another offering's quiz or
group is not a choice."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from courseware.models import GroupMembership, StudentGroup
from quizzes.models import Response
from quizzes.services import analytics
from quizzes.services.analytics import AnalyticsScope
from tests.factories import OFFERING, PASSWORD, OfferingFactory
from tests.quizzes.test_instructor_helpers import (
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def answers(course, offering):
    """Quiz 1: ada (Lab A) bits-for-bytes on 14 Jan 23:30 UTC; quiz 2: bob (Lab B)
    macs-for-flops on 16 Jan 12:00 UTC. The offering is in Tokyo (UTC+9): ada's answer was
    given on 15 Jan there."""
    offering.time_zone = "Asia/Tokyo"
    offering.save(update_fields=["time_zone"])
    first, (one,) = make_quiz(course, examples=("decode-step-memory-floor",), slug="q1")
    second, (two,) = make_quiz(course, examples=("kv-cache-fits",), slug="q2")
    ada, bob = make_student(course, "ada"), make_student(course, "bob")
    lab_a = StudentGroup.objects.create(offering=offering, name="Lab A")
    lab_b = StudentGroup.objects.create(offering=offering, name="Lab B")
    GroupMembership.objects.create(group=lab_a, user=ada)
    GroupMembership.objects.create(group=lab_b, user=bob)
    a = submitted_attempt(first, ada, {one: 0})
    b = submitted_attempt(second, bob, {two: 0})
    r1 = respond(a.variant_for[one.pk], "t", "1 Gb", "incorrect", diagnosis="bits-for-bytes")
    r2 = respond(b.variant_for[two.pk], "t", "2", "incorrect", diagnosis="macs-for-flops")
    Response.objects.filter(pk=r1.pk).update(created_at=datetime(2027, 1, 14, 23, 30, tzinfo=UTC))
    Response.objects.filter(pk=r2.pk).update(created_at=datetime(2027, 1, 16, 12, 0, tzinfo=UTC))
    return {"q1": first, "q2": second, "lab_a": lab_a, "lab_b": lab_b}


def _codes(offering, **scope):
    return {row["code"] for row in analytics.misconception_map(offering, AnalyticsScope(**scope))}


def test_each_filter_counts_only_its_answers(answers, offering):
    assert _codes(offering) == {"bits-for-bytes", "macs-for-flops"}
    assert _codes(offering, quiz=answers["q1"]) == {"bits-for-bytes"}
    assert _codes(offering, group=answers["lab_b"]) == {"macs-for-flops"}
    assert _codes(offering, quiz=answers["q1"], group=answers["lab_b"]) == set()


def _page(client, instructor, **query):
    client.login(username=instructor.username, password=PASSWORD)
    response = client.get(reverse("instructor:misconceptions", args=[OFFERING]), query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_filters_by_quiz_group_and_days_in_the_offerings_zone(client, instructor, answers):
    html = _page(client, instructor, quiz="q2")
    assert "macs-for-flops" in html and "bits-for-bytes" not in html
    html = _page(client, instructor, group=answers["lab_a"].pk)
    assert "bits-for-bytes" in html and "macs-for-flops" not in html
    # 14 Jan 23:30 UTC is 15 Jan in Tokyo: on the 15th, not on the 14th.
    html = _page(client, instructor, since="2027-01-15", until="2027-01-15")
    assert "bits-for-bytes" in html and "macs-for-flops" not in html
    html = _page(client, instructor, since="2027-01-14", until="2027-01-14")
    assert "No diagnosed mistakes in these answers" in html
    html = _page(client, instructor, since="2027-01-16")
    assert "macs-for-flops" in html and "bits-for-bytes" not in html


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"quiz": "no-such-quiz"}, "Quiz:"),
        ({"group": "abc"}, "Group:"),
        ({"since": "15/01/2027"}, "From:"),
        ({"since": "2027-01-16", "until": "2027-01-15"}, "To: The range ends on or after"),
    ],
)
def test_a_filter_value_that_cannot_be_used_is_named_and_left_out(
    client, instructor, answers, query, named
):
    html = _page(client, instructor, **query)
    assert "Left out of the filter" in html and named in html


def test_another_offerings_quiz_and_group_are_no_choice(client, instructor, answers, course):
    other = OfferingFactory(course=course, slug="other-term")
    theirs = StudentGroup.objects.create(offering=other, name="Theirs")
    make_quiz(other, examples=("kv-cache-fits",), slug="their-quiz")
    html = _page(client, instructor, group=theirs.pk)
    assert "Left out of the filter" in html and "Theirs" not in html
    html = _page(client, instructor, quiz="their-quiz")
    assert "Left out of the filter" in html
    # Both of this offering's answers still counted.
    assert "bits-for-bytes" in html and "macs-for-flops" in html


def test_the_filter_reads_its_choices_and_the_quiz_counters_in_one_query_each(
    answers, offering, monkeypatch, django_assert_num_queries
):
    """The quiz choices carry the quizzes' statistics counters (the kept pages compare them
    with the counters their figures were computed at), and neither choice list goes through
    `iterator()`: on PostgreSQL that is a server-side cursor, three round trips a list."""
    from django.db.models import QuerySet

    from quizzes.forms.analytics import AnalyticsFilterForm
    from quizzes.services.instructor import offering_statistics

    monkeypatch.setattr(QuerySet, "iterator", lambda *a, **k: pytest.fail("iterator()"))
    with django_assert_num_queries(2):
        form = AnalyticsFilterForm(None, offering=offering)
        counters = form.quiz_counters()
        html = str(form)
    assert "Lab A" in html and "Lab B" in html
    assert all(quiz.title in html for quiz in offering.quizzes.all())
    assert counters == offering_statistics.counters(offering) and counters
