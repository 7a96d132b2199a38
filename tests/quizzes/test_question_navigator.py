"""The attempt page's question navigator: each question's state as the page is drawn.

Homework shows each verdict as it is graded, so its navigator may mark a question correct; an
exam's never does before release, whatever was saved.
"""

from __future__ import annotations

import re
import uuid

import pytest
from django.utils import timezone

from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db
EXAMPLES = ("decode-step-memory-floor", "bound-by-what")


def _nav(client, attempt) -> dict[str, tuple[str, str]]:
    """anchor -> (class, aria-label) of each navigator link."""
    html = client.get(attempt.get_absolute_url()).content.decode()
    nav = html[
        html.index('<nav class="question-nav"') : html.index("</nav>", html.index("question-nav"))
    ]
    links = re.findall(r'<a href="#(q\d+)"(?: class="([a-z]+)")? aria-label="([^"]+)"', nav)
    return {anchor: (css, label) for anchor, css, label in links}, nav


def _anchor(attempt, variant) -> str:
    return f"q{attempt.item_ids.index(variant.item_id) + 1}"


def test_homework_marks_a_question_graded_correct(client, course, student):
    quiz = make_quiz(course, examples=EXAMPLES)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    decode = attempt.variants.get(item__template__slug="decode-step-memory-floor")
    service.submit_response(
        variant=decode,
        part_id="t",
        raw=f"{correct_answers(decode)['t']} s",
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    client.force_login(student)
    links, nav = _nav(client, attempt)
    assert "data-shows-correct" in nav
    done = _anchor(attempt, decode)
    other = next(anchor for anchor in links if anchor != done)
    assert links[done] == ("correct", f"Question {done[1:]}, correct")
    assert links[other] == ("", f"Question {other[1:]}, not answered yet")


def test_homework_tries_spent_without_a_right_answer_is_answered_not_correct(
    client, course, student
):
    quiz = make_quiz(course, examples=EXAMPLES, tries_per_variant=1)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    decode = attempt.variants.get(item__template__slug="decode-step-memory-floor")
    service.submit_response(
        variant=decode,
        part_id="t",
        raw=f"{correct_answers(decode)['t'] * 9:.4g} s",
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    client.force_login(student)
    links, _ = _nav(client, attempt)
    assert links[_anchor(attempt, decode)][0] == "answered"


def test_an_exam_navigator_never_tells_correctness(client, course, student):
    quiz = make_quiz(course, examples=EXAMPLES, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    for variant in attempt.variants.all():
        answers = correct_answers(variant)
        raw = f"{answers['t']} s" if "t" in answers else [str(answers["bound"][0])]
        part = "t" if "t" in answers else "bound"
        service.autosave(
            variant=variant, part_id=part, raw=raw, student=student, now=timezone.now()
        )
    client.force_login(student)
    links, nav = _nav(client, attempt)
    assert "data-shows-correct" not in nav
    assert {css for css, _ in links.values()} == {"answered"}
    assert "correct" not in nav.lower()


def test_an_exam_answer_that_cannot_be_read_asks_for_attention(client, course, student):
    quiz = make_quiz(course, examples=EXAMPLES, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    decode = attempt.variants.get(item__template__slug="decode-step-memory-floor")
    service.autosave(variant=decode, part_id="t", raw="banana", student=student, now=timezone.now())
    client.force_login(student)
    links, _ = _nav(client, attempt)
    anchor = _anchor(attempt, decode)
    assert links[anchor] == ("attention", f"Question {anchor[1:]}, an answer cannot be read")


def test_homework_a_question_with_some_parts_graded_is_partly_answered(client, course, student):
    quiz = make_quiz(course, examples=("kv-cache-fits", "decode-step-memory-floor"))
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    fits = attempt.variants.get(item__template__slug="kv-cache-fits")
    decode = attempt.variants.get(item__template__slug="decode-step-memory-floor")
    service.submit_response(
        variant=fits,
        part_id="kv",
        raw="1 B",  # graded, wrong, tries left: the part was answered
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    service.submit_response(
        variant=decode,
        part_id="t",
        raw=f"{correct_answers(decode)['t'] * 9:.4g} s",  # wrong, tries left: answered
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    client.force_login(student)
    links, _ = _nav(client, attempt)
    partly, whole = _anchor(attempt, fits), _anchor(attempt, decode)
    assert links[partly] == ("partial", f"Question {partly[1:]}, partly answered")
    assert links[whole] == ("answered", f"Question {whole[1:]}, answered")
