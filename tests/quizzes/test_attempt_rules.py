"""The attempt workflows: availability, variants, tries, diagnosis, carry-forward and scores."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from quizzes.models import Attempt, Extension, Response, ScoreOverride
from quizzes.services import attempts as service
from quizzes.services.availability import QuizRuleError
from quizzes.services.questions import correct_answers
from tests.factories import EnrollmentFactory, QuizItemFactory, check_answer, make_quiz

pytestmark = pytest.mark.django_db


def _answer(variant, part, raw, student, *, now=None):
    return check_answer(variant, student, raw, part, now=now)


def _seconds(variant) -> float:
    return correct_answers(variant)["t"]


@pytest.fixture
def quiz(course):
    return make_quiz(course, examples=["decode-step-memory-floor"], tries_per_variant=2)


def test_reload_keeps_the_numbers_and_another_student_gets_others(course, quiz, student):
    now = timezone.now()
    first = service.start_attempt(quiz=quiz, student=student, now=now)
    again = service.start_attempt(quiz=quiz, student=student, now=now)
    assert again.pk == first.pk  # one open attempt: starting again continues it
    mine = first.variants.get()
    others = []
    for _ in range(6):
        other = EnrollmentFactory(course=course).user
        others.append(service.start_attempt(quiz=quiz, student=other, now=now).variants.get())
    assert any(o.parameters != mine.parameters for o in others)
    assert len({o.seed for o in others} | {mine.seed}) == 7
    assert "hex" not in mine.parameters  # the seed lives in its own column, as hex
    assert bytes.fromhex(mine.seed)


def test_invalid_answer_costs_no_try_and_says_what_to_fix(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    response = _answer(variant, "t", "0,004 s", student)
    assert response.status == "invalid"
    assert response.try_number is None
    assert response.feedback  # says what to fix
    nxt = _answer(variant, "t", "1 s", student)
    assert nxt.try_number == 1


def test_recognised_slip_gets_its_diagnosis(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    response = _answer(variant, "t", f"{_seconds(variant) * 8:.6g} s", student)
    assert response.status == "incorrect"
    assert response.diagnosis == "bits-for-bytes"
    assert "bits" in response.feedback


def test_tries_run_out_then_fresh_numbers_count_and_best_variant_wins(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    _answer(variant, "t", "1 s", student)
    _answer(variant, "t", "2 s", student)
    with pytest.raises(QuizRuleError, match="finished"):
        _answer(variant, "t", f"{_seconds(variant)} s", student)
    assert Response.objects.filter(variant=variant).count() == 2
    fresh = service.new_variant(variant=variant, student=student, now=timezone.now())
    assert fresh.index == 1 and not fresh.is_practice
    assert fresh.seed != variant.seed
    _answer(fresh, "t", f"{_seconds(fresh)} s", student)
    fresh.refresh_from_db()
    assert fresh.score == 1.0
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    assert attempt.score == Decimal("1.000") and attempt.max_score == Decimal("1.000")


def test_new_numbers_before_finishing_are_refused(quiz, student):
    variant = service.start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()
    with pytest.raises(QuizRuleError):
        service.new_variant(variant=variant, student=student, now=timezone.now())


def test_practice_after_full_marks_never_lowers_the_score(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    _answer(variant, "t", f"{_seconds(variant)} s", student)
    practice = service.new_variant(variant=variant, student=student, now=timezone.now())
    assert practice.is_practice
    _answer(practice, "t", "1 s", student)
    _answer(practice, "t", "1 s", student)
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    assert attempt.score == Decimal("1.000")


def test_error_carried_forward_gives_full_marks_for_a_consistent_later_part(course, student):
    quiz = make_quiz(course, examples=["kv-cache-fits"])
    variant = service.start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()
    answers = correct_answers(variant)
    wrong_kv = answers["kv"] * 3
    first = _answer(variant, "kv", f"{wrong_kv:.8g} B", student)
    assert first.status == "incorrect"
    weights = answers["total"] - answers["kv"]
    second = _answer(variant, "total", f"{weights + wrong_kv:.8g} B", student)
    assert second.status == "correct"
    assert "carried forward" in second.feedback


def test_answer_longer_than_the_limit_is_refused_and_not_stored(quiz, student):
    variant = service.start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()
    with pytest.raises(QuizRuleError, match="limit"):
        _answer(variant, "t", "1" * 5000, student)
    assert not Response.objects.exists()


def test_quiz_not_yet_open_refuses_to_start(course, student):
    quiz = make_quiz(course, opens_at=timezone.now() + timedelta(days=1))
    with pytest.raises(QuizRuleError, match="opens"):
        service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert not Attempt.objects.exists()


def test_late_work_is_refused_when_the_policy_says_so(course, student):
    quiz = make_quiz(course, due_at=timezone.now() - timedelta(hours=1), late_policy="refuse")
    with pytest.raises(QuizRuleError, match="late work is not accepted"):
        service.start_attempt(quiz=quiz, student=student, now=timezone.now())


def test_an_extension_moves_the_due_date_for_that_student_only(course, student):
    quiz = make_quiz(course, due_at=timezone.now() - timedelta(hours=1), late_policy="refuse")
    Extension.objects.create(quiz=quiz, student=student, due_at=timezone.now() + timedelta(days=1))
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert not attempt.is_late
    other = EnrollmentFactory(course=course).user
    with pytest.raises(QuizRuleError):
        service.start_attempt(quiz=quiz, student=other, now=timezone.now())


def test_late_attempt_with_penalty_loses_that_fraction(course, student):
    now = timezone.now()
    quiz = make_quiz(
        course,
        due_at=now - timedelta(hours=1),
        closes_at=now + timedelta(days=1),
        late_policy="penalty",
        late_penalty=Decimal("0.25"),
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    assert attempt.is_late
    variant = attempt.variants.get()
    _answer(variant, "t", f"{_seconds(variant)} s", student, now=now)
    service.submit_attempt(attempt=attempt, student=student, now=now)
    attempt.refresh_from_db()
    assert attempt.score == Decimal("0.750")


def test_a_post_after_the_close_is_refused_and_stored_nowhere(course, student):
    now = timezone.now()
    quiz = make_quiz(course, closes_at=now + timedelta(minutes=5))
    variant = service.start_attempt(quiz=quiz, student=student, now=now).variants.get()
    later = now + timedelta(minutes=10)
    with pytest.raises(QuizRuleError):
        _answer(variant, "t", "1 ms", student, now=later)
    assert not Response.objects.exists()


def test_attempt_limit_is_enforced(course, student):
    quiz = make_quiz(course, max_attempts=1)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    with pytest.raises(QuizRuleError, match="the one attempt this quiz allows"):
        service.start_attempt(quiz=quiz, student=student, now=timezone.now())


def test_pools_draw_the_configured_number_deterministically(course, student):
    quiz = make_quiz(
        course, examples=["decode-step-memory-floor", "bound-by-what", "kv-cache-fits"]
    )
    quiz.items.update(pool="bank")
    quiz.pools = {"bank": 2}
    quiz.save()
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert len(attempt.item_ids) == 2
    assert attempt.variants.count() == 2
    drawn = service.draw_items(quiz, list(quiz.items.all()), student=student, number=attempt.number)
    assert [i.pk for i in drawn] == attempt.item_ids


def test_score_sums_points_times_best_variant_score(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor", "bound-by-what"])
    quiz.items.filter(position=1).update(points=3)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    first = attempt.variants.get(item__position=1)
    _answer(first, "t", f"{_seconds(first)} s", student)
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    assert attempt.max_score == Decimal("4.000")
    assert attempt.score == Decimal("3.000")


def test_the_latest_item_override_replaces_that_items_score(course, student, instructor):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    item = quiz.items.get()
    ScoreOverride.objects.create(attempt=attempt, item=item, score=Decimal("0.2"), reason="a")
    ScoreOverride.objects.create(attempt=attempt, item=item, score=Decimal("0.5"), reason="b")
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    assert attempt.score == Decimal("0.500")


def test_items_without_a_published_version_refuse_to_start(course, student):
    quiz = make_quiz(course, examples=[])
    QuizItemFactory(quiz=quiz, template__publish=False, template__example="bound-by-what")
    with pytest.raises(QuizRuleError, match="no published version"):
        service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    assert not Attempt.objects.exists()
