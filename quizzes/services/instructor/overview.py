"""What instructors read about their class as a whole: the dashboard and students at risk,
over each student's best submitted score per quiz.

Every reader runs a fixed number of queries whatever the class size. Scores are in points; an
attempt's score is kept by the attempt service, an override replacing it (the latest override
wins). The gradebook (`book`) builds on these.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q
from django.utils import timezone

from courseware.models import Chapter, Enrollment, ReadingProgress, Role
from quizzes.models import Attempt, AttemptStatus, Quiz, Response, ResponseStatus
from quizzes.services.analytics import histogram

LOW_SCORE = 0.5
INACTIVE_DAYS = 14
MANY_INVALID = 5
INVALID_SHARE = 0.25


def students_of(offering, *, active_only: bool = False):
    """The offering's students; `active_only` leaves out the deactivated ones (who keep their
    work and stay in the gradebook unless it is asked to hide them)."""
    if active_only:
        return get_user_model().objects.filter(
            enrollments__offering=offering,
            enrollments__role=Role.STUDENT,
            enrollments__is_active=True,
        )
    return get_user_model().objects.filter(
        enrollments__offering=offering, enrollments__role=Role.STUDENT
    )


def score_fraction(score, max_score) -> float | None:
    if score is None or not max_score:
        return None
    return float(score) / float(max_score)


# ---------------------------------------------------------------- best scores and risk


def best_scores(offering, scope=None) -> dict[int, dict[int, float]]:
    """{student: {quiz: best fraction}} over submitted attempts (one query), within `scope`
    (`analytics.AnalyticsScope`: a quiz, a group's students, submitted in a range of days)."""
    best: dict[int, dict[int, float]] = defaultdict(dict)
    attempts = Attempt.objects.filter(quiz__offering=offering, status=AttemptStatus.SUBMITTED)
    if scope is not None:
        attempts = scope.attempts(attempts)
    for student, quiz, score, max_score in (
        attempts.values("student_id", "quiz_id")
        .annotate(best=Max("score"), top=Max("max_score"))
        .values_list("student_id", "quiz_id", "best", "top")
    ):
        fraction = score_fraction(score, max_score)
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


def at_risk(offering, *, now: datetime | None = None, best=None, group=None) -> list[RiskReport]:
    """Students (of `group`, when given) with low scores, no recent activity, or many
    unreadable answers (4 queries)."""
    now = now or timezone.now()
    best = best if best is not None else best_scores(offering)
    last: dict[int, datetime] = {}
    for student, when in (
        Attempt.objects.filter(quiz__offering=offering)
        .values("student_id")
        .annotate(last=Max("last_activity_at"))
        .values_list("student_id", "last")
    ):
        last[student] = when
    for student, when in (
        ReadingProgress.objects.filter(chapter__part__course=offering.course_id)
        .values("user_id")
        .annotate(last=Max("read_at"))
        .values_list("user_id", "last")
    ):
        if when and (student not in last or last[student] < when):
            last[student] = when
    invalid = {
        student: (bad, total)
        for student, bad, total in Response.objects.filter(
            variant__attempt__quiz__offering=offering
        )
        .values("variant__attempt__student_id")
        .annotate(bad=Count("id", filter=Q(status=ResponseStatus.INVALID)), total=Count("id"))
        .values_list("variant__attempt__student_id", "bad", "total")
    }
    reports = []
    cutoff = now - timedelta(days=INACTIVE_DAYS)
    students = students_of(offering, active_only=True)
    if group is not None:
        students = students.filter(group_memberships__group=group)
    for pk, username, first, last_name in students.values_list(
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


def dashboard(offering, *, now: datetime | None = None, scope=None) -> dict:
    """Enrollment, reading and quiz completion per chapter, score histograms, students at risk;
    within `scope` (the analytics filter): its quiz, its group's students, and scores of
    attempts submitted in its days."""
    enrolled = Enrollment.objects.filter(offering=offering, is_active=True)
    if scope is not None and scope.group is not None:
        enrolled = enrolled.filter(user__group_memberships__group=scope.group)
    roles = dict(enrolled.values("role").annotate(n=Count("id")).values_list("role", "n"))
    n_students = roles.get(Role.STUDENT, 0)
    quizzes = Quiz.objects.for_offering(offering).select_related("chapter")
    if scope is not None and scope.quiz is not None:
        quizzes = quizzes.filter(pk=scope.quiz.pk)
    quizzes = list(quizzes)
    reading = ReadingProgress.objects.filter(
        chapter__part__course=offering.course_id,
        user__enrollments__offering=offering,
        user__enrollments__role=Role.STUDENT,
    )
    if scope is not None and scope.group is not None:
        reading = reading.filter(user__group_memberships__group=scope.group)
    readers = dict(
        reading.values("chapter_id")
        .annotate(n=Count("user_id", distinct=True))
        .values_list("chapter_id", "n")
    )
    best = best_scores(offering, scope)
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
        for chapter in Chapter.objects.for_course(offering.course_id)
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
        "at_risk": at_risk(offering, now=now, best=best, group=scope and scope.group),
    }
