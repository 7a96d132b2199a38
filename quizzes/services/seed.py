"""A synthetic class for the dashboards and benchmarks: `seed_class(offering=..., students=N)`.

Students `demo-student-0001`... get the variants the engine would give them for real (same seed
derivation as `start_attempt`) and responses whose outcome is written directly rather than
graded: right answers in the template's own formatting, wrong ones taken from the template's
common-error values (so diagnoses are real), some unreadable, with a per-student ability so that
statistics mean something. Some students are inactive, some submit late, most read chapters.

Idempotent per student: a demo student who already has an attempt is left alone. Rows are
written with `bulk_create` in batches; nothing here grades a response.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
import time
import uuid
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, connections, transaction
from django.utils import timezone

from courseware import caching
from courseware.models import Chapter, Enrollment, ReadingProgress, Role
from quizzes.engine import kinds
from quizzes.grading import Grade
from quizzes.models import (
    Attempt,
    AttemptStatus,
    Quiz,
    QuizItem,
    Response,
    ResponseStatus,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.attempts import draw_items
from quizzes.services.grades import graded_response
from quizzes.services.submission import score_attempt
from quizzes.services.variant_seeds import variant_seed_for

PREFIX = "demo-student-"
BATCH = 1000
STUDENT_BATCH = 100
INVALID_ANSWERS = ("about 3", "3,35 TB/s", "3.35 KB", "fast", "1e", "12 parsecs")
FIRST = (
    "Ada",
    "Ben",
    "Chen",
    "Dana",
    "Emil",
    "Fatima",
    "Goro",
    "Hana",
    "Ivan",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Uma",
    "Viktor",
    "Wen",
    "Xavi",
    "Yara",
    "Zoe",
)
LAST = (
    "Abe",
    "Brandt",
    "Costa",
    "Diallo",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ito",
    "Jensen",
    "Kim",
    "Lopez",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Patel",
    "Quist",
    "Rossi",
    "Singh",
    "Tanaka",
    "Umar",
    "Volkov",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
)


@dataclass
class SeedReport:
    created_students: int = 0
    seeded_students: int = 0
    attempts: int = 0
    variants: int = 0
    responses: int = 0


@contextmanager
def _keep_timestamps():
    """Let bulk_create store the simulated dates instead of "now" in auto_now(_add) fields."""
    fields = [
        Attempt._meta.get_field("started_at"),
        Attempt._meta.get_field("last_activity_at"),
        Variant._meta.get_field("created_at"),
        Response._meta.get_field("created_at"),
        ReadingProgress._meta.get_field("read_at"),
    ]
    saved = [(f, f.auto_now, f.auto_now_add) for f in fields]
    for f in fields:
        f.auto_now = f.auto_now_add = False
    try:
        yield
    finally:
        for f, now, add in saved:
            f.auto_now, f.auto_now_add = now, add


def demo_students(offering, count: int, first: int = 1) -> tuple[list, int]:
    """`count` demo students from number `first` on, created and enrolled in the offering when
    missing (unusable passwords)."""
    User = get_user_model()
    names = [f"{PREFIX}{i:04d}" for i in range(first, first + count)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    unusable = make_password(None)
    new = []
    # Named by their number, so a student has the same name whichever class seeds them.
    for i, name in enumerate(names, start=first - 1):
        if name not in existing:
            new.append(
                User(
                    username=name,
                    password=unusable,
                    first_name=FIRST[i % len(FIRST)],
                    last_name=LAST[(i * 7 + i // len(FIRST)) % len(LAST)],
                )
            )
    User.objects.bulk_create(new, batch_size=BATCH)
    users = list(User.objects.filter(username__in=names).order_by("username"))
    Enrollment.objects.bulk_create(
        [Enrollment(user=u, offering=offering, role=Role.STUDENT) for u in users],
        batch_size=BATCH,
        ignore_conflicts=True,
    )
    return users, len(new)


def seed_class(
    *,
    offering,
    students: int,
    first: int = 1,
    now: datetime | None = None,
    copy: bool = True,
    workers: int = 1,
) -> SeedReport:
    """Create (or complete) a synthetic class of `students` demo students (numbered from
    `first`) in `offering`.

    Drawing the students' variants is most of the time once the rows go in by COPY: with
    `workers` > 1 (and no transaction open, as in `manage.py seed_demo`) that many forked
    processes draw batches of students while this one writes the batches they finished, in the
    students' order, so the rows (and their ids) are those of a run with one process.
    `copy=False` writes the variants and responses with `bulk_create` even on PostgreSQL (the
    same rows and stamps; the tests compare the two)."""
    now = now or timezone.now()
    report = SeedReport()
    users, report.created_students = demo_students(offering, students, first)
    done = set(
        Attempt.objects.filter(student__in=users, quiz__offering=offering).values_list(
            "student_id", flat=True
        )
    )
    read = set(ReadingProgress.objects.filter(user__in=users).values_list("user_id", flat=True))
    todo = [u for u in users if u.pk not in done and u.pk not in read]
    quizzes = list(Quiz.objects.for_offering(offering).visible())
    items = defaultdict(list)
    for item in QuizItem.objects.filter(quiz__in=quizzes).select_related(
        "template__current_version", "pinned_version"
    ):
        items[item.quiz_id].append(item)
    chapters = list(Chapter.objects.for_course(offering.course_id))
    batches = [todo[start : start + STUDENT_BATCH] for start in range(0, len(todo), STUDENT_BATCH)]
    world = _World(quizzes, items, chapters, now)
    with _keep_timestamps(), _drawing(world, workers, len(batches)) as draw:
        for users_of_batch, pending in zip(batches, draw(batches)):
            with transaction.atomic():
                _write_batch(pending, copy=copy)
            report.seeded_students += len(users_of_batch)
            report.attempts += len(pending.attempts)
            report.variants += len(pending.variants)
            report.responses += sum(len(simulated) for _, _, simulated in pending.variants)
    return report


# ---------------------------------------------------------------- drawing, in one process or many


@dataclass
class _World:
    """What every student's simulation reads (no query): the offering's visible quizzes, their
    items by quiz id, the book's chapters, and the seed's "now"."""

    quizzes: list
    items: dict
    chapters: list
    now: datetime


# The world a forked drawing process reads (set before the fork, inherited by it).
_FORKED: _World | None = None


@contextmanager
def _drawing(world: _World, workers: int, batches: int):
    """A function from batches of students to their `_Pending` rows, in order: in this process,
    or in `workers` forked processes when there is more than one batch and no transaction open
    (a fork must not share an open connection: they are closed first, and the children never
    query; this process reconnects for its writes)."""
    global _FORKED
    if workers <= 1 or batches <= 1 or connection.in_atomic_block:
        yield lambda each: (_draw_batch(users, world) for users in each)
        return
    # Parsed once here, so each child inherits the templates instead of parsing them again.
    for quiz_items in world.items.values():
        for item in quiz_items:
            version = item.pinned_version or item.template.current_version
            if version is not None:
                questions.template_for(version)
    connections.close_all()
    _FORKED = world
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(
            max_workers=min(workers, batches),
            mp_context=context,
            initializer=_leave_with_parent,
            initargs=(os.getpid(),),
        ) as pool:
            yield lambda each: pool.map(_draw_forked, each)
    finally:
        _FORKED = None


def _leave_with_parent(parent: int) -> None:
    """A drawing process ends when the seed that forked it is gone (killed, say): it would
    otherwise wait on the pool's queue for ever."""

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _draw_forked(users) -> _Pending:
    return _draw_batch(users, _FORKED)


def _draw_batch(users, world: _World) -> _Pending:
    pending = _Pending([], [], [])
    for user in users:
        _simulate_student(user, world.quizzes, world.items, world.chapters, world.now, pending)
    return pending


# ---------------------------------------------------------------- one batch of students


@dataclass
class _Pending:
    attempts: list
    variants: list  # (attempt index, Variant, parts to simulate)
    reading: list


def _write_batch(pending: _Pending, *, copy: bool) -> None:
    with caching.batch():  # the attempts' page stamps and the quizzes' statistics, once each
        _store(pending, copy=copy)
    ReadingProgress.objects.bulk_create(pending.reading, batch_size=BATCH, ignore_conflicts=True)


def _store(pending: _Pending, *, copy: bool) -> None:
    Attempt.objects.bulk_create(pending.attempts, batch_size=BATCH)
    for attempt_index, variant, _ in pending.variants:
        variant.attempt = pending.attempts[attempt_index]
    variants = [v for _, v, _ in pending.variants]
    responses = []
    for _, variant, simulated in pending.variants:
        for response in simulated:
            response.variant = variant
            responses.append(response)
    if copy:  # the many rows by COPY on PostgreSQL (bulk_create elsewhere), the same stamps
        Variant.objects.copy_create(variants)
        Response.objects.copy_create(responses)
    else:
        Variant.objects.bulk_create(variants, batch_size=BATCH)
        Response.objects.bulk_create(responses, batch_size=BATCH)


def _simulate_student(user, quizzes, items, chapters, now, pending: _Pending) -> None:
    rng = random.Random(f"seed-demo:{user.username}")
    ability = min(0.97, max(0.15, rng.gauss(0.68, 0.17)))
    inactive = rng.random() < 0.08
    if inactive:
        return
    diligence = rng.random()
    last_seen = now - timedelta(days=rng.choice([0, 1, 2, 3, 5, 8, 20]) + rng.random())
    for chapter in chapters:
        if rng.random() < 0.35 + 0.6 * diligence:
            when = last_seen - timedelta(days=rng.uniform(0, 20))
            pending.reading.append(
                ReadingProgress(user_id=user.pk, chapter_id=chapter.pk, read_at=when)
            )
    for quiz in quizzes:
        quiz_items = items.get(quiz.pk, [])
        if not quiz_items or rng.random() > 0.3 + 0.65 * diligence:
            continue
        tries = 1 + (rng.random() < 0.25 * (1 - ability))
        for number in range(1, tries + 1):
            _simulate_attempt(user, quiz, quiz_items, number, ability, rng, now, last_seen, pending)


def _simulate_attempt(user, quiz, quiz_items, number, ability, rng, now, last_seen, pending):
    due = quiz.due_at or (now - timedelta(days=3))
    late = quiz.due_at is not None and rng.random() < 0.08
    submitted = (
        due + timedelta(hours=rng.uniform(1, 48))
        if late
        else min(last_seen, due - timedelta(hours=rng.uniform(1, 96)))
    )
    started = submitted - timedelta(minutes=rng.uniform(10, 90))
    drawn = draw_items(quiz, quiz_items, student=user, number=number)
    attempt = Attempt(
        quiz_id=quiz.pk,
        student_id=user.pk,
        number=number,
        status=AttemptStatus.SUBMITTED,
        started_at=started,
        last_activity_at=submitted,
        submitted_at=submitted,
        is_late=late,
        item_ids=[item.pk for item in drawn],
    )
    index = len(pending.attempts)
    pending.attempts.append(attempt)
    scored_items, attempt_variants = [], []
    for item in drawn:
        version = item.pinned_version or item.template.current_version
        if version is None:
            continue
        seed = variant_seed_for(student_id=user.pk, item_id=item.pk, attempt_number=number, index=0)
        fields = questions.new_variant_fields(version, seed)
        template = questions.template_for(version)
        variant = Variant(
            item_id=item.pk, version_id=version.pk, index=0, created_at=started, **fields
        )
        simulated, fraction = _simulate_parts(template, fields, quiz, ability, rng, started)
        variant.score = fraction
        # A staff-graded part's demo answer waits for a grader, as a real one would.
        attempt.awaiting_grading += sum(1 for r in simulated if r.status == ResponseStatus.PENDING)
        pending.variants.append((index, variant, simulated))
        scored_items.append(item)
        attempt_variants.append(variant)
    # Scored as a real submission is (the items asked, with a variant, and the late penalty).
    score_attempt(
        attempt, items=scored_items, variants=attempt_variants, late_penalty=quiz.late_penalty
    )


def _simulate_parts(template, fields, quiz, ability, rng, started):
    """Responses for every part of a variant, and the variant's score (a fraction)."""
    answers = fields["answers"].get("answers", {})
    common = fields["answers"].get("common_errors", {})
    responses, best_of = [], {}
    difficulty = getattr(template, "difficulty", 3) or 3
    when = started
    for part in template.parts:
        p_right = min(0.97, max(0.03, ability**1.5 - 0.08 * (difficulty - 3)))
        best = 0.0
        if kinds.kind_for(part).graded_by_staff:
            when += timedelta(seconds=rng.uniform(120, 600))
            right = rng.random() < p_right
            raw, _, _ = _answer(part, answers.get(part.id), {}, right, rng)
            responses.append(_response(part.id, raw, ResponseStatus.PENDING, 1, when))
            best_of[part.id] = 0.0
            continue
        for try_number in range(1, (quiz.tries_per_variant or 1) + 1):
            when += timedelta(seconds=rng.uniform(20, 240))
            if rng.random() < 0.06 * (1.3 - ability):
                responses.append(
                    _response(
                        part.id, rng.choice(INVALID_ANSWERS), ResponseStatus.INVALID, None, when
                    )
                )
            right = rng.random() < p_right
            raw, value, diagnosis = _answer(
                part, answers.get(part.id), common.get(part.id, {}), right, rng
            )
            status = ResponseStatus.CORRECT if right else ResponseStatus.INCORRECT
            responses.append(_response(part.id, raw, status, try_number, when, value, diagnosis))
            if right:
                best = 1.0
                break
            # Weaker students give up on a part more often after a miss.
            if rng.random() < 0.45 * (1 - ability):
                break
            p_right = min(0.97, p_right + 0.08)
        best_of[part.id] = best
    points = {part.id: part.points for part in template.parts}
    return responses, scoring.weighted_score(points, best_of)


def _response(part_id, raw, status, try_number, when, value=None, diagnosis=""):
    feedback = {
        ResponseStatus.CORRECT: "Correct.",
        ResponseStatus.INVALID: "This answer could not be read; write a number with its unit.",
        ResponseStatus.PENDING: "",
    }.get(status, "Not quite." if not diagnosis else f"This looks like a known slip ({diagnosis}).")
    score = 1.0 if status == ResponseStatus.CORRECT else 0.0
    interpreted = None if status == ResponseStatus.INVALID else raw
    grade = Grade(status, score, feedback, diagnosis or None, interpreted, value)
    return graded_response(
        part_id=part_id,
        raw=raw,
        grade=grade,
        try_number=try_number,
        idempotency_key=uuid.uuid4().hex,
        created_at=when,
    )


def _answer(part, answer, common: dict, right: bool, rng):
    """(raw text, value, diagnosis) of a right or typically wrong answer to one part."""
    return kinds.kind_for(part).demo_answer(part, answer, common, right, rng)
