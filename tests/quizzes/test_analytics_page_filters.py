"""The dashboard and item analysis filter by quiz, group and date range like the misconception
map (issue 27, item 7): one form and one scope (`views.instructor.analytics_filter`,
`AnalyticsScope`), each filter counting only its students and attempts, the date range whole
days in the offering's zone, a fixed number of queries whatever the class size, and a value it
cannot use named and left out."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from courseware.models import GroupMembership, StudentGroup
from quizzes.models import Attempt, Response
from tests.factories import OFFERING, PASSWORD, OfferingFactory
from tests.quizzes.test_instructor_helpers import (
    make_class,
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db

SLUG = "decode-step-memory-floor"


@pytest.fixture
def term(course, offering):
    """q1: ada (Lab A) scores 1.0, submitted 14 Jan 23:30 UTC (15 Jan in Tokyo); bob (Lab B)
    scores 0.0, submitted 16 Jan. q2: bob only."""
    offering.time_zone = "Asia/Tokyo"
    offering.save(update_fields=["time_zone"])
    first, (one,) = make_quiz(course, examples=(SLUG,), slug="q1", title="Quiz one")
    second, (two,) = make_quiz(course, examples=("kv-cache-fits",), slug="q2", title="Quiz two")
    ada, bob = make_student(course, "ada"), make_student(course, "bob")
    lab_a = StudentGroup.objects.create(offering=offering, name="Lab A")
    lab_b = StudentGroup.objects.create(offering=offering, name="Lab B")
    GroupMembership.objects.create(group=lab_a, user=ada)
    GroupMembership.objects.create(group=lab_b, user=bob)
    a = submitted_attempt(first, ada, {one: 1.0})
    b = submitted_attempt(first, bob, {one: 0.0})
    submitted_attempt(second, bob, {two: 0.5})
    Attempt.objects.filter(pk=a.pk).update(submitted_at=datetime(2027, 1, 14, 23, 30, tzinfo=UTC))
    Attempt.objects.filter(pk=b.pk).update(submitted_at=datetime(2027, 1, 16, 12, tzinfo=UTC))
    wrong = respond(b.variant_for[one.pk], "t", "1 Gb", "incorrect", diagnosis="bits-for-bytes")
    right = respond(a.variant_for[one.pk], "t", "1 ms", "correct")
    Response.objects.filter(pk=right.pk).update(created_at=datetime(2027, 1, 14, 23, 0, tzinfo=UTC))
    Response.objects.filter(pk=wrong.pk).update(created_at=datetime(2027, 1, 16, 11, tzinfo=UTC))
    return {"lab_a": lab_a, "lab_b": lab_b}


@pytest.fixture
def staff(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


def _dashboard(client, **query):
    response = client.get(reverse("instructor:dashboard", args=[OFFERING]), query)
    assert response.status_code == 200
    return response.context


def _counts(context) -> dict:
    return {row["quiz"].slug: (row["count"], row["mean"]) for row in context["distributions"]}


def test_the_dashboard_filters_by_quiz_group_and_days(staff, term):
    assert _counts(_dashboard(staff)) == {"q1": (2, 0.5), "q2": (1, 0.5)}
    assert _dashboard(staff)["students"] == 2
    by_lab = _dashboard(staff, group=term["lab_a"].pk)
    assert by_lab["students"] == 1 and _counts(by_lab) == {"q1": (1, 1.0), "q2": (0, None)}
    assert [r.username for r in by_lab["at_risk"]] == []  # bob, at risk, is in Lab B
    assert _counts(_dashboard(staff, quiz="q2")) == {"q2": (1, 0.5)}
    # 14 Jan 23:30 UTC is 15 Jan in Tokyo.
    assert _counts(_dashboard(staff, since="2027-01-15", until="2027-01-15"))["q1"] == (1, 1.0)
    assert _counts(_dashboard(staff, until="2027-01-14"))["q1"] == (0, None)
    html = staff.get(reverse("instructor:dashboard", args=[OFFERING]), {"group": term["lab_a"].pk})
    assert "by Lab A" in html.content.decode()


def _item(client, **query):
    url = reverse("instructor:item_analysis", args=[OFFERING, SLUG])
    response = client.get(url, query)
    assert response.status_code == 200
    return response


def test_item_analysis_filters_by_group_and_days(staff, term):
    assert _item(staff).context["stats"].observations == 2
    lab_b = _item(staff, group=term["lab_b"].pk)
    stats = lab_b.context["stats"]
    assert stats.observations == 1 and stats.mean_score == 0.0
    assert [w["diagnosis"] for w in stats.wrong] == ["bits-for-bytes"]
    assert "Computed now for this filter" in lab_b.content.decode()
    lab_a = _item(staff, group=term["lab_a"].pk).context["stats"]
    assert lab_a.observations == 1 and lab_a.mean_score == 1.0 and lab_a.wrong == []
    day = _item(staff, since="2027-01-15", until="2027-01-15").context["stats"]
    assert day.observations == 1 and day.wrong == [] and day.first_try_success == 1.0
    assert _item(staff, quiz="q2").context["stats"].observations == 0


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"since": "2027-13-45"}, "From: Enter a valid date."),
        ({"group": "999999"}, "Group: Select a valid choice."),
        ({"quiz": "no-such-quiz"}, "Quiz: Select a valid choice."),
        ({"since": "2027-01-16", "until": "2027-01-15"}, "The range ends on or after"),
    ],
)
def test_a_filter_value_it_cannot_use_is_named_and_left_out(staff, term, query, message):
    for name in ("instructor:dashboard", "instructor:item_analysis"):
        args = [OFFERING] if name.endswith("dashboard") else [OFFERING, SLUG]
        response = staff.get(reverse(name, args=args), query)
        assert response.status_code == 200
        assert message in response.content.decode()


def test_another_offerings_group_is_not_a_choice(staff, term, course):
    theirs = OfferingFactory(course=course, slug="theirs")
    other = StudentGroup.objects.create(offering=theirs, name="Theirs")
    context = _dashboard(staff, group=other.pk)
    assert context["students"] == 2  # left out: the whole offering
    assert "Group: Select a valid choice." in context["filter_error"]


def test_filtered_pages_cost_the_same_queries_for_3_and_12_students(
    staff, course, offering, django_assert_max_num_queries
):
    quiz, items = make_quiz(course, slug="big")
    lab = StudentGroup.objects.create(offering=offering, name="Lab")
    query = {"group": lab.pk, "since": "2020-01-01", "until": "2099-01-01", "quiz": "big"}
    for size, prefix in ((3, "a"), (12, "b")):
        for student in make_class(course, quiz, items, size, prefix=prefix):
            GroupMembership.objects.get_or_create(group=lab, user=student)
        with django_assert_max_num_queries(17):
            assert _dashboard(staff, **query)["students"] == (3 if size == 3 else 15)
        with django_assert_max_num_queries(15):
            stats = _item(staff, **query).context["stats"]
            assert stats.observations == (3 if size == 3 else 15)
        with django_assert_max_num_queries(14):
            rows = _index(staff, **query).context["templates"]
            assert max(t.observations for t in rows) == (3 if size == 3 else 15)
    assert re.search(r"\d", str(stats.mean_score))


def _index(client, **query):
    response = client.get(reverse("instructor:item_index", args=[OFFERING]), query)
    assert response.status_code == 200
    return response


def _row(response, slug=SLUG):
    return next(t for t in response.context["templates"] if t.slug == slug)


def test_the_item_index_filters_by_quiz_group_and_days_and_keeps_the_filter_in_its_links(
    staff, term
):
    assert _row(_index(staff)).observations == 2
    lab_b = _index(staff, group=term["lab_b"].pk)
    assert (_row(lab_b).observations, _row(lab_b).mean_score) == (1, 0.0)
    assert _row(lab_b, "kv-cache-fits").observations == 1
    lab_a = _index(staff, group=term["lab_a"].pk)
    assert (_row(lab_a).observations, _row(lab_a).mean_score) == (1, 1.0)
    assert _row(lab_a, "kv-cache-fits").observations == 0
    only_q2 = _index(staff, quiz="q2")
    assert (_row(only_q2).observations, _row(only_q2, "kv-cache-fits").observations) == (0, 1)
    # 14 Jan 23:30 UTC is 15 Jan in Tokyo: ada's attempt and her first try, not bob's.
    day = _index(staff, since="2027-01-15", until="2027-01-15")
    assert (_row(day).observations, _row(day).first_try_success) == (1, 1.0)
    html = lab_b.content.decode()
    group = f"group={term['lab_b'].pk}"
    assert f"?{group}&amp;sort=answered" in html
    assert f"/{SLUG}/?{group}" in html and "Attempts and answers" in html
    refused = _index(staff, since="2027-13-45")
    assert "From: Enter a valid date." in refused.content.decode()
    assert _row(refused).observations == 2  # left out: the whole offering
