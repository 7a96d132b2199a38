"""A student takes a chapter quiz in Chromium: invalid, diagnosed and right answers, solution,
submission, My progress; a second student gets other numbers for the same questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.models import Attempt, Response, Variant
from quizzes.services.questions import correct_answers, option_token
from tests.browser.conftest import log_in, screenshot
from tests.factories import (
    OFFERING,
    PASSWORD,
    ChapterFactory,
    CourseFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizItemFactory,
    make_quiz,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLES = ["decode-step-memory-floor", "bound-by-what", "kv-cache-bytes-formula"]
BANK = Path(__file__).resolve().parents[2] / "content" / "questions"


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
    page.goto("/o/hardware-reality/quizzes/chapter/inference/")
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
    # The navigator marks that question correct as soon as the verdict is swapped in.
    question = page.locator(f"section.question:has(#part-{decode.pk}-t)").get_attribute("id")
    page.locator(f'.question-nav a.correct[data-nav-for="{question}"]').wait_for()
    assert page.locator(".question-nav a.correct").count() == 1
    assert "1 correct" in page.locator("[data-nav-summary]").inner_text()
    part.scroll_into_view_if_needed()
    screenshot(page, "quiz-graded-part")

    bound = _variant(ada, "bound-by-what")
    choice = _part(page, bound, "bound")
    right = correct_answers(bound)["bound"][0]
    choice.locator(f"input[value='{option_token(bound, 'bound', right)}']").check()
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
    other.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    other.get_by_role("button", name="Start attempt").click()
    other.wait_for_url("**/attempts/*/")
    theirs = other.locator(".question .prompt").all_inner_texts()
    page.goto(attempt.get_absolute_url())
    page.wait_for_url("**/results/")
    mine = page.locator(".question .prompt").all_inner_texts()
    assert len(theirs) == len(mine) == 3
    assert theirs != mine
    context.close()


@pytest.fixture
def weights_quiz():
    """A homework quiz on weight memory, whose bank feedback carries math, plus a formula."""
    course = CourseFactory()
    source = (BANK / "precision" / "weights-bytes-by-format.yaml").read_text(encoding="utf-8")
    template = QuestionTemplateFactory(
        course=course, slug="weights-bytes-by-format", title="Weight memory", draft_source=source
    )
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"], slug="weights", title="Weights")
    QuizItemFactory(quiz=quiz, template=template, position=2)
    student = EnrollmentFactory(course=course, user__username="edsger").user
    return quiz, student


def _start_weights(page, weights_quiz):
    quiz, student = weights_quiz
    log_in(page, student.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    return student


def test_feedback_math_and_the_formula_read_as_math(page, weights_quiz):
    student = _start_weights(page, weights_quiz)
    weights = _variant(student, "weights-bytes-by-format")
    gibibytes = correct_answers(weights)["w"] / 1.073741824
    part = _check(page, weights, "w", f"{gibibytes / 1e9:.5g} GB")
    feedback = part.locator(".feedback.incorrect .feedback-text")
    feedback.wait_for()
    assert feedback.locator("math").count() == 2  # 2^30 and 10^9 as MathML, not "$...$"
    assert "$" not in feedback.inner_text()

    formula = _variant(student, "kv-cache-bytes-formula")
    doubled = f"2*({correct_answers(formula)['kv']})"
    box = _check(page, formula, "kv", doubled)
    box.locator(".feedback.incorrect").wait_for()
    assert box.locator(".read-as math").count() == 1
    box.scroll_into_view_if_needed()
    screenshot(page, "quiz-feedback-math")


def test_typing_during_a_check_is_not_undone_by_its_answer(page, weights_quiz):
    student = _start_weights(page, weights_quiz)
    weights = _variant(student, "weights-bytes-by-format")
    part = _part(page, weights, "w")
    # Hold the next Check's request, type on meanwhile, then let the answer arrive.
    held = []
    page.route("**/parts/w/", lambda route: held.append(route))
    answer = part.get_by_label("Your answer")
    answer.fill("1 B")  # readable and wrong: a counted try (a wrong dimension would be free)
    part.get_by_role("button", name="Check").click()
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    answer.fill("7 GB")
    held[0].continue_()
    part.locator(".feedback.incorrect .verdict", has_text="try 1").wait_for()
    page.unroute("**/parts/w/")
    assert answer.input_value() == "7 GB"  # the slower answer did not put "1 B" back
    assert "2 tries left" in part.inner_text()
    part.get_by_role("button", name="Check").click()  # the fresh form key records a new try
    part.locator(".feedback .verdict", has_text="try 2").wait_for()
    assert Response.objects.filter(variant=weights).order_by("created_at").last().raw == "7 GB"


def test_results_show_the_numbers_that_scored_with_practice_apart(page, weights_quiz):
    student = _start_weights(page, weights_quiz)
    weights = _variant(student, "weights-bytes-by-format")
    right = f"{correct_answers(weights)['w'] / 1e9:.6g} GB"
    _check(page, weights, "w", right).locator(".feedback.correct").wait_for()
    page.get_by_role("button", name="Practice with new numbers").click()
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    scored = page.locator(f"#part-{weights.pk}-w")
    assert right in scored.inner_text() and "Correct" in scored.inner_text()
    practice = page.locator(".other-set.practice")
    assert practice.count() == 1 and "does not count" in practice.inner_text()
    practice.locator("summary").click()
    screenshot(page, "quiz-results-practice")
