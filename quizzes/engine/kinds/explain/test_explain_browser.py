"""A written explanation from the student's keyboard to the staff's grade and back, in Chromium at
desktop and phone width: the student types and submits, it awaits grading; a teaching
assistant grades it on the grading page by keyboard (rubric ticks, a saved comment reused from
a classmate's answer); the student sees the grade. axe-core finds nothing serious on any page."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STARTER = (Path(__file__).resolve().parent / "starter.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [1280, 390])
def test_write_grade_with_a_reused_comment_and_read_the_grade(kind_site, kind_browser, width):
    taking = kind_site.homework(STARTER, show_answers="after_submission")
    classmate = kind_site.classmate(taking)
    classmate.check("why", "An earlier answer: the GPU is slow.")
    browser, page = kind_browser, kind_browser.page
    browser.width(width)
    browser.open(taking)
    assert browser.axe() == []
    browser.tab_to("textarea.explain-input")
    page.keyboard.type(
        "Each token reads every weight once: 2 FLOP per byte is far below the ridge."
    )
    browser.tab_to(".answer-actions button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".feedback.pending").wait_for()
    browser.shot(f"explain-student-awaiting-{width}")
    assert browser.axe() == []
    assert [s for s, *_ in taking.responses()] == ["pending"]

    page.context.clear_cookies()
    browser.log_in(kind_site.staff(taking, "ta"))
    index = f"/o/{taking.attempt.quiz.offering.slug}/instructor/grading/"
    page.goto(index)
    assert browser.axe() == []
    browser.shot(f"explain-grading-index-{width}")
    with page.expect_navigation():
        page.locator("tbody a", has_text="Grade").first.click()
    # The classmate's answer first (the oldest): grade it and keep its comment for reuse.
    browser.tab_to("input[name=met][value=bytes]")
    page.keyboard.press("Space")
    browser.tab_to("#grade-comment")
    page.keyboard.type("Say which limit binds: <b>memory</b> or compute.")
    browser.tab_to("input[name=keep_comment]")
    page.keyboard.press("Space")
    browser.tab_to("form.stacked-wide button[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert browser.axe() == []
    browser.shot(f"explain-grade-part-{width}")
    # Then this student's, with two rubric items and the saved comment.
    for item in ("intensity", "bound"):
        browser.tab_to(f"input[name=met][value={item}]")
        page.keyboard.press("Space")
    browser.tab_to("input[name=use_comment]")
    page.keyboard.press("Space")
    browser.tab_to("form.stacked-wide button[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert [(s, round(score, 2)) for s, score, *_ in taking.responses()] == [("graded", 0.67)]

    taking.submit()
    page.context.clear_cookies()
    browser.log_in(taking.student)
    page.goto(f"/o/{taking.attempt.quiz.offering.slug}/attempts/{taking.attempt.pk}/results/")
    page.locator(".feedback.graded").wait_for()
    text = page.locator("main").inner_text()
    assert "2 of 3 rubric points." in text
    assert "Say which limit binds: <b>memory</b> or compute." in text  # as typed, escaped
    assert "a model answer:" in text
    assert browser.axe() == []
    browser.shot(f"explain-student-graded-{width}")


def test_without_javascript_the_text_area_posts_as_a_plain_form(kind_site, kind_browser_without_js):
    browser, page = kind_browser_without_js, kind_browser_without_js.page
    exam = kind_site.exam(STARTER, time_limit_minutes=30)
    browser.open(exam)
    page.locator("textarea.explain-input").fill("Bandwidth, not FLOP/s.")
    page.get_by_role("button", name="Save answer").click()
    page.wait_for_load_state()
    assert page.locator("textarea.explain-input").input_value() == "Bandwidth, not FLOP/s."
    browser.shot("explain-nojs-exam-390")
    exam.submit()
    assert [(s, score) for s, score, *_ in exam.responses()] == [("pending", 0.0)]
