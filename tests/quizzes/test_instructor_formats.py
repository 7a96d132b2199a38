"""Scores and dates read the same on every instructor page: points with trailing zeros trimmed
("11.5/13"), moments as "1 Jan 2030 12:00"."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from quizzes.models import Extension
from quizzes.services import instructor as services
from tests.factories import OFFERING, PASSWORD
from tests.quizzes.test_instructor_helpers import make_quiz, make_student, submitted_attempt

pytestmark = pytest.mark.django_db


def _text(html: bytes) -> str:
    """The page's visible text, one space between words."""
    return " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())


@pytest.fixture
def scored(course, instructor):
    """A student with 11.5 of 13 points (5 + 2.5 + 4) and an item override from 2.5 to 3."""
    points = {"decode-step-memory-floor": 5, "kv-cache-fits": 4, "kernel-time-roofline": 4}
    quiz, items = make_quiz(course, points=points, slug="roofline-quiz", title="Roofline quiz")
    student = make_student(course, "dana", first_name="Dana", last_name="Points")
    attempt = submitted_attempt(quiz, student, {items[0]: 1.0, items[1]: 0.625, items[2]: 1.0})
    return quiz, items, student, attempt


def test_student_history_and_gradebook_show_the_same_trimmed_score(client, instructor, scored):
    _, _, student, _ = scored
    client.login(username=instructor.username, password=PASSWORD)
    history = _text(
        client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk])).content
    )
    book = _text(client.get(reverse("instructor:gradebook", args=[OFFERING])).content)
    assert "11.5/13" in history and "11.500" not in history and "11.5 / 13" not in history
    assert re.search(r"11\.5 ?/13", book) and "11.50" not in book


def test_override_scores_are_trimmed_like_the_attempt_score(client, instructor, scored):
    _, items, student, attempt = scored
    services.override_score(
        attempt=attempt, item=items[1], score="3", reason="Accepted GB for GiB", by=instructor
    )
    client.login(username=instructor.username, password=PASSWORD)
    history = _text(
        client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk])).content
    )
    assert "12/13" in history  # 11.5 - 2.5 + 3
    assert "(was 2.5)" in history and "1.500" not in history and "3.000" not in history


def test_extension_dates_use_the_same_format_as_other_dates(client, instructor, scored):
    quiz, _, student, attempt = scored
    Extension.objects.create(
        quiz=quiz,
        student=student,
        due_at=datetime(2030, 1, 1, 12, 0, tzinfo=UTC),
        closes_at=datetime(2030, 1, 2, 0, 0, tzinfo=UTC),
        granted_by=instructor,
    )
    client.login(username=instructor.username, password=PASSWORD)
    history = _text(
        client.get(reverse("instructor:student_detail", args=[OFFERING, student.pk])).content
    )
    # Every date on the page is drawn by `when`, in the reader's zone, named (here UTC).
    assert "1 Jan 2030, 12:00 UTC" in history and "2 Jan 2030, 00:00 UTC" in history
    assert "noon" not in history and "midnight" not in history and "Jan." not in history
    started = attempt.started_at.astimezone(UTC)
    assert f"started {started:%-d %b %Y, %H:%M} UTC" in history
