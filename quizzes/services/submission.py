"""Ending an attempt: submit it (an exam's grading is queued for the task worker,
`grading_run`), and the deadline that auto-submits it the next time anything touches it or
`close_expired_attempts` runs."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db import transaction

from quizzes.models import Attempt, AttemptStatus, QuizItem, QuizMode, ScoreOverride, Variant
from quizzes.services import grading_run, questions, scoring
from quizzes.services.availability import QuizRuleError, QuizWindow, student_window

SUBMITTED = "This attempt has been submitted; no more answers are accepted."


def check_open(attempt: Attempt, window: QuizWindow, now: datetime) -> None:
    """Refuse work on an attempt that is submitted or past its end.

    An attempt with a deadline ends at its deadline, the moment its timer counts down to: it
    was set from the student's window (at the start, or when an extension was granted), so it
    is never refused earlier by a close date it was allowed to run past. An attempt without
    one follows the window.
    """
    if attempt.status != AttemptStatus.IN_PROGRESS:
        raise QuizRuleError(SUBMITTED)
    if attempt.deadline and now > attempt.deadline:
        expire_if_due(attempt, now=now)
        raise QuizRuleError("Time is up: this attempt has been submitted with your saved answers.")
    if attempt.deadline:
        return
    refusal = window.refusal(now)
    if refusal:
        raise QuizRuleError(refusal)


def expire_if_due(attempt: Attempt, *, now: datetime) -> bool:
    """Auto-submit an open attempt whose deadline has passed; True when it is (now) closed."""
    if attempt.status != AttemptStatus.IN_PROGRESS:
        return True
    if attempt.deadline is None or now <= attempt.deadline:
        return False
    submit_attempt(attempt=attempt, student=attempt.student, now=now, auto=True)
    attempt.refresh_from_db()
    return True


def close_expired_attempts(*, now: datetime) -> int:
    """Auto-submit every open attempt past its deadline; the number closed."""
    closed = 0
    expired = Attempt.objects.filter(status=AttemptStatus.IN_PROGRESS, deadline__lt=now)
    for attempt in expired.select_related("quiz", "student").iterator():
        closed += submit_attempt(attempt=attempt, student=attempt.student, now=now, auto=True)
    return closed


def submit_attempt(*, attempt: Attempt, student, now: datetime, auto: bool = False) -> bool:
    """Submit an attempt; False when it was already submitted.

    The status changes under the attempt's lock, so from this transaction's commit every save
    and Check is refused: the saved answers are frozen. An exam is not graded here: its
    grading is queued (`grading_run`: the task worker grades it, exactly once) and the
    submission returns at once. Homework is scored here: its parts were graded one by one by
    the student's Checks, so there is nothing left to grade, only a sum to take. An automatic
    submission (deadline passed) is dated at the deadline.
    """
    if attempt.student_id != student.pk:
        raise QuizRuleError("That attempt is not yours.")
    quiz = attempt.quiz
    window = student_window(quiz, student)
    if not auto:
        check_open(attempt, window, now)
    moment = min(now, attempt.deadline) if auto and attempt.deadline else now
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().select_related("quiz").get(pk=attempt.pk)
        if locked.status != AttemptStatus.IN_PROGRESS:
            return False
        locked.is_late = locked.is_late or window.is_late(moment)
        locked.status = AttemptStatus.SUBMITTED
        locked.submitted_at = moment
        locked.auto_submitted = auto
        is_exam = quiz.mode == QuizMode.EXAM
        if is_exam:
            grading_run.mark_waiting(locked, now=now)
        else:
            grading_run.score_submitted(locked)
        locked.save()  # a grade change of its quiz (quizzes/stamps.py)
        if is_exam:
            grading_run.enqueue(attempt_id=locked.pk)
    return True


def score_attempt(attempt: Attempt, *, items, variants, late_penalty, overrides=()) -> Decimal:
    """Set an attempt's score and max score from its items, variants and overrides (no query):
    the one scoring of an attempt, for a submission, a regrade, an override and demo data."""
    by_item: dict[int, list] = {}
    for variant in variants:
        by_item.setdefault(variant.item_id, []).append(variant)
    attempt.score, attempt.max_score = scoring.attempt_total(
        items,
        by_item,
        is_late=attempt.is_late,
        late_penalty=late_penalty,
        overrides=overrides,
    )
    return attempt.score


def recompute_attempt_score(attempt: Attempt) -> Decimal | None:
    """Score a submitted attempt again from its stored variants and overrides and save it
    (after a regrade or an override): four queries, however many items it has."""
    if attempt.status != AttemptStatus.SUBMITTED or attempt.grading_queued_at is not None:
        return attempt.score  # an exam still being graded is scored when its grading ends
    items = list(QuizItem.objects.filter(pk__in=attempt.item_ids or []))
    if not items:
        items = list(QuizItem.objects.filter(variants__attempt=attempt).distinct())
    variants = Variant.objects.filter(attempt=attempt).only("item_id", "score", "is_practice")
    score_attempt(
        attempt,
        items=items,
        variants=list(variants),
        late_penalty=attempt.quiz.late_penalty,
        overrides=list(ScoreOverride.objects.filter(attempt=attempt)),
    )
    attempt.save(update_fields=["score", "max_score"])
    return attempt.score


def parts_to_look_at(attempt: Attempt) -> list[str]:
    """Exam: the parts that would score 0 as saved now ("Question 2, part 1: empty"), in the
    attempt's order; what the confirmation before a submission lists (the page's script lists
    the same from its save states, this is the server's own list for a page without it)."""
    saved = grading_run.saved_texts(attempt)
    variants = {v.item_id: v for v in attempt.variants.select_related("version")}
    found = []
    for number, item_id in enumerate(attempt.item_ids, start=1):
        variant = variants.get(item_id)
        if variant is None:
            continue
        try:
            parts = questions.template_for(variant.version).parts
        except questions.QuestionUnavailable:
            continue
        for index, part in enumerate(parts, start=1):
            name = f"Question {number}" + (f", part {index}" if len(parts) > 1 else "")
            status, _ = questions.saved_state(
                variant, part.id, saved.get((variant.pk, part.id), "")
            )
            if status == "empty":
                found.append(f"{name}: empty")
            elif status == "unreadable":
                found.append(f"{name}: cannot be read")
    return found
