"""Exam mode in Chromium: answers saved as the student types survive a reload; the countdown
runs; submitting grades the saved answers and the results page shows them."""

from __future__ import annotations

import pytest

from quizzes.models import SavedAnswer, Variant
from quizzes.services.questions import correct_answers
from tests.browser.conftest import log_in, screenshot
from tests.factories import PASSWORD, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_exam_autosaves_survives_reload_and_grades_at_submission(page):
    course = CourseFactory()
    quiz = make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        mode="exam",
        time_limit_minutes=20,
        slug="timed-check",
        title="Timed check: decode and the roofline",
    )
    student = EnrollmentFactory(course=course, user__username="linus").user
    log_in(page, student.username, PASSWORD)
    page.goto(f"/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    assert "left" in page.locator("[data-countdown]").inner_text()

    decode = Variant.objects.get(attempt__student=student, item__position=1)
    bound = Variant.objects.get(attempt__student=student, item__position=2)
    seconds = correct_answers(decode)["t"]
    answer = f"{seconds * 1000:.4g} ms"
    part = page.locator(f"#part-{decode.pk}-t")
    part.get_by_label("Your answer").type(answer, delay=15)
    part.locator(".save-status.saved").wait_for()
    choice = page.locator(f"#part-{bound.pk}-bound")
    choice.locator(f"input[value='{correct_answers(bound)['bound'][0]}']").check()
    choice.locator(".save-status.saved").wait_for()
    assert SavedAnswer.objects.get(variant=decode).raw == answer
    assert "Correct" not in page.locator("main").inner_text()  # no feedback during an exam
    screenshot(page, "quiz-exam-page")

    page.reload()
    assert page.locator(f"#part-{decode.pk}-t").get_by_label("Your answer").input_value() == answer
    assert page.locator(f"#part-{bound.pk}-bound input:checked").count() == 1

    # Submitting asks first: declining stays on the attempt, accepting submits.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_timeout(300)
    assert "/results/" not in page.url
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    assert "2 / 2 points" in page.locator(".score-card").inner_text()
