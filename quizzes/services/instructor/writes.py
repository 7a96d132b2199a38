"""What instructors record about their class: manual score overrides and per-student
extensions. Each write is one keyword-only function inside a transaction; each raises
ValidationError with a message meant for the instructor.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from quizzes.models import (
    Attempt,
    AttemptStatus,
    Extension,
    Quiz,
    QuizItem,
    ScoreOverride,
    Variant,
)
from quizzes.services.availability import student_window
from quizzes.services.submission import recompute_attempt_score


def _decimal(value, what: str) -> Decimal:
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValidationError(f"{what} must be a number, like 7.5.") from None
    if not number.is_finite():
        raise ValidationError(f"{what} must be a finite number.")
    return number


def item_points(attempt: Attempt, item: QuizItem) -> Decimal:
    """The points an item currently earns in an attempt: latest item override, else best variant."""
    latest = (
        ScoreOverride.objects.filter(attempt=attempt, item=item).order_by("-created_at", "-pk")
    ).first()
    if latest is not None:
        return latest.score
    best = Variant.objects.filter(attempt=attempt, item=item, is_practice=False).aggregate(
        best=Max("score")
    )["best"]
    return (item.points * Decimal(str(best or 0))).quantize(Decimal("0.001"))


IN_PROGRESS_MESSAGE = (
    "This attempt is still in progress: overrides apply to submitted attempts. "
    "Override the score once the student has submitted it."
)


def override_score(
    *, attempt: Attempt, score, reason: str, by, item: QuizItem | None = None
) -> ScoreOverride:
    """Record a manual score (points) for a submitted attempt or one of its items, with who and
    why.

    The attempt's score follows: an attempt override replaces it; an item override shifts it by
    the item's change. An attempt the student is still working on is refused: its score is not
    final, and an override recorded now would silently replace whatever the student goes on to
    earn. Raises ValidationError with a message for the instructor.
    """
    if attempt.status != AttemptStatus.SUBMITTED:
        raise ValidationError(IN_PROGRESS_MESSAGE)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Give a reason for the override; it is kept with the score.")
    score = _decimal(score, "The score")
    if item is not None and item.quiz_id != attempt.quiz_id:
        raise ValidationError("That question is not part of this attempt's quiz.")
    ceiling = item.points if item is not None else attempt.max_score
    if score < 0 or (ceiling and score > ceiling):
        raise ValidationError(f"The score must be between 0 and {ceiling.normalize():f} points.")
    with transaction.atomic():
        attempt = Attempt.objects.select_for_update().get(pk=attempt.pk)
        previous = item_points(attempt, item) if item is not None else attempt.score
        override = ScoreOverride.objects.create(
            attempt=attempt,
            item=item,
            score=score,
            previous_score=previous,
            reason=reason,
            created_by=by,
        )
        recompute_attempt_score(attempt)  # the override and the score raise the stamps
    return override


def grant_extension(
    *,
    quiz: Quiz,
    student,
    by,
    opens_at: datetime | None = None,
    due_at: datetime | None = None,
    closes_at: datetime | None = None,
    extra_minutes: int = 0,
    extra_attempts: int = 0,
    reason: str = "",
) -> Extension:
    """Give one student other dates, extra minutes and/or extra attempts on a quiz (replacing
    any earlier extension of theirs on it; it wins field by field over their groups').

    Each attempt the student has open gets the deadline it would have been given at its start
    under the new terms (`QuizWindow.deadline_for`): the time limit (times their multiplier)
    plus the extra minutes from its start, never past the student's last moment. So a new
    close date counts as well as extra minutes; extra minutes on an attempt the close would
    cut short need a later close date too. The same rule as at the start, so a smaller
    extension replacing a larger one shortens the deadline again.
    """
    terms = checked_terms(
        opens_at=opens_at,
        due_at=due_at,
        closes_at=closes_at,
        extra_minutes=extra_minutes,
        extra_attempts=extra_attempts,
        reason=reason,
        by=by,
    )
    with transaction.atomic():
        extension, _ = Extension.objects.select_for_update().update_or_create(
            quiz=quiz, student=student, defaults=terms
        )
        refresh_open_deadlines(quizzes=[quiz], student_ids=[student.pk])
    return extension


def check_terms(*, opens_at, due_at, closes_at, extra_minutes, extra_attempts) -> None:
    """The rules every extension's terms follow (ValidationError for the instructor)."""
    if not any((opens_at, due_at, closes_at, extra_minutes, extra_attempts)):
        raise ValidationError(
            "Set another open, due or close date, extra minutes or extra attempts."
        )
    if extra_minutes < 0 or extra_attempts < 0:
        raise ValidationError("Extra minutes and attempts cannot be negative.")
    if due_at and closes_at and closes_at < due_at:
        raise ValidationError("The close date must not come before the due date.")
    if opens_at and (due_at or closes_at) and opens_at >= (due_at or closes_at):
        raise ValidationError("The quiz must open before it is due or closes.")


def checked_terms(
    *, opens_at, due_at, closes_at, extra_minutes, extra_attempts, reason: str, by
) -> dict:
    """An extension's fields as stored (a student's or a group's), once `check_terms` took
    them."""
    check_terms(
        opens_at=opens_at,
        due_at=due_at,
        closes_at=closes_at,
        extra_minutes=extra_minutes,
        extra_attempts=extra_attempts,
    )
    return {
        "opens_at": opens_at,
        "due_at": due_at,
        "closes_at": closes_at,
        "extra_minutes": extra_minutes,
        "extra_attempts": extra_attempts,
        "reason": reason.strip()[:300],
        "granted_by": by,
    }


def refresh_open_deadlines(*, quizzes, student_ids=None) -> int:
    """Give each open attempt at `quizzes` (of `student_ids`, or everyone's) the deadline its
    student's current terms give it from its start; the number changed. Call inside the
    transaction that changed the terms."""
    changed = 0
    attempts = Attempt.objects.select_for_update().filter(
        quiz__in=quizzes, status=AttemptStatus.IN_PROGRESS
    )
    if student_ids is not None:
        attempts = attempts.filter(student_id__in=list(student_ids))
    for attempt in attempts.select_related("quiz", "student"):
        deadline = student_window(attempt.quiz, attempt.student).deadline_for(attempt.started_at)
        if deadline != attempt.deadline:
            attempt.deadline = deadline
            attempt.save(update_fields=["deadline"])
            changed += 1
    return changed
