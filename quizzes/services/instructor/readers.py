"""What instructors read about their class: the dashboard, students at risk, the gradebook and
one student's history.

Every reader runs a fixed number of queries whatever the class size. Scores are in points; an
item's score is its points times its best variant's fraction, and an attempt's score is kept by
the attempt service, an override replacing it (the latest override wins).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Count, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from courseware.models import Chapter, Enrollment, ReadingProgress, Role
from quizzes.models import (
    Attempt,
    AttemptStatus,
    Extension,
    Quiz,
    Response,
    ResponseStatus,
    ScoreOverride,
    Variant,
)
from quizzes.services.analytics import histogram

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

    # Rounded for people (16.33, 11.5); exports keep the exact points.
    @property
    def best_shown(self) -> float | None:
        return None if self.best is None else round(float(self.best), 2)

    @property
    def max_shown(self) -> float | None:
        return None if self.max_score is None else round(float(self.max_score), 2)


@dataclass
class Gradebook:
    quizzes: list
    page: object
    rows: list
    total: int
    # Why the "missing work" filter can find no one (no due date has passed yet), or "".
    missing_note: str = ""


def gradebook_students(
    course,
    *,
    quizzes: list,
    search: str = "",
    sort: str = "name",
    quiz_slug: str = "",
    descending: bool = False,
    show: str = "",
    diagnosis: str = "",
    now: datetime | None = None,
):
    """The gradebook's students, searched, filtered and sorted as the page shows them (the
    page and the CSV export share it), and why the "missing work" filter is empty, or ""."""
    now = now or timezone.now()
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
    missing_note = ""
    if show == "missing":
        due = [q.pk for q in quizzes if q.is_published and q.due_at and q.due_at <= now]
        if not due:
            missing_note = (
                "No quiz has a due date that has passed, so no work counts as missing yet. "
                "Give a quiz a due date in its quiz file to use this filter."
            )
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
    return students, missing_note


def gradebook(
    course,
    *,
    page: int | str = 1,
    per_page: int = PER_PAGE,
    **choices,
) -> Gradebook:
    """One page of students × quizzes: best score, attempts, late, override and extension flags.
    `choices` are `gradebook_students`' search, filter and sort."""
    quizzes = list(Quiz.objects.for_course(course))
    students, missing_note = gradebook_students(course, quizzes=quizzes, **choices)
    paginator = Paginator(students.only("pk", "username", "first_name", "last_name"), per_page)
    page_obj = paginator.get_page(page)
    people = list(page_obj.object_list)
    rows = _gradebook_rows(course, quizzes, people)
    return Gradebook(quizzes, page_obj, rows, paginator.count, missing_note)


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
    # A quiz's maximum is known from any submitted attempt at it; a quiz no one on this page has
    # submitted is left out of every total rather than guessed.
    out_of = {}
    for (_, quiz_id), cell in cells.items():
        if cell.max_score is not None:
            out_of.setdefault(quiz_id, cell.max_score)
    rows = []
    for p in people:
        row_cells = [cells[p.pk, q.pk] for q in quizzes]
        total = sum((c.best for c in row_cells if c.best is not None), Decimal(0))
        total_max = sum(out_of.values(), Decimal(0))
        rows.append(
            {
                "student": p,
                "cells": row_cells,
                "total": round(float(total), 2),
                "total_max": round(float(total_max), 2),
                "total_fraction": _fraction(total, total_max),
            }
        )
    return rows


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
