"""What instructors read and record about their class: the dashboard, the gradebook, one
student's history, variant search, and the writes (score overrides, extensions).

Readers run a fixed number of queries whatever the class size. Scores are in points; an item's
score is its points times its best variant's fraction, and an attempt's score is kept by the
attempt service, an override replacing it (the latest override wins).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from courseware.models import Chapter, Enrollment, ReadingProgress, Role
from quizzes.models import (
    Attempt,
    AttemptStatus,
    Extension,
    Quiz,
    QuizItem,
    Response,
    ResponseStatus,
    ScoreOverride,
    Variant,
)
from quizzes.services.analytics import histogram
from quizzes.services.regrade import recompute_attempt_score

PER_PAGE = 50
LOW_SCORE = 0.5
INACTIVE_DAYS = 14
MANY_INVALID = 5
INVALID_SHARE = 0.25


def students_of(course):
    return get_user_model().objects.filter(
        enrollments__course=course, enrollments__role=Role.STUDENT
    )


def _fraction(score, max_score) -> float | None:
    if score is None or not max_score:
        return None
    return float(score) / float(max_score)


# ---------------------------------------------------------------- best scores and risk


def best_scores(course) -> dict[int, dict[int, float]]:
    """{student: {quiz: best fraction}} over submitted attempts (one query)."""
    best: dict[int, dict[int, float]] = defaultdict(dict)
    for student, quiz, score, max_score in (
        Attempt.objects.filter(quiz__course=course, status=AttemptStatus.SUBMITTED)
        .values("student_id", "quiz_id")
        .annotate(best=Max("score"), top=Max("max_score"))
        .values_list("student_id", "quiz_id", "best", "top")
    ):
        fraction = _fraction(score, max_score)
        if fraction is not None:
            best[student][quiz] = fraction
    return best


@dataclass
class RiskReport:
    student_id: int
    username: str
    name: str
    reasons: list[str] = field(default_factory=list)
    mean_score: float | None = None
    last_activity: datetime | None = None
    invalid: int = 0


def at_risk(course, *, now: datetime | None = None, best=None) -> list[RiskReport]:
    """Students with low scores, no recent activity, or many unreadable answers (4 queries)."""
    now = now or timezone.now()
    best = best if best is not None else best_scores(course)
    last: dict[int, datetime] = {}
    for student, when in (
        Attempt.objects.filter(quiz__course=course)
        .values("student_id")
        .annotate(last=Max("last_activity_at"))
        .values_list("student_id", "last")
    ):
        last[student] = when
    for student, when in (
        ReadingProgress.objects.filter(chapter__part__course=course)
        .values("user_id")
        .annotate(last=Max("read_at"))
        .values_list("user_id", "last")
    ):
        if when and (student not in last or last[student] < when):
            last[student] = when
    invalid = {
        student: (bad, total)
        for student, bad, total in Response.objects.filter(variant__attempt__quiz__course=course)
        .values("variant__attempt__student_id")
        .annotate(bad=Count("id", filter=Q(status=ResponseStatus.INVALID)), total=Count("id"))
        .values_list("variant__attempt__student_id", "bad", "total")
    }
    reports = []
    cutoff = now - timedelta(days=INACTIVE_DAYS)
    for pk, username, first, last_name in students_of(course).values_list(
        "pk", "username", "first_name", "last_name"
    ):
        report = RiskReport(pk, username, f"{first} {last_name}".strip() or username)
        scores = list(best.get(pk, {}).values())
        report.mean_score = sum(scores) / len(scores) if scores else None
        if report.mean_score is not None and report.mean_score < LOW_SCORE:
            report.reasons.append(f"low scores (mean {report.mean_score:.0%})")
        report.last_activity = last.get(pk)
        if report.last_activity is None:
            report.reasons.append("no activity yet")
        elif report.last_activity < cutoff:
            report.reasons.append(f"inactive for {(now - report.last_activity).days} days")
        bad, total = invalid.get(pk, (0, 0))
        report.invalid = bad
        if bad >= MANY_INVALID and bad >= INVALID_SHARE * total:
            report.reasons.append(f"{bad} unreadable answers")
        if report.reasons:
            reports.append(report)
    reports.sort(key=lambda r: (-len(r.reasons), r.mean_score or 0, r.username))
    return reports


# ---------------------------------------------------------------- dashboard


def dashboard(course, *, now: datetime | None = None) -> dict:
    """Enrollment, reading and quiz completion per chapter, score histograms, students at risk."""
    roles = dict(
        Enrollment.objects.filter(course=course)
        .values("role")
        .annotate(n=Count("id"))
        .values_list("role", "n")
    )
    n_students = roles.get(Role.STUDENT, 0)
    quizzes = list(Quiz.objects.for_course(course).select_related("chapter"))
    readers = dict(
        ReadingProgress.objects.filter(
            chapter__part__course=course,
            user__enrollments__course=course,
            user__enrollments__role=Role.STUDENT,
        )
        .values("chapter_id")
        .annotate(n=Count("user_id", distinct=True))
        .values_list("chapter_id", "n")
    )
    best = best_scores(course)
    finished: dict[int, int] = defaultdict(int)
    per_quiz: dict[int, list[float]] = defaultdict(list)
    for scores in best.values():
        for quiz_id, fraction in scores.items():
            finished[quiz_id] += 1
            per_quiz[quiz_id].append(fraction)
    quizzes_by_chapter = defaultdict(list)
    for quiz in quizzes:
        quizzes_by_chapter[quiz.chapter_id].append(quiz)
    chapters = [
        {
            "chapter": chapter,
            "readers": readers.get(chapter.pk, 0),
            "reading_share": readers.get(chapter.pk, 0) / n_students if n_students else 0,
            "quizzes": [
                {
                    "quiz": q,
                    "finished": finished[q.pk],
                    "share": finished[q.pk] / n_students if n_students else 0,
                }
                for q in quizzes_by_chapter.get(chapter.pk, [])
            ],
        }
        for chapter in Chapter.objects.for_course(course)
    ]
    distributions = [
        {
            "quiz": quiz,
            "bins": histogram(per_quiz[quiz.pk]),
            "count": len(per_quiz[quiz.pk]),
            "mean": sum(per_quiz[quiz.pk]) / len(per_quiz[quiz.pk]) if per_quiz[quiz.pk] else None,
        }
        for quiz in quizzes
    ]
    return {
        "roles": roles,
        "students": n_students,
        "chapters": chapters,
        "unchaptered": quizzes_by_chapter.get(None, []),
        "distributions": distributions,
        "at_risk": at_risk(course, now=now, best=best),
    }


# ---------------------------------------------------------------- gradebook

SORTS = ("name", "quiz")
FILTERS = {"": "Everyone", "at-risk": "At risk", "missing": "Missing work"}


@dataclass
class Cell:
    quiz: Quiz
    best: Decimal | None = None
    max_score: Decimal | None = None
    fraction: float | None = None
    attempts: int = 0
    late: bool = False
    overridden: bool = False
    extended: bool = False
    in_progress: bool = False
    attempt_id: int | None = None


@dataclass
class Gradebook:
    quizzes: list
    page: object
    rows: list
    total: int


def gradebook(
    course,
    *,
    search: str = "",
    sort: str = "name",
    quiz_slug: str = "",
    descending: bool = False,
    show: str = "",
    diagnosis: str = "",
    page: int | str = 1,
    now: datetime | None = None,
    per_page: int = PER_PAGE,
) -> Gradebook:
    """One page of students × quizzes: best score, attempts, late, override and extension flags."""
    now = now or timezone.now()
    quizzes = list(Quiz.objects.for_course(course))
    students = students_of(course)
    if search:
        for word in search.split():
            students = students.filter(
                Q(username__icontains=word)
                | Q(first_name__icontains=word)
                | Q(last_name__icontains=word)
            )
    if show == "at-risk":
        students = students.filter(pk__in=[r.student_id for r in at_risk(course, now=now)])
    elif show == "missing":
        due = [q.pk for q in quizzes if q.is_published and q.due_at and q.due_at <= now]
        students = students.annotate(
            done=Count(
                "attempts__quiz",
                filter=Q(attempts__quiz__in=due, attempts__status=AttemptStatus.SUBMITTED),
                distinct=True,
            )
        ).filter(done__lt=len(due))
    if diagnosis:
        students = students.filter(
            pk__in=Response.objects.filter(
                diagnosis=diagnosis, variant__attempt__quiz__course=course
            ).values("variant__attempt__student_id")
        )
    by_quiz = next((q for q in quizzes if q.slug == quiz_slug), None)
    if sort == "quiz" and by_quiz is not None:
        best = (
            Attempt.objects.filter(
                student=OuterRef("pk"), quiz=by_quiz, status=AttemptStatus.SUBMITTED
            )
            .order_by("-score")
            .values("score")[:1]
        )
        key = Coalesce(Subquery(best), Decimal("-1"))
        students = students.annotate(sort_score=key).order_by(
            "-sort_score" if descending else "sort_score", Lower("username")
        )
    else:
        names = [Lower("last_name"), Lower("first_name"), Lower("username")]
        students = students.order_by(*[n.desc() if descending else n for n in names])
    paginator = Paginator(students.only("pk", "username", "first_name", "last_name"), per_page)
    page_obj = paginator.get_page(page)
    people = list(page_obj.object_list)
    rows = _gradebook_rows(course, quizzes, people)
    return Gradebook(quizzes, page_obj, rows, paginator.count)


def _gradebook_rows(course, quizzes, people) -> list[dict]:
    ids = [p.pk for p in people]
    cells = {(p.pk, q.pk): Cell(q) for p in people for q in quizzes}
    overridden = set(
        ScoreOverride.objects.filter(attempt__student_id__in=ids).values_list(
            "attempt_id", flat=True
        )
    )
    for student, quiz in Extension.objects.filter(
        student_id__in=ids, quiz__course=course
    ).values_list("student_id", "quiz_id"):
        if (student, quiz) in cells:
            cells[student, quiz].extended = True
    for pk, student, quiz, status, score, max_score, late in (
        Attempt.objects.filter(student_id__in=ids, quiz__course=course)
        .order_by("number")
        .values_list("pk", "student_id", "quiz_id", "status", "score", "max_score", "is_late")
    ):
        cell = cells.get((student, quiz))
        if cell is None:
            continue
        cell.attempts += 1
        if status != AttemptStatus.SUBMITTED:
            cell.in_progress = True
            cell.attempt_id = cell.attempt_id or pk
            continue
        if cell.best is None or (score is not None and score > cell.best):
            cell.best, cell.max_score, cell.late = score, max_score, late
            cell.fraction = _fraction(score, max_score)
            cell.attempt_id = pk
            cell.overridden = pk in overridden
    return [{"student": p, "cells": [cells[p.pk, q.pk] for q in quizzes]} for p in people]


# ---------------------------------------------------------------- one student's history


def student_history(course, student) -> dict:
    """Every attempt, variant and response of one student, with overrides and extensions."""
    attempts = list(
        Attempt.objects.filter(student=student, quiz__course=course)
        .select_related("quiz")
        .order_by("quiz__position", "quiz__slug", "number")
    )
    variants = defaultdict(list)
    for variant in (
        Variant.objects.filter(attempt__in=attempts)
        .select_related("item__template", "version")
        .order_by("attempt_id", "item__position", "index")
    ):
        variant.response_list = []
        variants[variant.attempt_id].append(variant)
    by_variant = {v.pk: v for vs in variants.values() for v in vs}
    for response in Response.objects.filter(variant_id__in=list(by_variant)).order_by(
        "part_id", "created_at", "pk"
    ):
        by_variant[response.variant_id].response_list.append(response)
    overrides = defaultdict(list)
    for override in (
        ScoreOverride.objects.filter(attempt__in=attempts)
        .select_related("created_by", "item__template")
        .order_by("-created_at", "-pk")
    ):
        overrides[override.attempt_id].append(override)
    for attempt in attempts:
        attempt.variant_list = variants[attempt.pk]
        attempt.override_list = overrides[attempt.pk]
        items = {}
        for variant in attempt.variant_list:
            items.setdefault(variant.item_id, variant.item)
        attempt.item_list = list(items.values())
    extensions = list(
        Extension.objects.filter(student=student, quiz__course=course).select_related(
            "quiz", "granted_by"
        )
    )
    return {
        "attempts": attempts,
        "extensions": extensions,
        "quizzes": list(Quiz.objects.for_course(course)),
    }


# ---------------------------------------------------------------- writes


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


def override_score(
    *, attempt: Attempt, score, reason: str, by, item: QuizItem | None = None
) -> ScoreOverride:
    """Record a manual score (points) for an attempt or one of its items, with who and why.

    The attempt's score follows: an attempt override replaces it; an item override shifts it by
    the item's change. Raises ValidationError with a message for the instructor.
    """
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
        if attempt.status == AttemptStatus.SUBMITTED:
            recompute_attempt_score(attempt)
        elif item is None:
            attempt.score = score
            attempt.save(update_fields=["score"])
    return override


def grant_extension(
    *,
    quiz: Quiz,
    student,
    by,
    due_at: datetime | None = None,
    closes_at: datetime | None = None,
    extra_minutes: int = 0,
    reason: str = "",
) -> Extension:
    """Give one student new dates and/or extra exam minutes on a quiz (replacing any earlier one).

    An exam attempt the student has open gets its deadline moved by the change in extra minutes.
    """
    if due_at is None and closes_at is None and not extra_minutes:
        raise ValidationError("Set a new due date, a new close date or extra minutes.")
    if due_at and closes_at and closes_at < due_at:
        raise ValidationError("The close date must not come before the due date.")
    if extra_minutes < 0:
        raise ValidationError("Extra minutes cannot be negative.")
    with transaction.atomic():
        earlier = Extension.objects.select_for_update().filter(quiz=quiz, student=student).first()
        added = extra_minutes - (earlier.extra_minutes if earlier else 0)
        extension, _ = Extension.objects.update_or_create(
            quiz=quiz,
            student=student,
            defaults={
                "due_at": due_at,
                "closes_at": closes_at,
                "extra_minutes": extra_minutes,
                "reason": reason.strip()[:300],
                "granted_by": by,
            },
        )
        if added:
            for attempt in Attempt.objects.select_for_update().filter(
                quiz=quiz,
                student=student,
                status=AttemptStatus.IN_PROGRESS,
                deadline__isnull=False,
            ):
                attempt.deadline += timedelta(minutes=added)
                attempt.save(update_fields=["deadline"])
    return extension


# ---------------------------------------------------------------- variant search

_FILTER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S.*)$")


def parse_parameter_filters(text: str) -> list[tuple[str, str]]:
    """ "acc=H100 dt=fp8" -> [("acc", "H100"), ("dt", "fp8")]; ValidationError names a bad one."""
    filters = []
    for token in (text or "").replace(",", " ").split():
        match = _FILTER.match(token)
        if not match or "__" in match.group(1):
            raise ValidationError(
                f"Could not read “{token}”: write filters as name=value, e.g. acc=H100 dt=fp8."
            )
        filters.append((match.group(1), match.group(2)))
    return filters


def _value_q(name: str, value: str) -> Q:
    # Catalog parameters are stored as {"catalog": ..., "key": ...}, others as plain JSON.
    q = Q(**{f"parameters__{name}__iexact": value})
    q |= Q(**{f"parameters__{name}__key__iexact": value})
    for convert in (int, float):
        try:
            number = convert(value)
        except ValueError:
            continue
        q |= Q(**{f"parameters__{name}": number})
    return q


def variant_search(course, *, template_slug: str = "", filters=(), limit: int = 500):
    """Variants of the course whose parameters match every filter (JSON key lookups)."""
    variants = Variant.objects.filter(attempt__quiz__course=course)
    if template_slug:
        variants = variants.filter(item__template__slug=template_slug)
    for name, value in filters:
        variants = variants.filter(_value_q(name, value))
    return list(
        variants.select_related(
            "attempt__student", "attempt__quiz", "item__template", "version"
        ).order_by("attempt__student__username", "attempt__quiz__position", "index")[:limit]
    )
