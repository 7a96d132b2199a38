"""The gradebook CSV is what the instructor sees: the same search, filter and sort, every page,
with each override's value and reason beside the score."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse

from quizzes.services.instructor import override_score
from tests.factories import OFFERING, PASSWORD
from tests.quizzes.test_instructor_helpers import make_quiz, make_student, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


@pytest.fixture
def graded(course):
    quiz, items = make_quiz(course, slug="q1")
    attempts = {}
    for name, last, score in (("ada", "Lovelace", 1.0), ("alan", "Turing", 0.5), ("bob", "B", 0)):
        student = make_student(course, name, last_name=last)
        attempts[name] = submitted_attempt(quiz, student, {items[0]: score, items[1]: score})
    return quiz, items, attempts


def _csv(teacher, **query):
    response = teacher.get(reverse("instructor:export_gradebook_csv", args=[OFFERING]), query)
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    return rows[0], rows[1:]


def test_the_export_keeps_the_gradebooks_search_and_sort(teacher, graded):
    _, everyone = _csv(teacher)
    assert sorted(row[0] for row in everyone) == ["ada", "alan", "bob"]
    _, found = _csv(teacher, q="a", sort="q1", dir="desc")
    assert [row[0] for row in found] == ["ada", "alan"]  # "bob" has no "a"; best score first
    _, found = _csv(teacher, q="turing")
    assert [row[0] for row in found] == ["alan"]


def test_the_gradebook_link_downloads_what_it_shows(teacher, graded):
    html = teacher.get(
        reverse("instructor:gradebook", args=[OFFERING]), {"q": "turing"}
    ).content.decode()
    assert reverse("instructor:export_gradebook_csv", args=[OFFERING]) + "?q=turing" in html
    assert "Download these 1 student, every page (CSV)" in html
    fragment = teacher.get(
        reverse("instructor:gradebook", args=[OFFERING]),
        {"q": "ada"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "?q=ada" in fragment  # the swapped table brings its own link


def test_the_export_carries_each_override_beside_the_score(teacher, graded, instructor):
    quiz, items, attempts = graded
    override_score(
        attempt=attempts["alan"], score=Decimal("2"), reason="Marked by hand", by=instructor
    )
    override_score(
        attempt=attempts["bob"],
        item=items[1],
        score=Decimal("0.5"),
        reason="Units slip forgiven",
        by=instructor,
    )
    header, rows = _csv(teacher)
    at = header.index("q1 override")
    assert header[at - 4 : at + 2] == [
        "q1 best",
        "q1 out of",
        "q1 attempts",
        "q1 late",
        "q1 override",
        "q1 override reason",
    ]
    by_name = {row[0]: row for row in rows}
    assert by_name["alan"][at - 4] == "2" and by_name["alan"][at : at + 2] == [
        "2",
        "Marked by hand",
    ]
    assert by_name["bob"][at - 4] == "0.5"
    assert by_name["bob"][at : at + 2] == ["Q2: 0.5", "Q2: Units slip forgiven"]
    assert by_name["ada"][at : at + 2] == ["", ""]
