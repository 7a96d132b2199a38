"""A student takes a chapter quiz in Chromium: invalid, diagnosed and right answers, solution,
submission, My progress; a second student gets other numbers for the same questions."""

from __future__ import annotations

import pytest

from quizzes.models import Attempt, Variant
from quizzes.services.questions import correct_answers
from tests.browser.conftest import log_in, screenshot
from tests.factories import PASSWORD, ChapterFactory, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLES = ["decode-step-memory-floor", "bound-by-what", "kv-cache-bytes-formula"]


@pytest.fixture
def setup():
    course = CourseFactory()
    chapter = ChapterFactory(
        part__course=course, slug="inference", title="Why LLM inference is memory-bound"
    )
    quiz = make_quiz(
        course,
        examples=EXAMPLES,
        chapter=chapter,
        slug="inference-check",
        title="Inference: the memory floor",
    )
    first = EnrollmentFactory(course=course, user__username="ada").user
    second = EnrollmentFactory(course=course, user__username="grace").user
    return quiz, first, second


def _variant(student, slug) -> Variant:
    return Variant.objects.get(attempt__student=student, item__template__slug=slug)


def _part(page, variant, part_id):
    return page.locator(f"#part-{variant.pk}-{part_id}")


def _check(page, variant, part_id, answer):
    part = _part(page, variant, part_id)
    part.get_by_label("Your answer").fill(answer)
    part.get_by_role("button", name="Check").click()
    return part


def test_student_takes_a_chapter_quiz_end_to_end(page, browser, live_server, setup):
    quiz, ada, grace = setup
    log_in(page, ada.username, PASSWORD)
    page.goto("/quizzes/chapter/inference/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    screenshot(page, "quiz-attempt-page")

    decode = _variant(ada, "decode-step-memory-floor")
    seconds = correct_answers(decode)["t"]
    # An unreadable answer: invalid, says what to fix, costs no try.
    part = _check(page, decode, "t", "0,004 s")
    part.locator(".feedback.invalid").wait_for()
    assert "no try used" in part.inner_text()
    assert "3 tries left" in part.inner_text()
    # A recognised slip: the diagnosis names it.
    part = _check(page, decode, "t", f"{seconds * 8 * 1000:.4g} ms")
    part.locator(".feedback.incorrect").wait_for()
    assert "bits" in part.inner_text()
    assert "2 tries left" in part.inner_text()
    # The right answer in another unit: correct, and the worked solution appears.
    part = _check(page, decode, "t", f"{seconds * 1e6:.5g} µs")
    part.locator(".feedback.correct").wait_for()
    page.locator(f"#extras-{decode.pk} .solution").wait_for()
    part.scroll_into_view_if_needed()
    screenshot(page, "quiz-graded-part")

    bound = _variant(ada, "bound-by-what")
    choice = _part(page, bound, "bound")
    choice.locator(f"input[value='{correct_answers(bound)['bound'][0]}']").check()
    choice.get_by_role("button", name="Check").click()
    choice.locator(".feedback.correct").wait_for()

    formula = _variant(ada, "kv-cache-bytes-formula")
    box = _part(page, formula, "kv")
    box.get_by_label("Your answer").type("4 n b", delay=20)
    box.locator(".formula-preview .preview").wait_for()
    assert "Read as" in box.inner_text()
    part = _check(page, formula, "kv", correct_answers(formula)["kv"])
    part.locator(".feedback.correct").wait_for()

    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    assert "3 / 3 points" in page.locator(".score-card").inner_text()
    screenshot(page, "quiz-results")
    attempt = Attempt.objects.get(student=ada)
    assert attempt.status == "submitted"

    page.get_by_role("link", name="My progress").first.click()
    page.wait_for_url("**/progress/")
    body = page.locator("main").inner_text()
    assert "3 / 3" in body
    assert "Bits taken for bytes" in body
    screenshot(page, "quiz-my-progress")

    # A second student sees other numbers for the same questions.
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    other = context.new_page()
    log_in(other, grace.username, PASSWORD)
    other.goto(f"/quizzes/{quiz.slug}/")
    other.get_by_role("button", name="Start attempt").click()
    other.wait_for_url("**/attempts/*/")
    theirs = other.locator(".question .prompt").all_inner_texts()
    page.goto(attempt.get_absolute_url())
    page.wait_for_url("**/results/")
    mine = page.locator(".question .prompt").all_inner_texts()
    assert len(theirs) == len(mine) == 3
    assert theirs != mine
    context.close()
