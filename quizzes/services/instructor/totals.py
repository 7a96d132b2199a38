"""The course total: which quizzes count, what each is worth, and each student's sum.

One rule for the whole offering, so a student's total is the same on every page of the
gradebook, under every filter, sort and search, and in the CSV (the walkthrough's H1 found it
moving with the rows on the page):

- a quiz counts when it is published and either its due date has passed (its close date, for
  a quiz with no due date) or someone in the offering has submitted an attempt at it;
- it is worth its points possible: every unpooled item's points, and for each pool the points
  of the `draw` best-paid items of the pool (one pool's items normally carry the same points);
- a student's total is the sum of their best submitted score (overrides included) on each
  counting quiz, work not submitted counting 0, out of the sum of the counting quizzes' points.

Each reader runs a fixed number of queries whatever the class size.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Max
from django.utils import timezone

from quizzes.models import Attempt, AttemptStatus, Quiz, QuizItem

RULE = (
    "The course total adds each student's best score on the quizzes that count: published "
    "quizzes whose due date has passed, or that someone in this offering has submitted. Work "
    "not submitted counts 0; the total is out of those quizzes' points."
)


def possible_points(quiz: Quiz, items: list[tuple[Decimal, str]]) -> Decimal:
    """What one attempt at `quiz` is out of, from its items' (points, pool): the same draw as
    `attempts.draw_items` (a pool the quiz does not name asks all of its items)."""
    named = quiz.pools or {}
    total = Decimal(0)
    pools: dict[str, list[Decimal]] = defaultdict(list)
    for points, pool in items:
        if pool:
            pools[pool].append(Decimal(points))
        else:
            total += Decimal(points)
    for pool, worth in pools.items():
        draw = int(named[pool]) if pool in named else len(worth)
        total += sum(sorted(worth, reverse=True)[:draw], Decimal(0))
    return total


def is_due(quiz: Quiz, now: datetime) -> bool:
    moment = quiz.due_at or quiz.closes_at
    return moment is not None and moment <= now


@dataclass(frozen=True)
class Scheme:
    """The offering's counting quizzes, each with its points possible, and their sum."""

    possible: dict[int, Decimal]

    @property
    def total_max(self) -> Decimal:
        return sum(self.possible.values(), Decimal(0))

    def counts(self, quiz_id: int) -> bool:
        return quiz_id in self.possible

    def total(self, best: dict[int, Decimal | None]) -> Decimal:
        """A student's total from their best score per quiz (missing: 0)."""
        return sum((best.get(quiz_id) or Decimal(0) for quiz_id in self.possible), Decimal(0))


def scheme(offering, quizzes: list[Quiz], *, now: datetime | None = None) -> Scheme:
    """Which of `quizzes` (the offering's) count and their points possible: two queries."""
    now = now or timezone.now()
    submitted = set(
        Attempt.objects.filter(quiz__offering=offering, status=AttemptStatus.SUBMITTED)
        .order_by()
        .values_list("quiz_id", flat=True)
        .distinct()
    )
    counting = [q for q in quizzes if q.is_published and (q.pk in submitted or is_due(q, now))]
    items: dict[int, list] = defaultdict(list)
    for quiz_id, points, pool in QuizItem.objects.filter(
        quiz_id__in=[q.pk for q in counting]
    ).values_list("quiz_id", "points", "pool"):
        items[quiz_id].append((points, pool))
    return Scheme({q.pk: possible_points(q, items[q.pk]) for q in counting})


def best_scores_of(offering, scheme: Scheme, student_ids=None) -> dict[int, dict[int, Decimal]]:
    """{student: {quiz: best submitted score in points}} over the counting quizzes (one
    query); `student_ids` (a list or a queryset of ids) limits the students."""
    rows = Attempt.objects.filter(
        quiz_id__in=list(scheme.possible),
        quiz__offering=offering,
        status=AttemptStatus.SUBMITTED,
    )
    if student_ids is not None:
        rows = rows.filter(student_id__in=student_ids)
    best: dict[int, dict[int, Decimal]] = defaultdict(dict)
    for student, quiz, score in (
        rows.values("student_id", "quiz_id")
        .annotate(best=Max("score"))
        .values_list("student_id", "quiz_id", "best")
    ):
        if score is not None:
            best[student][quiz] = score
    return best


def course_totals(offering, scheme: Scheme, student_ids=None) -> dict[int, Decimal]:
    """Each student's course total (students without a counting score are absent: 0)."""
    return {
        student: scheme.total(scores)
        for student, scores in best_scores_of(offering, scheme, student_ids).items()
    }
