"""Taking a quiz: start an attempt, answer parts, autosave, fresh variants, submit, expire.

Every rule is enforced here, not in the pages: availability (dates, extension, late policy,
attempt limit), one open attempt per student and quiz, the student's own variants, counted tries,
idempotent submissions, the exam deadline. Each workflow is one keyword-only function inside
`transaction.atomic`; grading itself (up to the grader's time limit for a formula) runs before
the transaction, so a slow answer never holds a database lock.
"""

from __future__ import annotations

import json
import random
import re
import time
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Max

from quizzes import engine
from quizzes.models import (
    Attempt,
    AttemptStatus,
    QuizItem,
    QuizMode,
    Response,
    SavedAnswer,
    ScoreOverride,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.availability import QuizRuleError, QuizWindow, student_window

__all__ = [
    "QuizRuleError",
    "autosave",
    "close_expired_attempts",
    "expire_if_due",
    "new_variant",
    "start_attempt",
    "submit_attempt",
    "submit_response",
]

_KEY = re.compile(r"^[A-Za-z0-9-]{8,64}$")


def _retry_when_locked(work, *, attempts: int = 60):
    """Run `work()`, retrying while SQLite reports its lock as busy.

    SQLite allows one writer at a time; a concurrent submission may find the lock taken (the
    in-memory test database reports it at once instead of waiting). Other databases never
    raise this message, so elsewhere this is a plain call.
    """
    for attempt in range(attempts):
        try:
            return work()
        except OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.01 + random.random() * 0.04)
    raise AssertionError("unreachable")


def _secret() -> bytes:
    return settings.SECRET_KEY.encode()


# -- starting --------------------------------------------------------------------------------


def draw_items(quiz, items: list[QuizItem], *, student, number: int) -> list[QuizItem]:
    """The items an attempt asks: every unpooled item, and `quiz.pools[name]` of each pool.

    The draw is seeded like a variant (secret, student, quiz, attempt number), so it is stable
    for the attempt and differs between students and attempts.
    """
    chosen = [item for item in items if not item.pool]
    for pool, count in sorted((quiz.pools or {}).items()):
        members = [item for item in items if item.pool == pool]
        seed = engine.variant_seed(_secret(), "pool", student.pk, quiz.pk, number, pool)
        rng = random.Random(seed)
        chosen += rng.sample(members, min(int(count), len(members)))
    # Items of a pool not named in quiz.pools are all asked, rather than silently dropped.
    named = set(quiz.pools or {})
    chosen += [item for item in items if item.pool and item.pool not in named]
    return sorted(chosen, key=lambda item: item.position)


def _version_for(item: QuizItem):
    version = item.pinned_version or item.template.current_version
    if version is None:
        raise QuizRuleError(f"Question {item.position} of this quiz has no published version yet.")
    return version


def _make_variant(*, attempt: Attempt, item: QuizItem, index: int, practice: bool) -> Variant:
    version = _version_for(item)
    seed = engine.variant_seed(_secret(), attempt.student_id, item.pk, attempt.number, index)
    try:
        fields = questions.new_variant_fields(version, seed)
    except questions.QuestionUnavailable:
        raise
    except Exception as error:  # noqa: BLE001 - a template bug must not surface as a 500
        raise QuizRuleError(
            f"Question {item.position} could not be generated; your instructor has been told."
        ) from error
    return Variant.objects.create(
        attempt=attempt, item=item, version=version, index=index, is_practice=practice, **fields
    )


def start_attempt(*, quiz, student, now: datetime) -> Attempt:
    """Start the student's next attempt, or return the one already open.

    Raises QuizRuleError when the quiz is not open to this student or the attempt limit is used.
    """
    open_attempt = Attempt.objects.filter(
        quiz=quiz, student=student, status=AttemptStatus.IN_PROGRESS
    ).first()
    if open_attempt is not None and not expire_if_due(open_attempt, now=now):
        return open_attempt
    window = student_window(quiz, student)
    refusal = window.refusal(now)
    if refusal:
        raise QuizRuleError(refusal)
    items = list(
        quiz.items.select_related("template__current_version", "pinned_version").order_by(
            "position"
        )
    )
    if not items:
        raise QuizRuleError("This quiz has no questions yet.")
    try:
        with transaction.atomic():
            used = Attempt.objects.filter(quiz=quiz, student=student).aggregate(n=Max("number"))
            number = (used["n"] or 0) + 1
            if quiz.max_attempts and number > quiz.max_attempts:
                raise QuizRuleError(
                    f"You have used all {quiz.max_attempts} attempts allowed for this quiz."
                )
            chosen = draw_items(quiz, items, student=student, number=number)
            attempt = Attempt.objects.create(
                quiz=quiz,
                student=student,
                number=number,
                deadline=window.deadline_for(now),
                is_late=window.is_late(now),
                item_ids=[item.pk for item in chosen],
                max_score=sum((item.points for item in chosen), start=0),
            )
            for item in chosen:
                _make_variant(attempt=attempt, item=item, index=0, practice=False)
    except IntegrityError:
        # A concurrent start (double click) won the race: continue the attempt it opened.
        attempt = Attempt.objects.filter(
            quiz=quiz, student=student, status=AttemptStatus.IN_PROGRESS
        ).first()
        if attempt is None:
            raise QuizRuleError("Another start was in progress; please try again.") from None
    return attempt


# -- the deadline ----------------------------------------------------------------------------


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


# -- answering -------------------------------------------------------------------------------


def _check_open(attempt: Attempt, window: QuizWindow, now: datetime) -> None:
    if attempt.status != AttemptStatus.IN_PROGRESS:
        raise QuizRuleError("This attempt has been submitted; no more answers are accepted.")
    if attempt.deadline and now > attempt.deadline:
        expire_if_due(attempt, now=now)
        raise QuizRuleError("Time is up: this attempt has been submitted with your saved answers.")
    refusal = window.refusal(now)
    if refusal:
        raise QuizRuleError(refusal)


def _load_variant(variant_id: int, student) -> Variant:
    variant = (
        Variant.objects.select_related("attempt__quiz", "item", "version")
        .filter(pk=variant_id, attempt__student=student)
        .first()
    )
    if variant is None:
        raise QuizRuleError("That question is not part of your attempt.")
    return variant


def _states(variant: Variant, responses=None, *, submitted: bool = False):
    quiz = variant.attempt.quiz
    tries = quiz.tries_per_variant if quiz.mode == QuizMode.HOMEWORK else 1
    points = questions.part_points(variant)
    if responses is None:
        responses = list(variant.responses.all())
    return scoring.part_states(points, responses, tries_allowed=tries, submitted=submitted), points


def _clean_raw(raw, kind: str | None) -> str | list[str]:
    if kind == "choice":
        picks = [raw] if isinstance(raw, str) else list(raw or [])
        picks = [p.strip() for p in picks if p and p.strip()]
        if not picks:
            raise QuizRuleError("Choose an option before checking.")
        if any(len(p) > 50 for p in picks) or len(picks) > 26:
            raise QuizRuleError("That choice is not one of the options.")
        return picks
    text = raw if isinstance(raw, str) else " ".join(raw or [])
    if len(text) > questions.MAX_ANSWER_LENGTH:
        raise QuizRuleError(
            f"That answer is {len(text)} characters long; the limit is "
            f"{questions.MAX_ANSWER_LENGTH}. Write it more compactly."
        )
    if not text.strip():
        raise QuizRuleError("Type an answer before checking.")
    return text


def _stored_raw(raw: str | list[str], kind: str | None) -> str:
    if kind == "choice":
        return json.dumps(raw) if len(raw) != 1 else raw[0]
    return raw


def stored_choice(raw: str) -> list[str]:
    """The option ids of a stored choice response (one id, or a JSON list of ids)."""
    if raw.startswith("["):
        try:
            return [str(x) for x in json.loads(raw)]
        except ValueError:
            return []
    return [raw] if raw else []


def _grade(variant: Variant, part_id: str, raw, states) -> object:
    part = questions.template_for(variant.version).part(part_id)
    earlier = {
        used: states[used].earlier_value
        for used in part.uses
        if used in states and states[used].earlier_value is not None
    }
    return questions.grade(variant, part_id, raw, earlier=earlier)


def submit_response(
    *, variant: Variant, part_id: str, raw, student, idempotency_key: str, now: datetime
) -> Response:
    """Grade and record one homework answer to one part; exactly one row per idempotency key.

    The same key again (double click, second tab, retry) returns the first response unchanged.
    An invalid answer is recorded without a try number: it costs no try. Raises QuizRuleError
    (nothing stored) when the attempt is closed, the part is finished, or the answer is refused.
    """
    if not _KEY.match(idempotency_key or ""):
        raise QuizRuleError("This form is out of date; reload the page and answer again.")
    return _retry_when_locked(lambda: _submit(variant, part_id, raw, student, idempotency_key, now))


def _submit(variant, part_id, raw, student, idempotency_key, now) -> Response:
    existing = _existing(idempotency_key, variant.pk, part_id, student)
    if existing is not None:
        return existing
    variant = _load_variant(variant.pk, student)
    attempt = variant.attempt
    window = student_window(attempt.quiz, student)
    _check_open(attempt, window, now)
    if attempt.quiz.mode == QuizMode.EXAM:
        raise QuizRuleError(
            "In an exam your answers are saved as you type and graded when you submit."
        )
    kind = questions.part_kind(variant, part_id)
    if kind is None:
        raise QuizRuleError("That part is not in this question.")
    clean = _clean_raw(raw, kind)
    states, _ = _states(variant)
    if states[part_id].is_final:
        raise QuizRuleError("This part is finished; its answer can no longer change.")
    grade = _grade(variant, part_id, clean, states)
    return _record(variant, part_id, clean, kind, grade, student, idempotency_key, window, now)


def _existing(key: str, variant_id: int, part_id: str, student) -> Response | None:
    existing = (
        Response.objects.filter(idempotency_key=key).select_related("variant__attempt").first()
    )
    if existing is None:
        return None
    if (
        existing.variant_id != variant_id
        or existing.part_id != part_id
        or existing.variant.attempt.student_id != student.pk
    ):
        raise QuizRuleError("This form was already used for another answer; reload the page.")
    return existing


def _record(variant, part_id, clean, kind, grade, student, key, window, now) -> Response:
    invalid = grade.status == "invalid"
    try:
        with transaction.atomic():
            # Serialise answers to one variant (PostgreSQL row lock; SQLite locks on write).
            locked = Variant.objects.select_for_update().get(pk=variant.pk)
            again = Response.objects.filter(idempotency_key=key).first()
            if again is not None:
                return again
            states, points = _states(variant)
            state = states[part_id]
            if state.is_final:
                raise QuizRuleError("This part is finished; its answer can no longer change.")
            response = Response.objects.create(
                variant=locked,
                part_id=part_id,
                raw=_stored_raw(clean, kind),
                status=grade.status,
                score=max(0.0, min(1.0, float(grade.score))),
                feedback=grade.feedback or "",
                diagnosis=grade.diagnosis or "",
                interpreted=getattr(grade, "interpreted", None) or "",
                value=getattr(grade, "value", None),
                try_number=None if invalid else state.tries_used + 1,
                idempotency_key=key,
            )
            if not invalid:
                state.responses.append(response)
                state.tries_used += 1
                locked.score = scoring.variant_score(states, points)
                locked.save(update_fields=["score"])
            if window.is_late(now) and not variant.attempt.is_late:
                Attempt.objects.filter(pk=variant.attempt_id).update(is_late=True)
            return response
    except IntegrityError:
        again = Response.objects.filter(idempotency_key=key).first()
        if again is not None:
            return again
        raise QuizRuleError(
            "Another answer to this part was recorded at the same moment; reload the page."
        ) from None


def autosave(*, variant: Variant, part_id: str, raw, student, now: datetime) -> SavedAnswer:
    """Exam mode: keep the latest text typed into a part (refused after the deadline)."""
    variant = _load_variant(variant.pk, student)
    attempt = variant.attempt
    _check_open(attempt, student_window(attempt.quiz, student), now)
    kind = questions.part_kind(variant, part_id)
    if kind is None:
        raise QuizRuleError("That part is not in this question.")
    if kind == "choice":
        picks = [raw] if isinstance(raw, str) else list(raw or [])
        text = _stored_raw([p for p in picks if p][:26], kind) if any(picks) else ""
    else:
        text = raw if isinstance(raw, str) else " ".join(raw or [])
    if len(text) > questions.MAX_ANSWER_LENGTH:
        raise QuizRuleError(
            f"That answer is longer than {questions.MAX_ANSWER_LENGTH} characters; "
            "it was not saved."
        )
    saved, _ = SavedAnswer.objects.update_or_create(
        variant=variant, part_id=part_id, defaults={"raw": text}
    )
    Attempt.objects.filter(pk=attempt.pk).update(last_activity_at=now)
    return saved


def new_variant(*, variant: Variant, student, now: datetime) -> Variant:
    """Homework: fresh numbers for an item whose latest variant is finished.

    While the item can still earn points the new variant counts; once it has full marks the new
    numbers are practice (`is_practice`), which never changes the score.
    """
    variant = _load_variant(variant.pk, student)
    attempt = variant.attempt
    _check_open(attempt, student_window(attempt.quiz, student), now)
    if attempt.quiz.mode != QuizMode.HOMEWORK:
        raise QuizRuleError("An exam gives one set of numbers per question.")
    siblings = list(Variant.objects.filter(attempt=attempt, item=variant.item_id))
    latest = max(siblings, key=lambda v: v.index)
    if latest.pk != variant.pk:
        return latest
    states, _ = _states(variant)
    if not all(state.is_final for state in states.values()):
        raise QuizRuleError("Finish every part of these numbers before asking for new ones.")
    practice = scoring.item_score(siblings) >= 1.0
    try:
        with transaction.atomic():
            return _make_variant(
                attempt=attempt, item=variant.item, index=latest.index + 1, practice=practice
            )
    except IntegrityError:
        return Variant.objects.filter(attempt=attempt, item=variant.item_id).order_by("-index")[0]


# -- submitting ------------------------------------------------------------------------------


def _grade_saved_answers(attempt: Attempt, variants: list[Variant]) -> list[tuple]:
    """Exam: grade every saved answer not yet graded (before any transaction is opened)."""
    saved = {
        (s.variant_id, s.part_id): s.raw
        for s in SavedAnswer.objects.filter(variant__attempt=attempt)
    }
    graded = set(
        Response.objects.filter(variant__attempt=attempt).values_list("variant_id", "part_id")
    )
    results = []
    for variant in variants:
        variant.attempt = attempt
        states, _ = _states(variant, responses=[])
        for part_id in states:
            raw = saved.get((variant.pk, part_id), "")
            if (variant.pk, part_id) in graded or not raw.strip():
                continue
            kind = questions.part_kind(variant, part_id)
            clean = stored_choice(raw) if kind == "choice" else raw
            try:
                grade = _grade(variant, part_id, clean, states)
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
    if not auto:
        _check_open(attempt, student_window(quiz, student), now)
    variants = list(attempt.variants.select_related("version", "item"))
    pending = _grade_saved_answers(attempt, variants) if quiz.mode == QuizMode.EXAM else []
    window = student_window(quiz, student)
    moment = min(now, attempt.deadline) if auto and attempt.deadline else now
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.status != AttemptStatus.IN_PROGRESS:
            return False
        for variant, part_id, raw, grade in pending:
            invalid = grade.status == "invalid"
            Response.objects.get_or_create(
                idempotency_key=f"exam-{variant.pk}-{part_id}",
                defaults={
                    "variant": variant,
                    "part_id": part_id,
                    "raw": raw,
                    "status": grade.status,
                    "score": max(0.0, min(1.0, float(grade.score))),
                    "feedback": grade.feedback or "",
                    "diagnosis": grade.diagnosis or "",
                    "interpreted": getattr(grade, "interpreted", None) or "",
                    "value": getattr(grade, "value", None),
                    "try_number": None if invalid else 1,
                },
            )
        responses = list(Response.objects.filter(variant__attempt=attempt))
        by_variant: dict[int, list] = {}
        for response in responses:
            by_variant.setdefault(response.variant_id, []).append(response)
        items_by_pk = {v.item_id: v.item for v in variants}
        variants_by_item: dict[int, list] = {}
        for variant in variants:
            variant.attempt = locked
            states, points = _states(variant, by_variant.get(variant.pk, []), submitted=True)
            score = scoring.variant_score(states, points)
            if score != variant.score:
                variant.score = score
                variant.save(update_fields=["score"])
            variants_by_item.setdefault(variant.item_id, []).append(variant)
        items = [items_by_pk[pk] for pk in locked.item_ids if pk in items_by_pk]
        is_late = locked.is_late or window.is_late(moment)
        score, max_score = scoring.attempt_total(
            items,
            variants_by_item,
            is_late=is_late,
            late_penalty=quiz.late_penalty,
            overrides=ScoreOverride.objects.filter(attempt=locked),
        )
        locked.status = AttemptStatus.SUBMITTED
        locked.submitted_at = moment
        locked.auto_submitted = auto
        locked.is_late = is_late
        locked.score, locked.max_score = score, max_score
        locked.save()
    return True
