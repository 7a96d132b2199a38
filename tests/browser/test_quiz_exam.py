"""Exam mode in Chromium: answers saved as the student types survive a reload; the countdown
runs; submitting grades the saved answers and the results page shows them."""

from __future__ import annotations

import pytest

from quizzes.models import SavedAnswer, Variant
from quizzes.services.questions import correct_answers, option_token
from tests.browser.conftest import log_in, screenshot
from tests.factories import OFFERING, PASSWORD, CourseFactory, EnrollmentFactory, make_quiz

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
    page.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
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
    choice.locator(
        f"input[value='{option_token(bound, 'bound', correct_answers(bound)['bound'][0])}']"
    ).check()
    choice.locator(".save-status.saved").wait_for()
    saved = SavedAnswer.objects.get(variant=decode)
    assert saved.raw == answer
    assert saved.sequence > 10**12  # the page's clock in ms: a save that only a later one beats
    assert "Correct" not in page.locator("main").inner_text()  # no feedback during an exam
    # Right answers saved: the navigator says answered, never correct, before release.
    assert page.locator(".question-nav a.answered").count() == 2
    assert page.locator(".question-nav a.correct").count() == 0
    assert "correct" not in page.locator(".question-nav").inner_text()
    screenshot(page, "quiz-exam-page")

    page.reload()
    assert page.locator(f"#part-{decode.pk}-t").get_by_label("Your answer").input_value() == answer
    assert page.locator(f"#part-{bound.pk}-bound input:checked").count() == 1
    floor = part.locator("input[data-save-sequence]").input_value()
    # Clicking the option blurred the text box, which may save it once more (same text, a later
    # sequence) after the read above: compare with the save stored when the page was drawn.
    saved.refresh_from_db()
    assert saved.raw == answer
    assert int(floor) == saved.sequence + 1  # the reloaded page starts above the stored save
    # Another device whose clock is ahead saved last: this page's save is superseded (nothing
    # stored, no error), and its next one goes above the stored save.
    ahead = saved.sequence + 10**9
    SavedAnswer.objects.filter(variant=decode).update(sequence=ahead, raw="9 s")
    box = part.get_by_label("Your answer")
    with page.expect_response(lambda r: "/autosave/" in r.url) as first:
        box.press("End")
        box.type("0")
    assert first.value.headers.get("x-save-sequence") == str(ahead)
    assert SavedAnswer.objects.get(variant=decode).raw == "9 s"
    assert "refused" not in part.locator(".save-status").get_attribute("class")
    with page.expect_response(lambda r: "/autosave/" in r.url):
        box.press("Backspace")
    assert SavedAnswer.objects.get(variant=decode).raw == answer

    # Submitting asks first: declining stays on the attempt, accepting submits.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_timeout(300)
    assert "/results/" not in page.url
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    assert "2 / 2 points" in page.locator(".score-card").inner_text()


def _tab_to(page, test: str, limit: int = 60) -> None:
    """Press Tab until the focused element passes `test` (a JS expression on `el`)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"(() => {{ const el = document.activeElement; return !!({test}); }})()"):
            return
    raise AssertionError(f"Tab never reached an element where {test}")


def test_keyboard_only_exam_with_readback_timer_and_pre_submit_list(page):
    """Tab, Enter, Space and typing only: start, answer a numeric, a choice and a formula part,
    see an unreadable answer read back and listed before submitting, submit. The timer stays
    in view after scrolling, on a desktop and at 390 px."""
    course = CourseFactory()
    quiz = make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what", "kv-cache-bytes-formula"],
        mode="exam",
        time_limit_minutes=20,
        slug="keyboard-exam",
        title="Keyboard exam",
    )
    student = EnrollmentFactory(course=course, user__username="kim").user
    log_in(page, student.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    _tab_to(page, "el.textContent.trim() === 'Start attempt'")
    page.keyboard.press("Enter")
    page.wait_for_url("**/attempts/*/")

    decode, bound, kv = (
        Variant.objects.get(attempt__student=student, item__position=n) for n in (1, 2, 3)
    )
    # An unreadable answer is saved, and said to be unreadable, at once.
    _tab_to(page, f"el.id === 'answer-{decode.pk}-t'")
    page.keyboard.type("banana")
    status = page.locator(f"#part-{decode.pk}-t .save-status")
    page.locator(f"#part-{decode.pk}-t .save-status.unreadable").wait_for()
    assert "Cannot be read" in status.inner_text()
    # The choice by Space, the formula by typing.
    _tab_to(page, f"el.name === 'answer' && el.closest('#part-{bound.pk}-bound')")
    page.keyboard.press("Space")
    page.locator(f"#part-{bound.pk}-bound .save-status.saved").wait_for()
    _tab_to(page, f"el.id === 'answer-{kv.pk}-kv'")
    page.keyboard.type(correct_answers(kv)["kv"])
    page.locator(f"#part-{kv.pk}-kv .save-status.saved").wait_for()
    assert "Read as" in page.locator(f"#part-{kv.pk}-kv .save-status").inner_text()

    # The remaining time stays in view after scrolling, with a live region for announcements.
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.mouse.wheel(0, 1500)
        page.wait_for_timeout(200)
        box = page.locator(".exam-timer .deadline").bounding_box()
        assert 0 <= box["y"] < 80 and "left" in page.locator("[data-countdown]").inner_text()
    assert page.locator("[data-timer-announce][aria-live=polite]").count() == 1
    page.set_viewport_size({"width": 1280, "height": 900})

    # Submitting lists the unreadable part first; declining keeps the attempt open.
    messages = []
    page.once("dialog", lambda dialog: (messages.append(dialog.message), dialog.dismiss()))
    _tab_to(page, "el.textContent.trim() === 'Submit attempt'")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert "Question 1: cannot be read" in messages[0] and "/results/" not in page.url
    # Fix it by keyboard, read back with its unit, then submit.
    page.locator(f"#answer-{decode.pk}-t").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type(f"{correct_answers(decode)['t'] * 1000:.4g} ms")
    page.locator(f"#part-{decode.pk}-t .save-status.saved").wait_for()
    assert "Read as" in status.inner_text()
    screenshot(page, "quiz-exam-keyboard")
    page.once("dialog", lambda dialog: dialog.accept())
    _tab_to(page, "el.textContent.trim() === 'Submit attempt'")
    page.keyboard.press("Enter")
    page.wait_for_url("**/results/")
    assert SavedAnswer.objects.filter(variant__attempt__student=student).count() == 3
