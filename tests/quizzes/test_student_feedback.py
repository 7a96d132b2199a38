"""What a part reports after a Check or a reload: the graded try, feedback with math, the
formula read as math, one length limit per kind, htmx fragments that leave the input alone and
carry their own messages, and a catalogue entry for every mistake the grader names."""

from __future__ import annotations

import ast
import uuid
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from content.misconceptions import misconception
from courseware.models import ReadingProgress
from quizzes.models import Response
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, ChapterFactory, check_answer, make_quiz

pytestmark = pytest.mark.django_db

GRADING = Path(__file__).resolve().parents[2] / "quizzes" / "grading"


@pytest.fixture
def logged_in(client, student):
    client.login(username=student.username, password=PASSWORD)
    return client


def _start(course, student, examples=("decode-step-memory-floor",), **fields):
    quiz = make_quiz(course, examples=list(examples), **fields)
    return service.start_attempt(quiz=quiz, student=student, now=timezone.now())


def _answer(variant, student, part, raw):
    return check_answer(variant, student, raw, part)


def _part_html(html: str, variant, part: str) -> str:
    start = html.index(f'id="part-{variant.pk}-{part}"')
    ends = [html.find(marker, start) for marker in ('<div class="part ', '<div class="part"')]
    ends += [html.find("</section>", start)]
    return html[start : min(end for end in ends if end > 0)]


def test_reload_shows_the_graded_try_and_mentions_a_newer_unreadable_answer(
    logged_in, course, student
):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    _answer(variant, student, "t", "1 s")  # readable and wrong: a graded try
    _answer(variant, student, "t", "1 banana")  # unreadable: no try
    part = _part_html(logged_in.get(attempt.get_absolute_url()).content.decode(), variant, "t")
    assert "Not quite" in part and "try 1" in part  # the graded feedback is still there
    assert "could not be read" in part and "banana" in part  # and the newer one is mentioned
    assert part.index("could not be read") < part.index("Not quite")


def test_an_unreadable_first_answer_is_reported_as_such(logged_in, course, student):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    _answer(variant, student, "t", "1 banana")
    part = _part_html(logged_in.get(attempt.get_absolute_url()).content.decode(), variant, "t")
    assert "Could not read this answer" in part and "Not quite" not in part


def test_feedback_math_is_rendered_and_quoted_input_stays_literal(logged_in, course, student):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    Response.objects.create(
        variant=variant,
        part_id="t",
        raw="3 s",
        status="incorrect",
        score=0,
        feedback="A GB is $10^9$ bytes; your '*x*' <b>was</b> read as text.",
        try_number=1,
        idempotency_key=uuid.uuid4().hex,
    )
    part = _part_html(logged_in.get(attempt.get_absolute_url()).content.decode(), variant, "t")
    feedback = part[part.index('class="feedback-text"') :]
    assert "<math" in feedback and "$10^9$" not in feedback
    assert "*x*" in feedback and "<em>" not in feedback  # the student's words, not Markdown
    assert "<b>" not in feedback and "&lt;b&gt;" in feedback


def test_a_checked_formula_is_read_as_math(logged_in, course, student):
    attempt = _start(course, student, examples=["kv-cache-bytes-formula"])
    variant = attempt.variants.get()
    _answer(variant, student, "kv", "4 n b")
    part = _part_html(logged_in.get(attempt.get_absolute_url()).content.decode(), variant, "kv")
    read_as = part[part.index('class="read-as"') :]
    read_as = read_as[: read_as.index("</p>")]
    assert "<math" in read_as and "<code>" not in read_as


def test_length_limit_is_the_graders_for_each_kind_in_the_box_and_the_message(
    logged_in, course, student
):
    attempt = _start(
        course, student, examples=["decode-step-memory-floor", "kv-cache-bytes-formula"]
    )
    number = attempt.variants.get(item__template__slug="decode-step-memory-floor")
    formula = attempt.variants.get(item__template__slug="kv-cache-bytes-formula")
    html = logged_in.get(attempt.get_absolute_url()).content.decode()
    assert 'maxlength="200"' in _part_html(html, number, "t")
    assert 'maxlength="500"' in _part_html(html, formula, "kv")
    cases = [(number, "t", "1" * 5000, "200"), (formula, "kv", "n" * 5000, "500")]
    for variant, part, answer, limit in cases:
        url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part])
        data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
        fragment = logged_in.post(url, data, HTTP_HX_REQUEST="true").content.decode()
        assert f"the limit for a {'number' if part == 't' else 'formula'} is {limit}" in fragment
        plain = logged_in.post(url, {**data, "idempotency_key": uuid.uuid4().hex}, follow=True)
        assert f"is {limit}" in plain.content.decode()
    # Just over the number limit is refused by the server, not by the grader's other message.
    with pytest.raises(service.QuizRuleError, match="limit for a number is 200"):
        _answer(number, student, "t", "1" * 201)
    assert not Response.objects.exists()


def test_a_check_swaps_the_result_not_the_input_until_the_part_is_final(logged_in, course, student):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    key = uuid.uuid4().hex
    wrong = logged_in.post(url, {"answer": "1 s", "idempotency_key": key}, HTTP_HX_REQUEST="true")
    html = wrong.content.decode()
    assert "HX-Retarget" not in wrong.headers
    assert 'class="answer-input"' not in html  # the student's newer typing survives
    assert "Not quite" in html and "2 tries left" in html
    assert f'id="key-{variant.pk}-t"' in html and key not in html  # a fresh key for next time
    seconds = correct_answers(variant)["t"]
    right = logged_in.post(
        url, {"answer": f"{seconds} s", "idempotency_key": uuid.uuid4().hex}, HTTP_HX_REQUEST="true"
    )
    assert right.headers["HX-Retarget"] == f"#part-{variant.pk}-t"
    assert right.headers["HX-Reswap"] == "outerHTML"
    assert "Correct" in right.content.decode() and " disabled" in right.content.decode()


def test_a_stale_tab_hears_about_the_submission_in_its_fragment_only(logged_in, course, student):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    data = {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}
    fragment = logged_in.post(url, data, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert "has been submitted" in fragment.content.decode()
    assert (
        reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk]) in fragment.content.decode()
    )
    later = logged_in.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    assert "has been submitted" not in later


def test_a_plain_post_message_is_shown_once_on_the_page_it_lands_on(logged_in, course, student):
    attempt = _start(course, student)
    variant = attempt.variants.get()
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    landed = logged_in.post(
        url, {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}, follow=True
    )
    assert "has been submitted" in landed.content.decode()
    assert (
        "has been submitted"
        not in logged_in.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    )


def _codes_the_grader_emits() -> set[str]:
    """Diagnosis codes written into `quizzes/grading`: `incorrect(feedback, "code")` calls and
    the generic slips' table."""
    codes = set()
    for path in GRADING.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "incorrect"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                codes.add(node.args[1].value)
    from quizzes.grading.diagnosis import _candidates

    codes |= {code for _, code, _ in _candidates()}
    return codes


def test_every_diagnosis_the_grader_emits_has_a_catalogue_entry():
    codes = _codes_the_grader_emits()
    assert {"constant-factor", "wrong-dimension", "bits-for-bytes"} <= codes
    for code in sorted(codes):
        entry = misconception(code)
        assert entry.title and entry.explanation and entry.chapter and entry.anchor


def test_progress_explains_a_constant_factor_and_links_its_section(logged_in, course, student):
    chapter = ChapterFactory(part__course=course, slug="roofline", title="The roofline")
    ReadingProgress.objects.create(user=student, chapter=chapter)
    attempt = _start(course, student, examples=["kv-cache-bytes-formula"])
    variant = attempt.variants.get()
    doubled = f"2*({correct_answers(variant)['kv']})"
    assert _answer(variant, student, "kv", doubled).diagnosis == "constant-factor"
    html = logged_in.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()
    entry = misconception("constant-factor")
    assert entry.title in html and entry.explanation in html
    assert reverse("courseware:chapter_detail", args=["roofline"]) + "#counting-flops" in html
