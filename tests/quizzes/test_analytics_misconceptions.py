"""The misconception map's "Where": chapters with their counts, the few templates with most
students, and the rest folded behind "and N more"."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quizzes.services import analytics
from tests.factories import OFFERING, PASSWORD, ChapterFactory, PartFactory, offering_of
from tests.quizzes.test_instructor_helpers import (
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db

FIVE = (
    "decode-step-memory-floor",
    "kv-cache-fits",
    "kv-cache-bytes-formula",
    "kernel-time-roofline",
    "bound-by-what",
)


@pytest.fixture
def widespread(course):
    """bits-for-bytes in five templates: three in "inference", two in "roofline". Student i
    makes it in the first 5 - i templates, so template k was hit by 5 - k students."""
    part = PartFactory(course=course)
    ChapterFactory(part=part, slug="inference", title="Why inference is memory-bound")
    ChapterFactory(part=part, slug="roofline", title="The roofline model")
    quiz, items = make_quiz(course, examples=FIVE)
    for item in items[3:]:
        item.template.chapter_slug = "roofline"
        item.template.save(update_fields=["chapter_slug"])
    for i in range(5):
        attempt = submitted_attempt(quiz, make_student(course, f"m{i}"), dict.fromkeys(items, 0))
        for item in items[: 5 - i]:
            respond(
                attempt.variant_for[item.pk], "t", "1 Gb", "incorrect", diagnosis="bits-for-bytes"
            )
    return items


def test_map_counts_students_and_responses_per_chapter(widespread, course):
    (row,) = analytics.misconception_map(offering_of(course))
    chapters = {c["slug"]: (c["title"], c["students"], c["count"]) for c in row["chapters"]}
    # inference: templates 0-2 hit by 5, 4 and 3 students (12 responses, all five students);
    # roofline: templates 3-4 hit by 2 and 1 (3 responses, students m0 and m1).
    assert chapters == {
        "inference": ("Why inference is memory-bound", 5, 12),
        "roofline": ("The roofline model", 2, 3),
    }
    assert [c["slug"] for c in row["chapters"]] == ["inference", "roofline"]


def test_map_keeps_the_top_templates_and_folds_the_rest(widespread, course):
    (row,) = analytics.misconception_map(offering_of(course))
    slugs = [item.template.slug for item in widespread]
    assert [t["slug"] for t in row["top_templates"]] == slugs[: analytics.TOP_PLACES]
    assert [t["slug"] for t in row["more_templates"]] == slugs[analytics.TOP_PLACES :]


def test_misconception_page_shows_chapters_and_folds_templates(client, instructor, widespread):
    client.login(username=instructor.username, password=PASSWORD)
    html = client.get(reverse("instructor:misconceptions", args=[OFFERING])).content.decode()
    chapter = re.search(r"Why inference is memory-bound</span> <span[^>]*>([^<]*)<", html)
    assert chapter and chapter.group(1) == "5 students" and 'title="12 responses"' in html
    folded = re.search(r"<details class=\"more\">(.*?)</details>", html, re.S)
    assert folded and "and 2 more" in folded.group(1)
    hidden = {item.template.slug for item in widespread[analytics.TOP_PLACES :]}
    assert hidden == set(re.findall(r"items/([\w-]+)/#wrong", folded.group(1)))


@pytest.fixture
def precision(course):
    """The chapter bits-for-bytes links to (/chapters/precision/#bits-and-bytes)."""
    return ChapterFactory(
        part=PartFactory(course=course),
        slug="precision",
        title="Numeric precision",
        source="# Precision\n\n## Bits and bytes\n\nEight bits.",
        content_hash="first",
    )


def _map(client):
    return client.get(reverse("instructor:misconceptions", args=[OFFERING])).content.decode()


def test_a_second_view_reads_no_chapter_source_and_draws_no_row_again(
    client, instructor, widespread, precision, monkeypatch, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.login(username=instructor.username, password=PASSWORD)
    assert "Numeric precision: Bits and bytes" in _map(client)
    drawn = []
    real = analytics.misconception_rows
    monkeypatch.setattr(analytics, "misconception_rows", lambda *a: drawn.append(a) or real(*a))
    with CaptureQueriesContext(connection) as queries, django_assert_max_num_queries(8):
        html = _map(client)
    assert "Numeric precision: Bits and bytes" in html and "and 2 more" in html
    assert drawn == []
    chapter_reads = [q["sql"] for q in queries.captured_queries if "courseware_chapter" in q["sql"]]
    assert chapter_reads and not any('"source"' in sql for sql in chapter_reads), chapter_reads


def test_an_edited_chapter_and_new_figures_show_on_the_next_view(
    client, instructor, widespread, precision, course
):
    from quizzes.services.instructor import offering_statistics

    client.login(username=instructor.username, password=PASSWORD)
    assert "Numeric precision: Bits and bytes" in _map(client)
    precision.source = "# Precision\n\n## Bits, bytes and words {#bits-and-bytes}\n\nEight."
    precision.content_hash = "second"
    precision.save()
    assert "Numeric precision: Bits, bytes and words" in _map(client)
    # New kept figures (a refresh after more grades) are new rows.
    student = make_student(course, "late")
    quiz = widespread[0].quiz
    attempt = submitted_attempt(quiz, student, dict.fromkeys(widespread, 0))
    respond(
        attempt.variant_for[widespread[0].pk], "t", "1 Gb", "incorrect", diagnosis="bits-for-bytes"
    )
    offering_statistics.refresh(offering_of(course), offering_statistics.Kind.MISCONCEPTIONS)
    html = _map(client)
    assert re.search(r'diagnosis=bits-for-bytes"[^>]*>6<', html), "six students now"
