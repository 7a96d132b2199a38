"""Grading a submitted exam on the task worker, exactly once.

A submission (`submission.submit_attempt`) freezes the attempt and returns at once: its status
is "submitted" (every later save or Check is refused, so the saved answers are final), its
score is None and `grading_queued_at` says since when it waits. One task
(`quizzes.tasks.grade_submission`) then grades it here:

- each question's parts are graded from the frozen saved answers and stored in one short
  transaction per question, so the results page shows the questions as they are graded (as
  PrairieLearn's external grading does). A part is stored at most once: the database's
  `one_exam_grade_per_part` constraint keeps the first grade when two runs race, and a part
  already stored is not graded again;
- `finish` scores the attempt. Its first statement is the claim: an UPDATE that clears
  `grading_queued_at` only while it is set. Two workers, a retry, or the results page's
  fallback may all get here; the row lock (PostgreSQL) or the write lock (SQLite) lets exactly
  one of them see one row changed, and only that one scores, counts the statistics, raises the
  page stamp and, by saving the score, sends it to the LMS (`lti.signals`). A run that fails
  before the claim commits leaves the attempt waiting, answers untouched, for the next try.

A part whose grader raises is logged (the error report sees it) and left ungraded, as a blank
part would be: one broken question must not hold a student's whole grade back, and its saved
answer stays stored for a regrade.

If the worker is down or behind, nobody waits forever: an attempt waiting longer than
`QUIZ_GRADING_INLINE_AFTER_SECONDS` is graded by the next request for its results page, and by
the worker's expiry sweep, through the same claim (`grade_if_overdue`, `grade_overdue`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from courseware import caching
from quizzes.models import (
    Attempt,
    AttemptStatus,
    Response,
    ResponseSource,
    SavedAnswer,
    ScoreOverride,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.grades import grade_fields, try_number_for
from quizzes.services.parts import grade_answer, states_of

logger = logging.getLogger(__name__)


def saved_texts(attempt: Attempt) -> dict[tuple[int, str], str]:
    """The attempt's saved answers: (variant pk, part id) -> text."""
    rows = SavedAnswer.objects.filter(variant__attempt=attempt)
    return {
        (variant, part): raw
        for variant, part, raw in rows.values_list("variant_id", "part_id", "raw")
    }


def mark_waiting(attempt: Attempt, *, now: datetime) -> None:
    """Inside the submission's transaction, with `attempt` locked: mark it waiting for its
    grade (the caller saves it, then calls `enqueue`)."""
    attempt.grading_queued_at = now
    attempt.score = None
    attempt.awaiting_grading = 0


def enqueue(*, attempt_id: int) -> None:
    """Enqueue the task that grades a submitted exam, after its row is saved waiting.

    With the database task backend the task's row is written in the submission's transaction,
    so a submission and its grading task commit together or not at all; a backend whose queue
    lives elsewhere is handed the task only after the commit (its worker must find the row
    frozen). The immediate backend (tests, a site run without a worker) grades here and now.
    """
    from quizzes.tasks import enqueue_grading  # the tasks module imports the services

    enqueue_grading(attempt_id)


def grade_submitted(*, attempt_id: int) -> bool:
    """Grade a submitted exam's parts not yet graded and score it; True when this call
    finished it, False when it was not waiting (graded already, by another run)."""
    attempt = Attempt.objects.select_related("quiz").filter(pk=attempt_id).first()
    if attempt is None or attempt.grading_queued_at is None:
        return False
    variants = list(attempt.variants.select_related("version", "item"))
    saved = saved_texts(attempt)
    graded = set(
        Response.objects.filter(variant__attempt=attempt, source=ResponseSource.EXAM).values_list(
            "variant_id", "part_id"
        )
    )
    for variant in variants:
        rows = [
            Response(
                variant=variant,
                part_id=part_id,
                source=ResponseSource.EXAM,
                raw=raw,
                try_number=try_number_for(grade, 0),
                **grade_fields(grade),
            )
            for part_id, raw, grade in _grade_variant(attempt, variant, saved, graded)
        ]
        if rows:
            with transaction.atomic():
                # A grade a concurrent run stored first is kept (the constraint), never doubled.
                Response.objects.bulk_create(rows, ignore_conflicts=True)
    return finish(attempt_id=attempt.pk)


def _grade_variant(attempt: Attempt, variant: Variant, saved: dict, graded: set) -> list[tuple]:
    """(part id, saved text, grade) for each of the variant's answered parts not yet graded."""
    variant.attempt = attempt
    states, _ = states_of(variant, responses=[])
    found = []
    for part_id in states:
        raw = saved.get((variant.pk, part_id), "")
        if (variant.pk, part_id) in graded or not raw.strip():
            continue
        kind = questions.kind_of(variant, part_id)
        try:
            grade = grade_answer(variant, part_id, kind.from_stored(raw), states)
        except Exception:  # noqa: BLE001 - one broken part must not hold the whole grade back
            logger.exception("Grading attempt %s, part %s failed", attempt.pk, part_id)
            continue
        found.append((part_id, raw, grade))
    return found


def finish(*, attempt_id: int) -> bool:
    """Claim a graded attempt and score it from its stored responses; False when another run
    claimed it first."""
    # The claim, the variants' scores and the attempt's raise its page stamp and its quiz's
    # statistics once each (quizzes/stamps.py).
    with transaction.atomic(), caching.batch():
        claimed = Attempt.objects.filter(
            pk=attempt_id, status=AttemptStatus.SUBMITTED, grading_queued_at__isnull=False
        ).update(grading_queued_at=None)
        if not claimed:
            return False
        locked = Attempt.objects.select_related("quiz").get(pk=attempt_id)
        score_submitted(locked)
        # Saving the score is what sends it to the LMS (lti.signals): once, here.
        locked.save(update_fields=["score", "max_score", "awaiting_grading"])
    return True


def score_submitted(locked: Attempt) -> None:
    """Score a locked, submitted attempt from its stored responses (not saved): each variant's
    score (stored), the parts awaiting a staff grade and the attempt's score and maximum."""
    from quizzes.services.submission import score_attempt  # submission imports this module

    variants = list(locked.variants.select_related("version", "item"))
    by_variant: dict[int, list] = {}
    for response in Response.objects.filter(variant__attempt=locked):
        by_variant.setdefault(response.variant_id, []).append(response)
    rescored, awaiting = [], 0
    for variant in variants:
        variant.attempt = locked
        states, points = states_of(variant, by_variant.get(variant.pk, []), submitted=True)
        if not variant.is_practice:
            awaiting += scoring.awaiting_grading(states)
        score = scoring.variant_score(states, points)
        if score != variant.score:
            variant.score = score
            rescored.append(variant)
    Variant.objects.bulk_update(rescored, ["score"])
    items_by_pk = {v.item_id: v.item for v in variants}
    score_attempt(
        locked,
        items=[items_by_pk[pk] for pk in locked.item_ids if pk in items_by_pk],
        variants=variants,
        late_penalty=locked.quiz.late_penalty,
        overrides=ScoreOverride.objects.filter(attempt=locked),
    )
    locked.awaiting_grading = awaiting


def is_overdue(attempt: Attempt, *, now: datetime) -> bool:
    """Whether the attempt's grading has waited longer than the worker is given."""
    if attempt.grading_queued_at is None:
        return False
    waited = timedelta(seconds=settings.QUIZ_GRADING_INLINE_AFTER_SECONDS)
    return attempt.grading_queued_at < now - waited


def grade_if_overdue(attempt: Attempt, *, now: datetime) -> bool:
    """Grade an attempt here (in the request) when the worker has not in time; whether it did.
    Exactly once all the same: `grade_submitted` goes through the same claim."""
    if not is_overdue(attempt, now=now):
        return False
    done = grade_submitted(attempt_id=attempt.pk)
    attempt.refresh_from_db()
    return done


def grade_overdue(*, now: datetime, limit: int = 200) -> int:
    """Grade the attempts whose grading task has waited too long (lost, or a worker busy with
    a long export); the number this call finished."""
    waited = now - timedelta(seconds=settings.QUIZ_GRADING_INLINE_AFTER_SECONDS)
    late = Attempt.objects.filter(grading_queued_at__lt=waited).order_by("grading_queued_at")
    return sum(grade_submitted(attempt_id=pk) for pk in late.values_list("pk", flat=True)[:limit])


GRADED, WAITING, UNANSWERED = "graded", "waiting", "unanswered"


def progress(attempt: Attempt) -> list[str]:
    """For each question of an exam being graded, in the attempt's order: GRADED once its
    parts' grades are stored (one transaction per question, `grade_submitted`), WAITING
    before, UNANSWERED when nothing was saved (nothing to grade). One query: the results page
    of an attempt being graded, and the status it polls every 2 s, ask this while a class
    waits for its grades."""
    graded = Response.objects.filter(variant=OuterRef("pk"), source=ResponseSource.EXAM)
    answered = SavedAnswer.objects.filter(variant=OuterRef("pk")).exclude(raw="")
    rows = (
        attempt.variants.filter(is_practice=False)
        .annotate(graded=Exists(graded), answered=Exists(answered))
        .values_list("item_id", "graded", "answered")
    )
    states = {
        item_id: GRADED if is_graded else WAITING if is_answered else UNANSWERED
        for item_id, is_graded, is_answered in rows
    }
    return [states[pk] for pk in attempt.item_ids if pk in states]
