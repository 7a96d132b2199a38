"""The course total is one rule for the offering (issue 27, item 1; the walkthrough's H1): the
same student's total reads the same on page 1 and page 6, filtered, searched and in the CSV;
the total column sorts (with aria-sort); the rule is stated on the page; each row links to the
student's extension and override forms, and the override form sits by the attempt's score."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from courseware.models import Enrollment, GroupMembership, Role, StudentGroup
from quizzes.models import Quiz
from quizzes.services.instructor import totals
from tests.factories import OFFERING, PASSWORD, OfferingFactory, default_offering
from tests.quizzes.test_instructor_helpers import make_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

CLASS_SIZE = 260  # six pages of 50


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


@pytest.fixture
def big_class(course):
    """260 students (one query each way), Zoe Zulu last by name; three quizzes:

    - `due`: published, its due date passed, submitted by no one: it counts (5 points);
    - `done`: published, no dates, submitted by Zoe (2 of 3) and one other: it counts;
    - `draft`: unpublished, submitted by a student whose row is on page 1 when sorted by name
      descending but not on page 6 sorted ascending: it never counts.
    """
    offering = default_offering(course)
    users = get_user_model().objects.bulk_create(
        [
            get_user_model()(
                username=f"s{i:03d}", first_name="Stu", last_name=f"N{i:03d}", password="!"
            )
            for i in range(CLASS_SIZE - 1)
        ]
        + [get_user_model()(username="zoe", first_name="Zoe", last_name="Zulu", password="!")]
    )
    Enrollment.objects.bulk_create(
        [Enrollment(user=u, offering=offering, role=Role.STUDENT) for u in users]
    )
    zoe = users[-1]
    due, due_items = make_quiz(
        course,
        examples=("decode-step-memory-floor",),
        points={"decode-step-memory-floor": 5},
        slug="due",
        title="Due quiz",
        due_at=timezone.now() - timedelta(days=1),
    )
    done, done_items = make_quiz(
        course, examples=("kv-cache-fits",), points={"kv-cache-fits": 3}, slug="done"
    )
    draft, draft_items = make_quiz(
        course, examples=("kernel-time-roofline",), slug="draft", is_published=False
    )
    submitted_attempt(done, zoe, {done_items[0]: 2 / 3})
    submitted_attempt(done, users[0], {done_items[0]: 1.0})
    submitted_attempt(draft, users[230], {draft_items[0]: 1.0})
    return {"zoe": zoe, "users": users, "quizzes": (due, done, draft)}


def _zoe_total(html: str) -> str:
    row = html[html.index(">Zoe Zulu</a>") :].split("</tr>")[0]
    total = re.search(r'<td class="num total">(.*?)</td>', row, re.S).group(1)
    return re.sub(r"<[^>]+>|\s+", "", total)


def _gradebook(client, **params) -> str:
    response = client.get(reverse("instructor:gradebook", args=[OFFERING]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_a_students_total_is_the_same_on_every_page_filter_search_and_in_the_csv(
    teacher, big_class
):
    last_page = _gradebook(teacher, page=6)
    assert "page 6 of 6" in last_page
    first_page = _gradebook(teacher, dir="desc")
    assert "page 1 of 6" in first_page
    searched = _gradebook(teacher, q="Zulu")
    filtered = _gradebook(teacher, show="missing", dir="desc")
    # 2 of Zoe's points, out of the due quiz (5) and the submitted one (3); the draft never.
    expected = "2/825%"
    assert _zoe_total(last_page) == expected
    assert _zoe_total(first_page) == expected
    assert _zoe_total(searched) == expected
    assert _zoe_total(filtered) == expected
    export = teacher.get(reverse("instructor:export_gradebook_csv", args=[OFFERING]))
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    zoe = next(r for r in rows if r["username"] == "zoe")
    assert (zoe["course total"], zoe["course total out of"], zoe["course total %"]) == (
        "2",
        "8",
        "25.0",
    )
    assert len(rows) == CLASS_SIZE


def test_the_rule_of_the_total_is_stated_on_the_page(teacher, big_class):
    html = _gradebook(teacher)
    assert "published quizzes whose due date has passed, or that someone in this offering" in html
    assert "Now 2 quizzes, 8 points." in html


def test_the_total_column_sorts_both_ways_and_says_so_with_aria_sort(teacher, big_class):
    best_first = _gradebook(teacher, sort="total", dir="desc")
    names = re.findall(r'<th scope="row"><a href="[^"]+">([^<]+)</a>', best_first)
    assert names[:2] == ["Stu N000", "Zoe Zulu"]  # 3 points, then 2, then everyone at 0
    header = re.search(r'<th scope="col" class="num total"([^>]*)>', best_first).group(1)
    assert 'aria-sort="descending"' in header
    assert best_first.count("aria-sort=") == 1
    worst_last = _gradebook(teacher, sort="total", dir="asc", page=6)
    assert re.findall(r'<th scope="row"><a href="[^"]+">([^<]+)</a>', worst_last)[-2:] == [
        "Zoe Zulu",
        "Stu N000",
    ]
    by_name = _gradebook(teacher)
    assert 'aria-sort="ascending"' in by_name.split("</th>")[0]
    # The header's link turns the order round, keeping the page's other choices.
    link = re.search(r'class="num total" aria-sort="descending"><a href="([^"]+)"', best_first)
    assert "sort=total" in link.group(1) and "dir=asc" in link.group(1)


def test_only_published_quizzes_that_are_due_or_submitted_count(course):
    offering = default_offering(course)
    now = timezone.now()
    quizzes = {
        slug: make_quiz(course, examples=("kv-cache-fits",), slug=slug, **fields)[0]
        for slug, fields in {
            "due": {"due_at": now - timedelta(hours=1)},
            "closed": {"closes_at": now - timedelta(hours=1)},
            "later": {"due_at": now + timedelta(days=3)},
            "hidden": {"due_at": now - timedelta(hours=1), "is_published": False},
        }.items()
    }
    scheme = totals.scheme(offering, list(Quiz.objects.for_offering(offering)), now=now)
    assert set(scheme.possible) == {quizzes["due"].pk, quizzes["closed"].pk}
    assert scheme.total_max == Decimal(2)


def test_a_pool_is_worth_its_draw_of_its_best_paid_items():
    quiz = Quiz(pools={"a": 2, "retired": 0})
    items = [
        (Decimal(1), ""),
        (Decimal(2), "a"),
        (Decimal(3), "a"),
        (Decimal(3), "a"),
        (Decimal(4), "retired"),
        (Decimal(5), "unnamed"),
        (Decimal(5), "unnamed"),
    ]
    # 1 + the best two of pool a (3 + 3) + nothing of the retired pool + all of an unnamed one.
    assert totals.possible_points(quiz, items) == Decimal(17)


def test_deactivated_students_are_marked_and_hidden_on_request(teacher, big_class):
    Enrollment.objects.filter(user=big_class["zoe"]).update(is_active=False)
    shown = _gradebook(teacher, q="Zulu")
    assert "deactivated" in shown.split(">Zoe Zulu</a>")[1].split("</tr>")[0]
    hidden = _gradebook(teacher, q="Zulu", inactive="hide")
    assert ">Zoe Zulu</a>" not in hidden and "No students match." in hidden
    export = teacher.get(
        reverse("instructor:export_gradebook_csv", args=[OFFERING]), {"inactive": "hide"}
    )
    body = b"".join(export.streaming_content).decode()
    assert "zoe," not in body and len(body.strip().splitlines()) == CLASS_SIZE


def test_a_group_filters_the_gradebook_and_an_unknown_group_is_named(teacher, big_class, course):
    group = StudentGroup.objects.create(offering=default_offering(course), name="Lab 2")
    GroupMembership.objects.create(group=group, user=big_class["zoe"])
    html = _gradebook(teacher, group=group.pk)
    assert "1 student." in html and ">Zoe Zulu</a>" in html and _zoe_total(html) == "2/825%"
    other = StudentGroup.objects.create(
        offering=OfferingFactory(slug="other", course=course), name="Elsewhere"
    )
    refused = _gradebook(teacher, group=other.pk)
    assert f"Group “{other.pk}” was ignored: choose one of this offering&#x27;s groups" in refused
    assert "260 students" in refused


def test_each_row_links_to_the_students_extension_and_override_forms(teacher, big_class):
    html = _gradebook(teacher, q="Zulu")
    zoe = big_class["zoe"]
    base = reverse("instructor:student_detail", args=[OFFERING, zoe.pk])
    assert f'href="{base}#extensions"' in html and f'href="{base}#attempts"' in html
    page = teacher.get(base).content.decode()
    assert 'id="extensions"' in page and 'id="attempts"' in page
    # The override form comes right after the attempt's score line, before its history.
    attempt = page[page.index('class="panel attempt"') :]
    assert attempt.index("Override the score") < attempt.index('<article class="variant')
