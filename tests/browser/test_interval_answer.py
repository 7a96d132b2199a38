"""A student answers a numeric-interval part in Chromium: a range too wide, then a right one."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.models import Variant
from quizzes.services.questions import correct_answers
from tests.browser.conftest import log_in
from tests.factories import (
    OFFERING,
    PASSWORD,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STARTER = (
    Path(__file__).resolve().parents[2]
    / "quizzes"
    / "engine"
    / "kinds"
    / "interval"
    / "starter.yaml"
)


def test_student_narrows_a_range_until_it_is_graded_correct(page, course):
    source = STARTER.read_text(encoding="utf-8")
    template = QuestionTemplateFactory(
        course=course, slug="decode-floor-range", title="Range", draft_source=source
    )
    quiz = QuizFactory(course=course, slug="estimates", title="Estimates")
    QuizItemFactory(quiz=quiz, template=template, position=1)
    ada = EnrollmentFactory(course=course, user__username="ada").user
    log_in(page, ada.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")

    variant = Variant.objects.get(attempt__student=ada)
    true = correct_answers(variant)["t"]
    part = page.locator(f"#part-{variant.pk}-t")
    box = part.get_by_label("Your range (low end to high end)")
    box.fill(f"{true * 1000 / 30:.3g} ms to {true * 1000 * 30:.3g} ms")
    part.get_by_role("button", name="Check").click()
    part.locator(".feedback.incorrect").wait_for()
    assert "Narrow it" in part.inner_text()

    box.fill(f"{true * 500:.3g} to {true * 2000:.3g} ms")
    part.get_by_role("button", name="Check").click()
    part.locator(".feedback.correct").wait_for()
