"""The gradebook: students × quizzes, searched, filtered, sorted and paged.

One page runs a fixed number of queries whatever the class size. An item's score is its points
times its best variant's fraction; a cell is a quiz's best submitted attempt, an override
replacing its score. The course total is one rule for the whole offering (`totals`), so a
student's total is the same on every page, filter, sort and search, and in the CSV export
(`export`), which reads the same students.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.core.paginator import Paginator
from django.db.models import Count, DecimalField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, Lower
from django.utils import timezone

from courseware.models import Enrollment, GroupMembership, Role
from quizzes.models import (
    Accommodation,
    Attempt,
    AttemptStatus,
    Extension,
    GroupExtension,
    Quiz,
    Response,
    ScoreOverride,
)
from quizzes.services.instructor import totals
from quizzes.services.instructor.overview import at_risk, score_fraction, students_of

PER_PAGE = 50

SORTS = ("name", "total", "quiz")
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
    # A submitted exam the task worker has not graded yet: shown as such, never as 0.
    grading: bool = False
    attempt_id: int | None = None
    # Parts of the counted attempt still awaiting a staff grade: its score is provisional.
    awaiting: int = 0

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
    scheme: totals.Scheme
    # Why the "missing work" filter can find no one (no due date has passed yet), or "".
    missing_note: str = ""
    groups: list = field(default_factory=list)

    @property
    def total_max(self) -> float:
        return round(float(self.scheme.total_max), 2)


def _total_expression(scheme: totals.Scheme):
    """Each student's course total as SQL (for sorting by it): the sum over the counting
    quizzes of the best submitted score, missing work 0."""
    zero = Value(Decimal(0), output_field=DecimalField(max_digits=12, decimal_places=3))
    expression = zero
    for quiz_id in scheme.possible:
        best = (
            Attempt.objects.filter(
                student=OuterRef("pk"), quiz_id=quiz_id, status=AttemptStatus.SUBMITTED
            )
            .order_by("-score")
            .values("score")[:1]
        )
        expression = expression + Coalesce(Subquery(best), zero)
    return expression


def gradebook_students(
    offering,
    *,
    quizzes: list,
    scheme: totals.Scheme,
    search: str = "",
    sort: str = "name",
    quiz_slug: str = "",
    descending: bool = False,
    show: str = "",
    diagnosis: str = "",
    group: int | None = None,
    hide_inactive: bool = False,
    now: datetime | None = None,
):
    """The gradebook's students, searched, filtered and sorted as the page shows them (the
    page and the CSV export share it), and why the "missing work" filter is empty, or ""."""
    now = now or timezone.now()
    students = students_of(offering, active_only=hide_inactive)
    if search:
        for word in search.split():
            students = students.filter(
                Q(username__icontains=word)
                | Q(first_name__icontains=word)
                | Q(last_name__icontains=word)
            )
    if group is not None:
        students = students.filter(
            pk__in=GroupMembership.objects.filter(group_id=group, group__offering=offering).values(
                "user_id"
            )
        )
    if show == "at-risk":
        students = students.filter(pk__in=[r.student_id for r in at_risk(offering, now=now)])
    missing_note = ""
    if show == "missing":
        due = [q.pk for q in quizzes if q.is_published and q.due_at and q.due_at <= now]
        if not due:
            missing_note = (
                "No quiz has a due date that has passed, so no work counts as missing yet. "
                "Give a quiz a due date on its settings page to use this filter."
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
                diagnosis=diagnosis, variant__attempt__quiz__offering=offering
            ).values("variant__attempt__student_id")
        )
    by_quiz = next((q for q in quizzes if q.slug == quiz_slug), None)
    if sort == "total":
        students = students.annotate(sort_total=_total_expression(scheme)).order_by(
            "-sort_total" if descending else "sort_total", Lower("username")
        )
    elif sort == "quiz" and by_quiz is not None:
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
    offering,
    *,
    page: int | str = 1,
    per_page: int | None = None,
    now: datetime | None = None,
    **choices,
) -> Gradebook:
    """One page of students × quizzes: best score, attempts, late, override and extension flags,
    and the course total. `choices` are `gradebook_students`' search, filter and sort."""
    quizzes = list(Quiz.objects.for_offering(offering))
    scheme = totals.scheme(offering, quizzes, now=now)
    students, missing_note = gradebook_students(
        offering, quizzes=quizzes, scheme=scheme, now=now, **choices
    )
    paginator = Paginator(
        students.only("pk", "username", "first_name", "last_name"), per_page or PER_PAGE
    )
    page_obj = paginator.get_page(page)
    people = list(page_obj.object_list)
    rows = _gradebook_rows(offering, quizzes, people, scheme)
    return Gradebook(quizzes, page_obj, rows, paginator.count, scheme, missing_note)


def _gradebook_rows(offering, quizzes, people, scheme: totals.Scheme) -> list[dict]:
    ids = [p.pk for p in people]
    cells = {(p.pk, q.pk): Cell(q) for p in people for q in quizzes}
    overridden = set(
        ScoreOverride.objects.filter(attempt__student_id__in=ids).values_list(
            "attempt_id", flat=True
        )
    )
    for student, quiz in Extension.objects.filter(
        student_id__in=ids, quiz__offering=offering
    ).values_list("student_id", "quiz_id"):
        if (student, quiz) in cells:
            cells[student, quiz].extended = True
    for student, quiz in GroupExtension.objects.filter(
        quiz__offering=offering, group__memberships__user_id__in=ids
    ).values_list("group__memberships__user_id", "quiz_id"):
        if (student, quiz) in cells:
            cells[student, quiz].extended = True
    for pk, student, quiz, status, score, max_score, late, awaiting, queued in (
        Attempt.objects.filter(student_id__in=ids, quiz__offering=offering)
        .order_by("number")
        .values_list(
            "pk",
            "student_id",
            "quiz_id",
            "status",
            "score",
            "max_score",
            "is_late",
            "awaiting_grading",
            "grading_queued_at",
        )
    ):
        cell = cells.get((student, quiz))
        if cell is None:
            continue
        cell.attempts += 1
        if status != AttemptStatus.SUBMITTED or queued is not None:
            cell.in_progress = cell.in_progress or status != AttemptStatus.SUBMITTED
            cell.grading = cell.grading or queued is not None
            cell.attempt_id = cell.attempt_id or pk
            continue
        if cell.best is None or (score is not None and score > cell.best):
            cell.best, cell.max_score, cell.late = score, max_score, late
            cell.fraction = score_fraction(score, max_score)
            cell.attempt_id = pk
            cell.overridden = pk in overridden
            cell.awaiting = awaiting
    inactive = set(
        Enrollment.objects.filter(
            offering=offering, role=Role.STUDENT, is_active=False, user_id__in=ids
        )
        .order_by()
        .values_list("user_id", flat=True)
    )
    multipliers = time_multipliers(offering, ids)
    total_max = scheme.total_max
    rows = []
    for p in people:
        row_cells = [cells[p.pk, q.pk] for q in quizzes]
        total = scheme.total({c.quiz.pk: c.best for c in row_cells})
        rows.append(
            {
                "student": p,
                "cells": row_cells,
                "total": round(float(total), 2),
                "total_max": round(float(total_max), 2),
                "total_fraction": score_fraction(total, total_max),
                "provisional": any(c.awaiting for c in row_cells),
                "inactive": p.pk in inactive,
                "multiplier": multipliers.get(p.pk),
            }
        )
    return rows


def time_multipliers(offering, ids) -> dict[int, Decimal]:
    """Each listed student's time multiplier, their own or their groups' (the largest)."""
    found: dict[int, Decimal] = {}
    for student, via_group, value in Accommodation.objects.filter(
        Q(student_id__in=ids) | Q(group__memberships__user_id__in=ids), offering=offering
    ).values_list("student_id", "group__memberships__user_id", "time_multiplier"):
        for who in {student, via_group} & set(ids):
            found[who] = max(found.get(who, value), value)
    return found
