"""The gradebook reads its query string through one form: a value it cannot use is named on the
page and left at its default, never a server error, and the CSV export reads the same form."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from quizzes.forms import GradebookForm
from tests.factories import OFFERING, PASSWORD
from tests.quizzes.test_instructor_helpers import make_quiz, make_student, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


def _page(teacher, **query) -> str:
    response = teacher.get(reverse("instructor:gradebook", args=[OFFERING]), query)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ({"sort": "<script>alert(1)</script>"}, "a sort is"),
        ({"page": "-1"}, "pages start at 1"),
        ({"page": "abc"}, "a page is a whole number"),
        ({"show": "everyone-ever"}, "choose one of the listed filters"),
        ({"dir": "sideways"}, "an order is"),
    ],
)
def test_a_value_the_gradebook_cannot_use_is_named_and_left_at_its_default(
    teacher, course, query, said
):
    make_student(course, "ann")
    html = _page(teacher, **query)
    notice = html.split('role="status"')[1].split("</div>")[0]
    assert said in notice and ">ann<" in html
    assert "<script>alert" not in html
    # The toolbar carries the default, not the refused value, into the next search.
    assert 'name="sort" value="name"' in html and 'name="dir" value="asc"' in html


def test_a_page_before_the_first_shows_the_first_not_the_last(teacher, course):
    for i in range(55):
        make_student(course, f"p{i:02d}", last_name=f"L{i:02d}")
    html = _page(teacher, page="-1")
    assert ">p00<" in html and ">p50<" not in html


def test_a_usable_query_string_draws_no_notice_and_unknown_names_are_ignored(teacher, course):
    make_student(course, "ann")
    html = _page(teacher, sort="name", dir="desc", page="1", colour="blue")
    assert 'role="status"' not in html and ">ann<" in html
    assert "colour" not in html


def test_the_table_fragment_carries_the_notice_too(teacher, course):
    response = teacher.get(
        reverse("instructor:gradebook", args=[OFFERING]),
        {"page": "x"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and b"a page is a whole number" in response.content


def test_the_export_reads_the_same_form(teacher, course):
    quiz, items = make_quiz(course, slug="q1")
    for name, score in (("ann", 0.0), ("bob", 1.0)):
        submitted_attempt(quiz, make_student(course, name, last_name=name), {items[0]: score})
    response = teacher.get(
        reverse("instructor:export_gradebook_csv", args=[OFFERING]),
        {"sort": "q1", "dir": "desc", "show": "<b>", "q": "  "},
    )
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row[0] for row in rows[1:]] == ["bob", "ann"]


def test_the_form_turns_a_query_string_into_the_readers_choices():
    form = GradebookForm({"q": "  ada  " + "x" * 200, "sort": "q1", "dir": "desc", "page": "3"})
    choices = form.choices()
    assert choices["search"] == ("ada  " + "x" * 200)[:100]
    assert (choices["sort"], choices["quiz_slug"], choices["descending"]) == ("quiz", "q1", True)
    assert form.values["page"] == 3 and form.ignored == []
    assert form.query() == "q=" + ("ada++" + "x" * 95) + "&sort=q1&dir=desc"
