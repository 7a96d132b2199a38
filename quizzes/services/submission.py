"""Ending an attempt: submit it (grading an exam's saved answers), and the deadline that
auto-submits it the next time anything touches it or `close_expired_attempts` runs."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.db.models import F

from quizzes.models import (
    Attempt,
    AttemptStatus,
    QuizItem,
    QuizMode,
    Response,
    ResponseSource,
    SavedAnswer,
    ScoreOverride,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.availability import QuizRuleError, QuizWindow, student_window
from quizzes.services.grades import grade_fields, statistics_changed, try_number_for
from quizzes.services.parts import grade_answer, states_of

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


def _saved_texts(attempt: Attempt) -> dict[tuple[int, str], str]:
    """The attempt's saved answers: (variant pk, part id) -> text."""
    rows = SavedAnswer.objects.filter(variant__attempt=attempt)
    return {
        (variant, part): raw
        for variant, part, raw in rows.values_list("variant_id", "part_id", "raw")
    }


def _grade_saved_answers(
    attempt: Attempt, variants: list[Variant], saved: dict, only: set | None = None
) -> list[tuple]:
    """Exam: grade every saved answer not yet graded (`only`: just these (variant, part) keys).

    Called before any transaction is opened, so grading never holds the attempt's lock; the
    submission then re-reads the saved answers under the lock and grades here again only the
    few a save changed in between.
    """
    graded = set(
        Response.objects.filter(variant__attempt=attempt).values_list("variant_id", "part_id")
    )
    results = []
    for variant in variants:
        variant.attempt = attempt
        states, _ = states_of(variant, responses=[])
        for part_id in states:
            if only is not None and (variant.pk, part_id) not in only:
                continue
            raw = saved.get((variant.pk, part_id), "")
            if (variant.pk, part_id) in graded or not raw.strip():
                continue
            kind = questions.kind_of(variant, part_id)
            try:
                clean = kind.from_stored(raw)
                grade = grade_answer(variant, part_id, clean, states)
            except Exception:  # noqa: BLE001 - one broken part must not block the submission
                continue
            results.append((variant, part_id, raw, grade))
    return results


def submit_attempt(*, attempt: Attempt, student, now: datetime, auto: bool = False) -> bool:
    """Submit an attempt and store its score; False when it was already submitted.

    An exam's saved answers are graded now (one graded submission per part). An automatic
    submission (deadline passed) is dated at the deadline.
    """
    if attempt.student_id != student.pk:
        raise QuizRuleError("That attempt is not yours.")
    quiz = attempt.quiz
    window = student_window(quiz, student)
    if not auto:
        check_open(attempt, window, now)
    variants = list(attempt.variants.select_related("version", "item"))
    is_exam = quiz.mode == QuizMode.EXAM
    saved = _saved_texts(attempt) if is_exam else {}
    pending = _grade_saved_answers(attempt, variants, saved) if is_exam else []
    moment = min(now, attempt.deadline) if auto and attempt.deadline else now
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.status != AttemptStatus.IN_PROGRESS:
            return False
        if is_exam:
            # A save that landed after the grading above (the Submit click's own last save) is
            # graded now, under the lock, in place of the text it replaced: what is graded is
            # what is stored. Saves after this point are refused (autosave checks this row).
            now_saved = _saved_texts(locked)
            changed = {
                key
                for key in now_saved.keys() | saved.keys()
                if now_saved.get(key) != saved.get(key)
            }
            if changed:
                pending = [entry for entry in pending if (entry[0].pk, entry[1]) not in changed]
                pending += _grade_saved_answers(locked, variants, now_saved, only=changed)
        # The server's own namespace: no key, one exam grade per part (a constraint). One
        # insert for every part; a grade already stored (the constraint) is kept, never doubled.
        Response.objects.bulk_create(
            [
                Response(
                    variant=variant,
                    part_id=part_id,
                    source=ResponseSource.EXAM,
                    raw=raw,
                    try_number=try_number_for(grade, 0),
                    **grade_fields(grade),
                )
                for variant, part_id, raw, grade in pending
            ],
            ignore_conflicts=True,
        )
        responses = list(Response.objects.filter(variant__attempt=attempt))
        by_variant: dict[int, list] = {}
        for response in responses:
            by_variant.setdefault(response.variant_id, []).append(response)
        items_by_pk = {v.item_id: v.item for v in variants}
        variants_by_item: dict[int, list] = {}
        rescored = []
        awaiting = 0
        for variant in variants:
            variant.attempt = locked
            states, points = states_of(variant, by_variant.get(variant.pk, []), submitted=True)
            if not variant.is_practice:
                awaiting += scoring.awaiting_grading(states)
            score = scoring.variant_score(states, points)
            if score != variant.score:
                variant.score = score
                rescored.append(variant)
            variants_by_item.setdefault(variant.item_id, []).append(variant)
        Variant.objects.bulk_update(rescored, ["score"])
        items = [items_by_pk[pk] for pk in locked.item_ids if pk in items_by_pk]
        locked.is_late = locked.is_late or window.is_late(moment)
        score_attempt(
            locked,
            items=items,
            variants=variants,
            late_penalty=quiz.late_penalty,
            overrides=ScoreOverride.objects.filter(attempt=locked),
        )
        locked.awaiting_grading = awaiting
        locked.status = AttemptStatus.SUBMITTED
        locked.submitted_at = moment
        locked.auto_submitted = auto
        locked.page_stamp = F("page_stamp") + 1  # the attempt's page changes (services.page_stamp)
        locked.save()
        statistics_changed(quiz_ids=[locked.quiz_id])
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
    if attempt.status != AttemptStatus.SUBMITTED:
        return attempt.score
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
    # A new score follows a regrade or an override: the attempt's page changes with it.
    attempt.page_stamp = F("page_stamp") + 1
    attempt.save(update_fields=["score", "max_score", "page_stamp"])
    attempt.__dict__.pop("page_stamp")  # deferred now: read again only if asked for
    return attempt.score


def parts_to_look_at(attempt: Attempt) -> list[str]:
    """Exam: the parts that would score 0 as saved now ("Question 2, part 1: empty"), in the
    attempt's order; what the confirmation before a submission lists (the page's script lists
    the same from its save states, this is the server's own list for a page without it)."""
    saved = _saved_texts(attempt)
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
