"""Instructor pages in Chromium: gradebook -> student -> override; item analysis -> wrong answers;
a screenshot of every page."""

from __future__ import annotations

import re

import pytest

from quizzes.models import ScoreOverride
from tests.browser.conftest import log_in, screenshot
from tests.factories import PASSWORD, CourseFactory, EnrollmentFactory
from tests.quizzes.test_instructor_helpers import make_class, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def classroom():
    course = CourseFactory()
    teacher = EnrollmentFactory(course=course, role="instructor").user
    quiz, items = make_quiz(course, slug="roofline-quiz", title="Roofline quiz")
    students = make_class(course, quiz, items, 6)
    return teacher, quiz, items, students


def test_gradebook_to_student_to_override(page, classroom):
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    page.goto("/instructor/gradebook/")
    screenshot(page, "instructor-gradebook")
    page.get_by_label("Search by name").fill("s003")
    # htmx swaps the table after a short pause and pushes the search into the address bar.
    page.wait_for_url(re.compile(r"q=s003"))
    rows = page.locator("table.grades tbody tr")
    rows.first.wait_for()
    assert rows.count() == 1
    rows.first.get_by_role("link", name=re.compile("F3")).click()
    page.wait_for_load_state("networkidle")
    assert "/instructor/students/" in page.url
    page.get_by_text("Override the score").first.click()
    form = page.locator("form[action*='override']").first
    form.get_by_label("New score (points)").fill("2.5")
    form.get_by_label("Reason (required)").fill("Accepted a units slip")
    form.get_by_role("button", name="Save override").click()
    page.wait_for_load_state("networkidle")
    assert page.get_by_text("Override saved.").is_visible()
    assert page.get_by_text("Accepted a units slip").first.is_visible()
    screenshot(page, "instructor-student-detail")
    override = ScoreOverride.objects.get()
    assert override.created_by == teacher and str(override.score) == "2.500"
    page.goto("/instructor/gradebook/?q=s003")
    assert page.locator("table.grades .flag.override").count() == 1


def test_item_analysis_shows_common_wrong_answers(page, classroom):
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    page.goto("/instructor/items/")
    screenshot(page, "instructor-item-index")
    page.get_by_role("link", name=re.compile(items[0].template.title, re.I)).click()
    page.wait_for_load_state("networkidle")
    wrong = page.locator("h2#wrong + table")
    assert wrong.get_by_text("bits-for-bytes").is_visible()
    assert wrong.get_by_text("26.9 GB").is_visible()
    screenshot(page, "instructor-item-analysis")


def test_screenshots_of_the_other_pages(page, classroom):
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    for path, name in (
        ("/instructor/", "instructor-dashboard"),
        ("/instructor/misconceptions/", "instructor-misconceptions"),
        ("/instructor/variants/?params=dt%3Dfp16", "instructor-variant-search"),
        ("/instructor/regrade/", "instructor-regrade"),
    ):
        response = page.goto(path)
        assert response.status == 200, path
        assert page.locator("h1").is_visible()
        screenshot(page, name)
