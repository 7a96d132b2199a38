"""Nothing before its release (issue 33, S4, and the formula-ratio partial finding).

The review: "My progress" showed an exam's score changes before its results were released
(old and new score, the instructor's private reason, per-part regrade verdicts "incorrect ->
correct"); and a formula's "28x the expected one" feedback gave the answer away under the
"never" answer policy. Each page a student can reach is rendered under every release policy
and searched for the withheld values.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import AnswerRelease, RegradeRun, RegradeStatus, ReleasePolicy, Response
from quizzes.services import attempts as service
from quizzes.services.instructor import override_score
from quizzes.services.questions import common_error_values, correct_answers
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

REASON = "PRIVATE-REASON-7731: forgave the unit"
VERDICT = "incorrect → correct"
MISTAKE = "bits-for-bytes"
MISTAKE_TITLE = "Bits taken for bytes"  # content/misconceptions.yaml


def _exam(course, student, instructor, *, release: str, show_answers: str):
    quiz = make_quiz(
        course,
        examples=["decode-step-memory-floor"],
        mode="exam",
        title="Checkpoint",
        release=release,
        show_answers=show_answers,
        due_at=timezone.now() + timedelta(days=2),
    )
    now = timezone.now()
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    variant = attempt.variants.get()
    slip = common_error_values(variant)["t"][MISTAKE]  # the grader names the slip
    service.autosave(variant=variant, part_id="t", raw=f"{slip:.6g} s", student=student, now=now)
    service.submit_attempt(attempt=attempt, student=student, now=now)
    attempt.refresh_from_db()
    override_score(attempt=attempt, score="0.75", reason=REASON, by=instructor)
    # An applied regrade regraded the attempt's responses (`services.regrade`) and lists its
    # change to part t.
    assert Response.objects.filter(variant__attempt=attempt).update(regraded_at=now) == 1
    RegradeRun.objects.create(
        offering=quiz.offering,
        template=quiz.items.get().template,
        target_version=quiz.items.get().template.current_version,
        status=RegradeStatus.APPLIED,
        applied_at=timezone.now(),
        preview=[
            {
                "attempt": attempt.pk,
                "student": student.username,
                "part": "t",
                "old_status": "incorrect",
                "new_status": "correct",
            }
        ],
    )
    return quiz, attempt


def _pages(client, quiz, attempt) -> dict[str, str]:
    urls = {
        "my progress": reverse("quizzes:progress", args=[quiz.offering.slug]),
        "quiz list": reverse("quizzes:quiz_list", args=[quiz.offering.slug]),
        "quiz page": reverse("quizzes:quiz_detail", args=[quiz.offering.slug, quiz.slug]),
        "results": reverse("quizzes:attempt_results", args=[quiz.offering.slug, attempt.pk]),
    }
    # Machine-readable timestamps (`<time datetime="...22:44:40.756357Z">`) can hold any digits,
    # "0.75" among them: the withheld figures are looked for in what the page shows.
    return {
        name: re.sub(r'datetime="[^"]*"', "", client.get(url).content.decode())
        for name, url in urls.items()
    }


@pytest.mark.parametrize("show_answers", AnswerRelease.values)
def test_an_unreleased_exam_shows_no_score_change_reason_verdict_or_diagnosis(
    client, course, student, instructor, show_answers
):
    quiz, attempt = _exam(
        course, student, instructor, release=ReleasePolicy.AFTER_DUE, show_answers=show_answers
    )
    client.force_login(student)
    for name, html in _pages(client, quiz, attempt).items():
        for withheld in (REASON, "PRIVATE-REASON", VERDICT, "0.75", MISTAKE_TITLE):
            assert withheld not in html, f"{withheld!r} on {name} before the release"
        assert "Changes to your scores" not in html and "Changes to this score" not in html


@pytest.mark.parametrize("show_answers", AnswerRelease.values)
def test_once_released_the_same_pages_show_them(client, course, student, instructor, show_answers):
    quiz, attempt = _exam(
        course, student, instructor, release=ReleasePolicy.IMMEDIATE, show_answers=show_answers
    )
    client.force_login(student)
    pages = _pages(client, quiz, attempt)
    progress = pages["my progress"]
    assert REASON in progress and VERDICT in progress and "0.75" in progress
    assert MISTAKE_TITLE in progress
    assert REASON in pages["results"] and VERDICT in pages["results"]


# -- a formula's constant factor --------------------------------------------------------------


def _factor_of_28(client, course, student, show_answers: str) -> str:
    quiz = make_quiz(
        course,
        examples=["kv-cache-bytes-formula"],
        tries_per_variant=2,
        show_answers=show_answers,
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    expected = correct_answers(variant)["kv"]
    checked = service.check_answer(
        variant=variant,
        part_id="kv",
        raw=f"28*({expected})",
        student=student,
        idempotency_key="k" * 16,
        now=timezone.now(),
    )
    assert "28×" in checked.response.feedback  # the grader's verdict is stored whole
    client.force_login(student)
    return client.get(attempt.get_absolute_url()).content.decode()


@pytest.mark.parametrize("show_answers", AnswerRelease.values)
def test_the_constant_factor_is_not_named_while_the_answer_is_withheld(
    client, course, student, show_answers
):
    # One try of two used: the part is not final, so no policy releases its answer yet.
    html = _factor_of_28(client, course, student, show_answers)
    assert "28×" not in html and "28 ×" not in html
    assert "differs from the expected one by a constant factor" in html


def test_the_factor_is_named_once_the_part_is_final_and_its_answer_released(
    client, course, student
):
    quiz = make_quiz(
        course,
        examples=["kv-cache-bytes-formula"],
        tries_per_variant=1,
        show_answers=AnswerRelease.AFTER_FINAL,
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    expected = correct_answers(variant)["kv"]
    service.check_answer(
        variant=variant,
        part_id="kv",
        raw=f"28*({expected})",
        student=student,
        idempotency_key="f" * 16,
        now=timezone.now(),
    )
    client.force_login(student)
    html = client.get(attempt.get_absolute_url()).content.decode()
    assert "28× the expected one" in html
