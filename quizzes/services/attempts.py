"""Taking a quiz: start an attempt, answer parts, autosave, fresh variants, submit, expire.

Every rule is enforced here, not in the pages: availability (dates, extension, late policy,
attempt limit), one open attempt per student and quiz, the student's own variants, counted tries,
idempotent submissions, the exam deadline. Each workflow is one keyword-only function inside
`transaction.atomic`; grading itself (up to the grader's time limit for a formula) runs before
the transaction, so a slow answer never holds a database lock.

Ending an attempt (submission, deadline) lives in `submission`, shared helpers in `parts`; this
module re-exports their public names.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q

from courseware import caching
from quizzes.models import (
    Attempt,
    AttemptStatus,
    QuizItem,
    Response,
    ResponseSource,
    ResponseStatus,
    SavedAnswer,
    Variant,
)
from quizzes.services import grading_budget, questions, scoring
from quizzes.services.availability import QuizRuleError, QuizWindow, student_window
from quizzes.services.grades import (
    ensure_statistics_counter,
    graded_response,
    try_number_for,
)
from quizzes.services.parts import (
    clean_raw,
    grade_answer,
    retry_when_locked,
    states_of,
)
from quizzes.services.submission import (
    SUBMITTED,
    check_open,
    close_expired_attempts,
    expire_if_due,
    submit_attempt,
)
from quizzes.services.variant_seeds import pool_seed_for, variant_seed_for

__all__ = [
    "QuizRuleError",
    "attempt_limit_message",
    "autosave",
    "check_answer",
    "Checked",
    "close_expired_attempts",
    "expire_if_due",
    "new_variant",
    "draw_items",
    "start_attempt",
    "submit_attempt",
    "submit_response",
]

_KEY = re.compile(r"^[A-Za-z0-9-]{8,64}$")


# -- starting --------------------------------------------------------------------------------


def draw_items(quiz, items: list[QuizItem], *, student, number: int) -> list[QuizItem]:
    """The items an attempt asks: every unpooled item, and `quiz.pools[name]` of each pool.

    The draw is seeded like a variant (secret, student, quiz, attempt number), so it is stable
    for the attempt and differs between students and attempts.
    """
    chosen = [item for item in items if not item.pool]
    for pool, count in sorted((quiz.pools or {}).items()):
        members = [item for item in items if item.pool == pool]
        seed = pool_seed_for(
            student_id=student.pk, quiz_id=quiz.pk, attempt_number=number, pool=pool
        )
        rng = random.Random(seed)
        chosen += rng.sample(members, min(int(count), len(members)))
    # Items of a pool not named in quiz.pools are all asked, rather than silently dropped.
    named = set(quiz.pools or {})
    chosen += [item for item in items if item.pool and item.pool not in named]
    return sorted(chosen, key=lambda item: item.position)


def _version_for(item: QuizItem):
    version = item.version_for_new_variants
    if version is None:
        raise QuizRuleError(f"Question {item.position} of this quiz has no published version yet.")
    return version


# Draws (each a fresh seed) spent looking for numbers the student has not had for this item.
FRESH_DRAWS = 6


def _numbers_key(parameters) -> str:
    return json.dumps(parameters, sort_keys=True)


def _numbers_seen(student_id: int, item_ids) -> dict[int, set[str]]:
    """The parameter sets each item already gave this student, in any attempt: 1 query."""
    seen: dict[int, set[str]] = {}
    rows = Variant.objects.filter(attempt__student_id=student_id, item_id__in=list(item_ids))
    for item_id, parameters in rows.values_list("item_id", "parameters"):
        seen.setdefault(item_id, set()).add(_numbers_key(parameters))
    return seen


def _draw_variant(
    *, student_id: int, number: int, item: QuizItem, index: int, practice: bool, seen=frozenset()
) -> dict:
    """The fields of a new variant row, computed with no transaction open (a draw may take a
    while; a database lock held meanwhile would stall every other writer). When its numbers
    repeat a set in `seen` (whose answer the student may have been shown) a few other seeds are
    tried, and a new set of numbers for the same item (index > 0) that still repeats becomes
    practice: it can never earn points."""
    version = _version_for(item)
    try:
        for salt in range(FRESH_DRAWS):
            seed = variant_seed_for(
                student_id=student_id,
                item_id=item.pk,
                attempt_number=number,
                index=index,
                salt=salt,
            )
            fields = questions.new_variant_fields(version, seed)
            repeated = _numbers_key(fields["parameters"]) in seen
            if not repeated:
                break
    except questions.QuestionUnavailable:
        raise
    except Exception as error:  # noqa: BLE001 - a template bug must not surface as a 500
        raise QuizRuleError(
            f"Question {item.position} could not be generated; your instructor has been told."
        ) from error
    practice = practice or (repeated and index > 0)
    return {"item": item, "version": version, "index": index, "is_practice": practice, **fields}


def attempt_limit_message(limit: int) -> str:
    """The refusal once a student has used every attempt the quiz allows."""
    if limit == 1:
        return "You have used the one attempt this quiz allows."
    return f"You have used all {limit} attempts this quiz allows."


ARCHIVED = "This offering is archived: its quizzes start no new attempts."


def start_attempt(*, quiz, student, now: datetime) -> Attempt:
    """Start the student's next attempt, or return the one already open.

    Raises QuizRuleError when the quiz is not open to this student or the attempt limit is used.
    """
    # The student's attempts at this quiz, read once: the open one (at most one) and the next
    # number come from the same rows.
    mine = list(Attempt.objects.filter(quiz=quiz, student=student).order_by("number"))
    open_attempt = next((a for a in mine if a.status == AttemptStatus.IN_PROGRESS), None)
    if open_attempt is not None and not expire_if_due(open_attempt, now=now):
        return open_attempt
    if quiz.offering.is_archived:
        raise QuizRuleError(ARCHIVED)
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
    number = (mine[-1].number if mine else 0) + 1
    if window.max_attempts and number > window.max_attempts:
        raise QuizRuleError(attempt_limit_message(window.max_attempts))
    chosen = draw_items(quiz, items, student=student, number=number)
    # A variant's item is one of its attempt's quiz's items, so a student's first attempt at a
    # quiz has no numbers seen before for them: nothing to read.
    seen = _numbers_seen(student.pk, (item.pk for item in chosen)) if mine else {}
    # Every variant is computed before the transaction, which then only writes: a concurrent
    # start that took this attempt number first makes the create below fail (the number is
    # unique per student and quiz), and the attempt it opened is continued.
    drawn = [
        _draw_variant(
            student_id=student.pk,
            number=number,
            item=item,
            index=0,
            practice=False,
            seen=seen.get(item.pk, set()),
        )
        for item in chosen
    ]
    try:
        with transaction.atomic():
            # Inside the transaction: one statement instead of its own BEGIN, INSERT, COMMIT.
            ensure_statistics_counter(quiz_id=quiz.pk)
            attempt = Attempt.objects.create(
                quiz=quiz,
                student=student,
                number=number,
                deadline=window.deadline_for(now),
                is_late=window.is_late(now),
                item_ids=[item.pk for item in chosen],
                max_score=sum((item.points for item in chosen), start=0),
            )
            Variant.objects.bulk_create(Variant(attempt=attempt, **fields) for fields in drawn)
    except IntegrityError:
        # A concurrent start (double click) won the race: continue the attempt it opened.
        attempt = Attempt.objects.filter(
            quiz=quiz, student=student, status=AttemptStatus.IN_PROGRESS
        ).first()
        if attempt is None:
            raise QuizRuleError("Another start was in progress; please try again.") from None
    return attempt


# -- answering -------------------------------------------------------------------------------


def _owned(variant: Variant, student) -> Variant:
    """`variant` with its attempt, quiz, item and version, checked to be the student's.

    The answer views have just loaded exactly that (the attempt through `for_student`, the
    variant within it), so then no query is run; any other caller's variant is loaded again.
    """
    cached = (
        Variant.attempt.is_cached(variant)
        and Variant.item.is_cached(variant)
        and Variant.version.is_cached(variant)
        and Attempt.quiz.is_cached(variant.attempt)
    )
    attempt = variant.attempt if cached else None
    if attempt is not None and (attempt.pk, attempt.student_id) == (variant.attempt_id, student.pk):
        return variant
    return _load_variant(variant.pk, student)


def _load_variant(variant_id: int, student) -> Variant:
    variant = (
        Variant.objects.select_related("attempt__quiz", "item", "version")
        .filter(pk=variant_id, attempt__student=student)
        .first()
    )
    if variant is None:
        raise QuizRuleError("That question is not part of your attempt.")
    return variant


@dataclass
class Checked:
    """What one Check stored and the state it leaves, so the page need not load it again.

    `variant` is the freshly loaded row (its attempt and quiz with it, its new score), `states`
    every part's state including the new response, `window` the student's quiz window. A
    replayed key (the first response returned again) carries no state: `states` is None.
    """

    response: Response
    variant: Variant | None = None
    states: dict[str, scoring.PartState] | None = None
    window: QuizWindow | None = None


def submit_response(
    *, variant: Variant, part_id: str, raw, student, idempotency_key: str, now: datetime
) -> Response:
    """Grade and record one homework answer to one part; exactly one row per idempotency key.

    The same key again (double click, second tab, retry) returns the first response unchanged.
    An invalid answer is recorded without a try number: it costs no try. Raises QuizRuleError
    (nothing stored) when the attempt is closed, the part is finished, or the answer is refused.
    """
    return check_answer(
        variant=variant,
        part_id=part_id,
        raw=raw,
        student=student,
        idempotency_key=idempotency_key,
        now=now,
    ).response


def check_answer(
    *, variant: Variant, part_id: str, raw, student, idempotency_key: str, now: datetime
) -> Checked:
    """`submit_response`, returning the new state of the variant's parts with the response."""
    if not _KEY.match(idempotency_key or ""):
        raise QuizRuleError("This form is out of date; reload the page and answer again.")
    return retry_when_locked(lambda: _submit(variant, part_id, raw, student, idempotency_key, now))


def _submit(variant, part_id, raw, student, idempotency_key, now) -> Checked:
    variant = _owned(variant, student)
    attempt = variant.attempt
    window = student_window(attempt.quiz, student)
    kind = questions.kind_of(variant, part_id)
    if kind is not None and not kind.bounded:
        # A number or a choice grades in well under a millisecond: graded under the variant's
        # lock, after the one read of its responses that also finds a replayed key.
        return _record(variant, part_id, raw, kind, None, student, idempotency_key, window, now)
    # A formula may take up to the grader's time limit: graded before any lock is taken, so
    # its responses are read once here (replay, finished part, earlier values) and once more
    # under the lock, where another tab's answer may have arrived meanwhile.
    responses = list(variant.responses.all())
    again = _replayed(responses, idempotency_key, part_id)
    if again is not None:
        return Checked(again)
    clean = _checked_input(variant, part_id, raw, kind, window, now)
    states, _ = states_of(variant, responses)
    if states[part_id].is_final:
        raise QuizRuleError("This part is finished; its answer can no longer change.")
    grading_budget.check_budget(student.pk)
    # A grader that runs in the pool holds a worker: one such answer at a time per student.
    with grading_budget.one_formula_at_a_time(student.pk):
        grade = grade_answer(variant, part_id, clean, states)
    return _record(variant, part_id, clean, kind, grade, student, idempotency_key, window, now)


def _checked_input(variant, part_id, raw, kind, window, now):
    """The cleaned answer, or QuizRuleError (nothing stored) when it cannot be taken at all."""
    check_open(variant.attempt, window, now)
    if variant.attempt.quiz.is_exam:
        raise QuizRuleError(
            "In an exam your answers are saved as you type and graded when you submit."
        )
    if kind is None:
        raise QuizRuleError("That part is not in this question.")
    return clean_raw(raw, kind, questions.template_for(variant.version).part(part_id))


SUBMITTED_MEANWHILE = "This attempt was submitted before this answer arrived; it was not saved."


def _still_open(attempt_id: int, now: datetime):
    """The attempt, if it is still open at `now`: updating it is the check made under the lock
    an exam submission holds (PostgreSQL re-reads the row once that lock is released; SQLite
    runs IMMEDIATE transactions one at a time)."""
    return Attempt.objects.filter(pk=attempt_id, status=AttemptStatus.IN_PROGRESS).filter(
        Q(deadline__isnull=True) | Q(deadline__gte=now)
    )


def _replayed(responses, key: str, part_id: str) -> Response | None:
    """The Check this form already made: the same key on the same part of this (the
    student's own) variant."""
    for response in responses:
        if (
            response.idempotency_key == key
            and response.part_id == part_id
            and response.source == ResponseSource.CHECK
        ):
            return response
    return None


def _keyed(key: str, variant_id: int, part_id: str):
    return Response.objects.filter(
        source=ResponseSource.CHECK, variant_id=variant_id, part_id=part_id, idempotency_key=key
    )


def _record(variant, part_id, raw, kind, grade, student, key, window, now) -> Checked:
    """Store one graded answer under the variant's row lock: exactly one row per key, no try
    beyond the limit. `grade` None: `raw` is the input as sent, checked and graded here."""
    try:
        # The response and the variant's score raise the attempt's page stamp and the quiz's
        # statistics once each, when the block ends (quizzes/stamps.py).
        with transaction.atomic(), caching.batch():
            # The attempt may have been submitted since the view read it (another tab, or the
            # Submit pressed while this Check was on its way): this update is the open check,
            # under the row lock a submission holds, and takes the attempt's lock before the
            # variant's, in the order a submission takes them (no deadlock).
            opened = _still_open(variant.attempt_id, now).update(
                last_activity_at=now, **({"is_late": True} if window.is_late(now) else {})
            )
            if not opened:
                raise QuizRuleError(SUBMITTED)
            # Serialise answers to one variant (PostgreSQL row lock; SQLite locks on write).
            locked = Variant.objects.select_for_update().get(pk=variant.pk)
            locked.attempt = variant.attempt  # read already: the stamps find its quiz here
            responses = list(Response.objects.filter(variant_id=variant.pk))
            again = _replayed(responses, key, part_id)
            if again is not None:
                return Checked(again)
            clean = raw
            if grade is None:
                clean = _checked_input(variant, part_id, raw, kind, window, now)
            states, points = states_of(variant, responses)
            state = states[part_id]
            if state.is_final:
                raise QuizRuleError("This part is finished; its answer can no longer change.")
            if grade is None:
                grading_budget.check_budget(student.pk)
                grade = grade_answer(variant, part_id, clean, states)
            invalid = grade.status == ResponseStatus.INVALID
            response = graded_response(
                variant=locked,
                part_id=part_id,
                raw=kind.stored(clean),
                grade=grade,
                try_number=try_number_for(grade, state.tries_used),
                idempotency_key=key,
            )
            response.save(force_insert=True)
            state.responses.append(response)
            if not invalid:
                state.tries_used += 1
                locked.score = scoring.variant_score(states, points)
                locked.save(update_fields=["score"])
            variant.score = locked.score
    except IntegrityError:
        again = _keyed(key, variant.pk, part_id).first()
        if again is not None:
            return Checked(again)
        raise QuizRuleError(
            "Another answer to this part was recorded at the same moment; reload the page."
        ) from None
    if invalid:
        grading_budget.count_free(student.pk)
    return Checked(response, variant, states, window)


# The largest sequence a page can send exactly (a JavaScript number's integer range); anything
# larger, negative or not a whole number is refused, so nothing stored changes.
MAX_SAVE_SEQUENCE = 2**53 - 1


def save_sequence(value) -> int:
    """The sequence an autosave was sent with: 0 when none was (a page from before sequences),
    else a whole number from 1 to MAX_SAVE_SEQUENCE; QuizRuleError for anything else."""
    if value is None or value == "":
        return 0
    text = str(value).strip()
    if not text.isascii() or not text.isdigit() or len(text) > 16:
        raise QuizRuleError("This save was not understood (a bad sequence); reload the page.")
    number = int(text)
    if not 1 <= number <= MAX_SAVE_SEQUENCE:
        raise QuizRuleError("This save was not understood (a bad sequence); reload the page.")
    return number


def autosave(
    *, variant: Variant, part_id: str, raw, student, now: datetime, sequence=None
) -> SavedAnswer:
    """Exam mode: keep the latest text typed into a part (refused after the deadline).

    `sequence` is the page's, growing with every save of the part: a save whose sequence is
    below the stored one (a slow request arriving after a newer save) is not applied, and the
    returned row says so (`superseded`, with the `stored_sequence`); the same sequence again
    (a retry) stores the same text again. A save without a sequence counts as 0: older than
    any save that has one.
    """
    variant = _owned(variant, student)
    attempt = variant.attempt
    check_open(attempt, student_window(attempt.quiz, student), now)
    if not attempt.quiz.is_exam:
        # Homework answers are checked one by one; a saved draft there would be stored for nothing.
        raise QuizRuleError("In homework each answer is checked when you press Check.")
    kind = questions.kind_of(variant, part_id)
    if kind is None:
        raise QuizRuleError("That part is not in this question.")
    number = save_sequence(sequence)
    text = kind.draft(raw)
    too_long = kind.too_long(text)
    if too_long:
        raise QuizRuleError(too_long.replace("Write it", "It was not saved; write it"))
    saved = SavedAnswer(variant=variant, part_id=part_id, raw=text, updated_at=now, sequence=number)
    # The attempt may have been submitted since it was read above (the Submit click fires its
    # field's last save): the update of the attempt's row is the check, made under the row lock
    # a submission holds (PostgreSQL re-reads the row once that lock is released; SQLite's
    # IMMEDIATE transactions run one at a time), so a save either lands before the submission
    # reads the saved answers or is refused. No savepoint: nothing is raised inside the block.
    if connection.vendor == "postgresql":
        still_open, stored = _save_if_open_in_one_statement(saved, attempt.pk, now)
        saved.superseded = still_open and not stored
    else:
        with transaction.atomic(savepoint=False):
            # The upsert is SQL of its own (no signal): this update raises the page stamp.
            still_open = _still_open(attempt.pk, now).update(
                last_activity_at=now, page_stamp=F("page_stamp") + 1
            )
            if still_open:
                saved.superseded = not _upsert_newer(saved)
    if not still_open:
        raise QuizRuleError(SUBMITTED_MEANWHILE)
    # The sequence stored instead (a page whose clock is behind another device's starts above
    # it for its next save); read only for a superseded save, which is rare.
    saved.stored_sequence = number
    if saved.superseded:
        stored = SavedAnswer.objects.filter(variant=variant, part_id=part_id)
        saved.stored_sequence = stored.values_list("sequence", flat=True).first() or number
    return saved


def _upsert_sql(saved: SavedAnswer, source: str) -> tuple[str, list]:
    """INSERT ... ON CONFLICT DO UPDATE ... WHERE of `saved`, its rows selected by `source`
    (`VALUES (...)`, or a SELECT), and its parameters."""
    meta = SavedAnswer._meta
    q = connection.ops.quote_name
    columns = ["variant", "part_id", "raw", "updated_at", "sequence"]
    fields = [meta.get_field(name) for name in columns]
    names = [q(f.column) for f in fields]
    values = [f.get_db_prep_save(getattr(saved, f.attname), connection) for f in fields]
    table, sequence = q(meta.db_table), q(meta.get_field("sequence").column)
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in names[2:])
    rows = source.format(values=", ".join(["%s"] * len(names)))
    sql = (
        f"INSERT INTO {table} ({', '.join(names)}) {rows} "
        f"ON CONFLICT ({names[0]}, {names[1]}) DO UPDATE SET {updates} "
        f"WHERE {table}.{sequence} <= EXCLUDED.{sequence}"
    )
    return sql, values


def _save_if_open_in_one_statement(saved: SavedAnswer, attempt_id: int, now) -> tuple[bool, bool]:
    """PostgreSQL: the attempt's check-and-touch and the part's upsert as one statement, so one
    round trip instead of four (BEGIN, UPDATE, INSERT, COMMIT): (still open, `saved` stored).

    The same guarantees as the transaction it replaces: the UPDATE in the WITH waits for a
    submission's row lock and re-reads the row after it (READ COMMITTED), so a save lands
    before the submission reads the saved answers or is refused; the upsert runs only for a row
    the UPDATE returned, and only if its sequence is not older than the stored one.
    """
    attempt = Attempt._meta
    q = connection.ops.quote_name
    field = attempt.get_field
    insert, values = _upsert_sql(saved, "SELECT {values} FROM still_open")
    touched = [
        field("last_activity_at").get_db_prep_save(now, connection),
        attempt_id,
        AttemptStatus.IN_PROGRESS.value,
        field("deadline").get_db_prep_save(now, connection),
    ]
    sql = (
        f"WITH still_open AS (UPDATE {q(attempt.db_table)} "
        f"SET {q(field('last_activity_at').column)} = %s, "
        f"{q(field('page_stamp').column)} = {q(field('page_stamp').column)} + 1 "
        f"WHERE {q(field('id').column)} = %s AND {q(field('status').column)} = %s "
        f"AND ({q(field('deadline').column)} IS NULL OR {q(field('deadline').column)} >= %s) "
        f"RETURNING 1), stored AS ({insert} RETURNING 1) "
        "SELECT (SELECT COUNT(*) FROM still_open), (SELECT COUNT(*) FROM stored)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, touched + values)
        opened, stored = cursor.fetchone()
    return opened == 1, stored == 1


def _upsert_newer(saved: SavedAnswer) -> bool:
    """Insert `saved`, or update the part's row only if its sequence is not newer: whether the
    row now holds `saved`.

    One statement (INSERT ... ON CONFLICT DO UPDATE ... WHERE), so two saves racing each other
    need no lock and the newer always stays; the same SQL on SQLite (3.24+) and PostgreSQL.
    Django's bulk_create cannot put a condition on the update, hence the SQL written here.
    """
    sql, values = _upsert_sql(saved, "VALUES ({values})")
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.rowcount == 1


def new_variant(*, variant: Variant, student, now: datetime) -> Variant:
    """Homework: fresh numbers for an item whose latest variant is finished.

    While the item can still earn points the new variant counts; once it has full marks the new
    numbers are practice (`is_practice`), which never changes the score.
    """
    variant = _load_variant(variant.pk, student)
    attempt = variant.attempt
    check_open(attempt, student_window(attempt.quiz, student), now)
    if not attempt.quiz.is_homework:
        raise QuizRuleError("An exam gives one set of numbers per question.")
    siblings = list(Variant.objects.filter(attempt=attempt, item=variant.item_id))
    latest = max(siblings, key=lambda v: v.index)
    if latest.pk != variant.pk:
        return latest
    states, _ = states_of(variant)
    if not all(state.is_final for state in states.values()):
        raise QuizRuleError("Finish every part of these numbers before asking for new ones.")
    if any(state.with_staff for state in states.values()):
        raise QuizRuleError(
            "This question has an answer graded by staff: it is asked with one set of numbers."
        )
    practice = scoring.item_score(siblings) >= 1.0
    seen = _numbers_seen(student.pk, [variant.item_id]).get(variant.item_id, set())
    fields = _draw_variant(
        student_id=attempt.student_id,
        number=attempt.number,
        item=variant.item,
        index=latest.index + 1,
        practice=practice,
        seen=seen,
    )
    try:
        with transaction.atomic():
            return Variant.objects.create(attempt=attempt, **fields)
    except IntegrityError:
        return Variant.objects.filter(attempt=attempt, item=variant.item_id).order_by("-index")[0]
