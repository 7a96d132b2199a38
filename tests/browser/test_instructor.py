"""Instructor pages in Chromium: gradebook -> student -> override; item analysis -> wrong answers;
regrade's dependent version select; a screenshot of every page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from quizzes.models import ScoreOverride
from tests.browser.conftest import log_in, screenshot
from tests.factories import OFFERING, PASSWORD, AttemptFactory, CourseFactory, EnrollmentFactory
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
    page.goto("/o/hardware-reality/instructor/gradebook/")
    screenshot(page, "instructor-gradebook")
    page.get_by_label("Search by name").fill("s003")
    # htmx swaps the table after a short pause and pushes the search into the address bar.
    page.wait_for_url(re.compile(r"q=s003"))
    rows = page.locator("table.grades tbody tr")
    rows.first.wait_for()
    assert rows.count() == 1
    rows.first.get_by_role("link", name=re.compile("F3")).click()
    page.wait_for_load_state("networkidle")
    assert "/o/hardware-reality/instructor/students/" in page.url
    page.get_by_text("Override the score").first.click()
    form = page.locator("form[action*='override']").first
    form.get_by_label("New score (points)").fill("2.5")
    form.get_by_label("Reason (required)").fill("Accepted a units slip")
    form.get_by_role("button", name="Save override").click()
    page.wait_for_load_state("networkidle")
    assert page.get_by_text("Override saved.").is_visible()
    assert page.get_by_text("Accepted a units slip").first.is_visible()
    screenshot(page, "instructor-student-detail")
    # One score format on both pages: 2.5/3, never 2.500 / 3.
    assert page.locator(".attempt .score").first.inner_text() == "2.5/3"
    override = ScoreOverride.objects.get()
    assert override.created_by == teacher and str(override.score) == "2.500"
    page.goto("/o/hardware-reality/instructor/gradebook/?q=s003")
    assert page.locator("table.grades .flag.override").count() == 1
    assert "2.5/3" in page.locator("table.grades tbody td").first.inner_text()


def test_an_attempt_in_progress_offers_no_override(page, classroom):
    teacher, quiz, items, students = classroom
    AttemptFactory(quiz=quiz, student=students[0], number=2)
    log_in(page, teacher.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/instructor/students/{students[0].pk}/")
    open_attempt = page.locator("section.attempt", has_text="attempt 2")
    assert open_attempt.get_by_text("overrides apply to submitted attempts").is_visible()
    assert open_attempt.get_by_text("Override the score").count() == 0
    open_attempt.scroll_into_view_if_needed()
    screenshot(page, "instructor-student-in-progress")


def test_regrade_offers_the_chosen_templates_versions_then_previews(page, classroom):
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    page.goto("/o/hardware-reality/instructor/regrade/")
    assert page.locator("select[name=target_version]").count() == 0
    template = items[0].template
    page.get_by_label("Template").select_option(str(template.pk))
    # htmx swaps step 2 in and pushes the choice into the address bar.
    page.wait_for_url(re.compile(rf"template={template.pk}"))
    versions = page.locator("select[name=target_version] option")
    versions.first.wait_for(state="attached")
    assert versions.all_inner_texts() == [_label(template.current_version)]
    screenshot(page, "instructor-regrade")
    page.get_by_role("button", name="Preview the changes").click()
    page.wait_for_url(re.compile(r"/o/hardware-reality/instructor/regrade/\d+/$"))
    assert page.get_by_text("Checked 12 responses in 6 variants.").first.is_visible()
    screenshot(page, "instructor-regrade-preview")


def test_regrade_works_without_javascript(browser, live_server, classroom):
    teacher, quiz, items, students = classroom
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, teacher.username, PASSWORD)
        page.goto("/o/hardware-reality/instructor/regrade/")
        page.get_by_label("Template").select_option(str(items[1].template.pk))
        page.get_by_role("button", name="Show its versions").click()
        page.get_by_role("button", name="Preview the changes").click()
        assert page.get_by_text("Checked 0 responses in 6 variants.").first.is_visible()
    finally:
        context.close()


def _label(version) -> str:
    return f"v{version.number} (current) · {version.published_at:%-d %b %Y %H:%M}"


def test_item_analysis_shows_common_wrong_answers(page, classroom):
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    page.goto("/o/hardware-reality/instructor/items/")
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
        ("/o/hardware-reality/instructor/", "instructor-dashboard"),
        ("/o/hardware-reality/instructor/misconceptions/", "instructor-misconceptions"),
        ("/o/hardware-reality/instructor/variants/?params=dt%3Dfp16", "instructor-variant-search"),
        (
            "/o/hardware-reality/instructor/variants/?params=zzz%3D%3D%3D",
            "instructor-variant-search-error",
        ),
    ):
        response = page.goto(path)
        assert response.status == 200, path
        assert page.locator("h1").is_visible()
        screenshot(page, name)


def _tab_to(page, matches: str, limit: int = 80) -> None:
    """Press Tab until the focused element satisfies the JS predicate `matches` (over `e`)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"(e => !!e && ({matches}))(document.activeElement)"):
            return
    raise AssertionError(f"Tab never reached an element where {matches}")


def test_the_gradebook_works_by_keyboard_alone(page, classroom):
    """Search, filter, sort a column, open a student and override a score with a reason,
    pressing keys only: every control is reachable by Tab and works with Enter or arrows."""
    teacher, quiz, items, students = classroom
    log_in(page, teacher.username, PASSWORD)
    page.goto("/o/hardware-reality/instructor/gradebook/")
    _tab_to(page, "e.id === 'gradebook-q'")
    page.keyboard.type("F3")
    page.wait_for_url(re.compile(r"q=F3"))
    page.locator("table.grades tbody tr").first.wait_for()
    _tab_to(page, "e.id === 'gradebook-show'")
    page.keyboard.press("ArrowDown")
    page.wait_for_url(re.compile(r"show=at-risk"))
    page.keyboard.press("ArrowUp")
    page.wait_for_url(re.compile(r"show=(&|$)"))
    _tab_to(page, f"e.title === 'Sort by {quiz.title}'")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"sort={quiz.slug}"))
    assert "▼" in page.locator("table.grades thead").inner_text()
    _tab_to(page, "e.tagName === 'A' && e.textContent.trim() === 'F3 L3'")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/o/hardware-reality/instructor/students/\d+/$"))
    _tab_to(page, "e.tagName === 'SUMMARY' && e.textContent.includes('Override the score')")
    page.keyboard.press("Enter")
    _tab_to(page, "e.name === 'score'", limit=3)
    page.keyboard.type("1.5")
    _tab_to(page, "e.name === 'reason'", limit=2)
    page.keyboard.type("Forgave a unit slip, by keyboard")
    _tab_to(page, "e.tagName === 'BUTTON' && e.textContent.includes('Save override')", limit=2)
    page.keyboard.press("Enter")
    expect(page.get_by_text("Override saved.")).to_be_visible()
    override = ScoreOverride.objects.get()
    assert override.reason == "Forgave a unit slip, by keyboard"
    assert override.attempt.student.first_name == "F3" and str(override.score) == "1.500"
