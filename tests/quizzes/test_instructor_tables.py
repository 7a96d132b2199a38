"""Instructor tables read for people: the gradebook's course total and rounded scores, a clear
"missing work" message, item analysis in the book's order and sortable, variant search for
values with spaces, and a CSV of exact points without float noise."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Variant
from quizzes.services.instructor import parse_parameter_filters
from tests.factories import OFFERING, PASSWORD, ChapterFactory
from tests.quizzes.test_instructor_helpers import make_quiz, make_student, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def teacher(client, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    return client


def test_gradebook_rounds_scores_and_totals_the_course(teacher, course):
    quiz, items = make_quiz(course, points={"decode-step-memory-floor": 3})
    other, other_items = make_quiz(course, examples=("kv-cache-fits",), slug="second")
    ada = make_student(course, "ada", first_name="Ada", last_name="L")
    submitted_attempt(quiz, ada, {items[0]: 1 / 3, items[1]: 1.0, items[2]: 0.0})
    submitted_attempt(other, make_student(course, "bob"), {other_items[0]: 1.0})
    html = teacher.get(reverse("instructor:gradebook", args=[OFFERING])).content.decode()
    row = html[html.index(">Ada L</a>") :].split("</tr>")[0]
    assert "2<span" in row and "/5</span>" in row  # 1 + 1 + 0 of 3 + 1 + 1
    assert "2.000" not in row and "1.000" not in row
    # The course total counts the second quiz (someone has submitted it) as 0 for Ada.
    assert '<strong>2</strong><span class="muted">/6</span>' in row and "33%" in row
    assert "Course total" in html and 'class="num total"' in html


def test_missing_work_says_why_it_is_empty(teacher, course):
    make_quiz(course)
    html = teacher.get(
        reverse("instructor:gradebook", args=[OFFERING]), {"show": "missing"}
    ).content.decode()
    assert "No quiz has a due date that has passed" in html
    quiz, _ = make_quiz(course, slug="due", due_at=timezone.now() - timedelta(days=1))
    make_student(course, "idle")
    html = teacher.get(
        reverse("instructor:gradebook", args=[OFFERING]), {"show": "missing"}
    ).content.decode()
    assert "No quiz has a due date that has passed" not in html and ">idle</span>" in html


def test_item_analysis_lists_templates_in_chapter_order_and_sorts(teacher, course):
    ChapterFactory(part__course=course, slug="roofline", order=2, title="The roofline")
    ChapterFactory(part__course=course, slug="gpus", order=1, title="GPUs")
    quiz, items = make_quiz(course)
    for item, chapter in zip(items, ("roofline", "gpus", "")):
        item.template.chapter_slug = chapter
        item.template.save(update_fields=["chapter_slug"])
    slugs = [item.template.slug for item in items]
    html = teacher.get(reverse("instructor:item_index", args=[OFFERING])).content.decode()
    order = sorted(slugs, key=html.index)
    assert order == [slugs[1], slugs[0], slugs[2]]  # GPUs, then the roofline, then no chapter
    assert "<td>GPUs</td>" in html and 'aria-sort="ascending"' in html
    html = teacher.get(
        reverse("instructor:item_index", args=[OFFERING]),
        {"sort": "chapter", "dir": "desc"},
    )
    assert sorted(slugs, key=html.content.decode().index)[0] == slugs[2]
    assert (
        teacher.get(reverse("instructor:item_index", args=[OFFERING]), {"sort": "r"}).status_code
        == 200
    )
    assert (
        teacher.get(reverse("instructor:item_index", args=[OFFERING]), {"sort": "nope"}).status_code
        == 200
    )


def test_variant_search_reads_values_with_spaces_as_the_site_shows_them(teacher, course):
    assert parse_parameter_filters("acc=RTX 4090 dt=int8") == [("acc", "RTX 4090"), ("dt", "int8")]
    assert parse_parameter_filters('acc="A100 40GB"') == [("acc", "A100 40GB")]
    quiz, items = make_quiz(course)
    attempt = submitted_attempt(quiz, make_student(course, "ada"), {items[0]: 1.0})
    Variant.objects.filter(attempt=attempt).update(
        parameters={"acc": {"catalog": "accelerator", "key": "RTX 4090"}, "dt": "int8"}
    )
    response = teacher.get(
        reverse("instructor:variant_search", args=[OFFERING]),
        {"params": "acc=RTX 4090 dt=int8"},
    )
    html = response.content.decode()
    assert "Could not read" not in html and ">ada<" in html.replace("</a>", "<")


def test_gradebook_csv_has_exact_points_without_float_noise(teacher, course):
    quiz, items = make_quiz(course)
    submitted_attempt(quiz, make_student(course, "ada"), {items[0]: 1 / 3, items[1]: 1.0})
    body = b"".join(
        teacher.get(reverse("instructor:export_gradebook_csv", args=[OFFERING])).streaming_content
    )
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    ada = next(row for row in rows if row["username"] == "ada")
    assert [ada[f"{quiz.slug} best"], ada[f"{quiz.slug} out of"]] == ["1.333", "2"]
