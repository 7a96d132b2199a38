"""A failed exam autosave says so, keeps the text and tries again (issue 33, partial finding).

The review: when a save failed, htmx left the old "Saved at …" line in place and showed no
error, so the student believed the new text was stored.
"""

from __future__ import annotations

import pytest

from quizzes.models import SavedAnswer, Variant
from tests.browser.conftest import log_in, screenshot
from tests.factories import PASSWORD, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_failed_save_is_named_the_text_kept_and_the_save_retried(page):
    course = CourseFactory()
    quiz = make_quiz(
        course, examples=["decode-step-memory-floor"], mode="exam", time_limit_minutes=20
    )
    student = EnrollmentFactory(course=course, user__username="grace").user
    log_in(page, student.username, PASSWORD)
    page.goto(f"/o/{quiz.offering.slug}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    variant = Variant.objects.get(attempt__student=student)
    part = page.locator(f"#part-{variant.pk}-t")
    box = part.get_by_label("Your answer")
    box.type("4 ms", delay=15)
    part.locator(".save-status.saved").wait_for()
    assert SavedAnswer.objects.get(variant=variant).raw == "4 ms"

    failing = {"on": True, "seen": 0}

    def fail_while_on(route):
        if failing["on"]:
            failing["seen"] += 1
            route.fulfill(status=500, body="Server Error")
        else:
            route.continue_()

    page.route("**/autosave/", fail_while_on)
    box.fill("5 ms")
    status = part.locator(".save-status.failed")
    status.wait_for()
    assert "Not saved" in status.inner_text() and "kept here" in status.inner_text()
    assert "Saved at" not in part.locator(".save-status").inner_text()
    assert box.input_value() == "5 ms"
    assert SavedAnswer.objects.get(variant=variant).raw == "4 ms"
    screenshot(page, "exam-save-failed")

    failing["on"] = False  # the server is back: the page's own retry stores the text
    part.locator(".save-status.saved").wait_for(timeout=40_000)
    assert SavedAnswer.objects.get(variant=variant).raw == "5 ms"
    assert failing["seen"] >= 1
