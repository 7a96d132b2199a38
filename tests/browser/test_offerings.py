"""Two offerings in Chromium: each instructor logs in and sees only their own students, the
other section's pages refuse them, and a student of both switches between them from the
header."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in
from tests.factories import PASSWORD, CourseFactory, EnrollmentFactory, OfferingFactory
from tests.quizzes.test_instructor_helpers import make_quiz, submitted_attempt

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sections():
    """Section 1 (the default offering) and section 2, each with its instructor and students
    who submitted the same quiz; `both` studies in both."""
    course = CourseFactory()
    one = OfferingFactory(course=course, title="Section 1")
    two = OfferingFactory(course=course, slug="section-2", title="Section 2")
    both = EnrollmentFactory(offering=one, user__username="both", user__first_name="Bo").user
    EnrollmentFactory(offering=two, user=both)
    people = {}
    for offering, tag in ((one, "one"), (two, "two")):
        EnrollmentFactory(offering=offering, role="instructor", user__username=f"teacher-{tag}")
        quiz, items = make_quiz(offering, slug="roofline-quiz", title=f"Roofline ({tag})")
        names = [f"pupil-{tag}-{n}" for n in range(3)]
        for name in names:
            student = EnrollmentFactory(offering=offering, user__username=name).user
            submitted_attempt(quiz, student, {item: 1.0 for item in items})
        people[tag] = names
    return one, two, people


@pytest.mark.parametrize("mine, theirs", [("one", "two"), ("two", "one")])
def test_each_instructor_sees_only_their_own_students(page, sections, mine, theirs):
    one, two, people = sections
    own, other = (one, two) if mine == "one" else (two, one)
    log_in(page, f"teacher-{mine}", PASSWORD)
    # One offering of theirs: the login lands on its dashboard.
    assert page.url.endswith(f"/o/{own.slug}/instructor/")
    page.get_by_role("link", name="Gradebook", exact=True).first.click()
    page.wait_for_load_state("networkidle")
    table = page.locator("table.grades").inner_text()
    assert all(name in table for name in people[mine])
    assert not any(name in table for name in people[theirs])
    assert "both" in table  # the student of both sections is in each gradebook
    # The other section's gradebook, typed into the address bar: the refusal page.
    response = page.goto(f"/o/{other.slug}/instructor/gradebook/")
    assert response.status == 403
    assert not any(name in page.content() for name in people[theirs])


def test_a_student_of_both_sections_switches_from_the_header(page, sections):
    one, two, _ = sections
    log_in(page, "both", PASSWORD)
    # Two offerings: the home page lists both.
    assert page.url.endswith("/")
    page.get_by_role("link", name="Section 2", exact=True).first.click()
    page.wait_for_url(re.compile(r"/o/section-2/$"))
    assert page.get_by_text("Roofline (two)").first.is_visible()
    switcher = page.locator(".offering-switcher")
    switcher.locator("summary").click()
    switcher.get_by_role("link", name="Section 1").click()
    page.wait_for_url(re.compile(rf"/o/{one.slug}/$"))
    assert page.get_by_text("Roofline (one)").first.is_visible()
    assert "Roofline (two)" not in page.content()


def test_on_a_phone_each_header_item_stays_on_one_line(page, sections):
    """At 390 px the account row wraps between its items, never inside one: "Log out" and
    "Times: UTC" each broke over two lines for an instructor before."""
    page.set_viewport_size({"width": 390, "height": 800})
    log_in(page, "teacher-one", PASSWORD)
    heights = page.locator(".account > *").evaluate_all(
        """items => items.map(item => {
            const box = item.getBoundingClientRect();
            const line = parseFloat(getComputedStyle(item).lineHeight) || 20;
            return [item.textContent.trim(), box.height / line];
        })"""
    )
    assert len(heights) >= 3, heights
    assert all(lines < 1.5 for _, lines in heights), heights
