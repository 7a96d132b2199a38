"""An exam graded on the task worker, in Chromium: Submit returns at once to a results page
that says the answers are being graded, and the page turns into the graded results by itself
once the worker has graded them (htmx polls the grading status), with no serious axe finding
in either state, at 1280 and 390 px."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services import grading_run
from quizzes.services.questions import correct_answers
from tests.browser.conftest import log_in
from tests.factories import OFFERING, PASSWORD, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SERIOUS = ("serious", "critical")


def _serious(page) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [v["id"] for v in found if v["impact"] in SERIOUS]


@pytest.mark.parametrize("width", [1280, 390])
def test_submit_shows_being_graded_then_the_grade_without_a_reload(page, database_tasks, width):
    page.set_viewport_size({"width": width, "height": 900})
    course = CourseFactory()
    quiz = make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        mode="exam",
        release="immediate",
        slug="graded-later",
        title="Graded on the worker",
    )
    student = EnrollmentFactory(course=course, user__username="grace").user
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    decode = attempt.variants.get(item__position=1)
    service.autosave(
        variant=decode,
        part_id="t",
        raw=f"{float(correct_answers(decode)['t']):.6g} s",
        student=student,
        now=timezone.now(),
    )
    log_in(page, student.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/attempts/{attempt.pk}/")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    status = page.locator("#grading-status")
    assert "being graded" in status.inner_text()
    assert "0 of 1 answered question graded" in status.inner_text()
    assert "Question 2: no answer" in status.inner_text()
    assert _serious(page) == []
    wide, room = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide <= room

    # The worker grades it; the page notices on its next poll and shows the grade.
    assert grading_run.grade_submitted(attempt_id=attempt.pk)
    page.locator(".score-card").wait_for(timeout=10_000)
    assert "1 / 2 points" in page.locator(".score-card").inner_text()
    assert page.locator("#grading-status").count() == 0
    assert _serious(page) == []
