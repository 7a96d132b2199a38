"""The rows behind the student's quiz list and My progress, read in a fixed number of queries.

Reads only; `quizzes.presenters.progress` turns them into the pages' rows.
"""

from __future__ import annotations

from collections import Counter

from django.db.models import Count, F, Q

from courseware.models import Chapter, GroupMembership, ReadingProgress
from quizzes.models import (
    Accommodation,
    Attempt,
    Extension,
    GroupExtension,
    Quiz,
    QuizItem,
    Response,
    ScoreOverride,
)
from quizzes.services.availability import GroupTerms


def visible_quizzes(offering) -> list[Quiz]:
    """The offering's published quizzes: chapter quizzes in reading order, then the ones that
    span the part (review, exam): 1 query."""
    return list(
        Quiz.objects.for_offering(offering)
        .visible()
        .select_related("chapter__part")
        .order_by(
            F("chapter__part__number").asc(nulls_last=True),
            F("chapter__order").asc(nulls_last=True),
            "position",
            "slug",
        )
    )


def attempt_overrides(student) -> dict[int, list[ScoreOverride]]:
    """The student's whole-attempt score overrides by attempt id: 1 query."""
    rows: dict[int, list] = {}
    for override in ScoreOverride.objects.filter(attempt__student=student, item__isnull=True):
        rows.setdefault(override.attempt_id, []).append(override)
    return rows


def extensions_by_quiz(student, quizzes) -> dict[int, Extension]:
    """The student's extensions on `quizzes`: 1 query."""
    return {e.quiz_id: e for e in Extension.objects.filter(student=student, quiz__in=quizzes)}


def group_terms_by_quiz(student, quizzes) -> dict[int, GroupTerms]:
    """What the student's groups' extensions add up to on each of `quizzes`: 1 query."""
    rows: dict[int, list] = {}
    for extension in GroupExtension.objects.filter(
        quiz__in=quizzes,
        group_id__in=GroupMembership.objects.filter(user=student).values("group_id"),
    ):
        rows.setdefault(extension.quiz_id, []).append(extension)
    return {quiz_id: GroupTerms.of(found) for quiz_id, found in rows.items()}


def time_multiplier(student, offering):
    """The student's time multiplier in the offering (their own or a group's, the largest), or
    None: 1 query."""
    return (
        Accommodation.objects.filter(offering=offering)
        .filter(
            Q(student=student)
            | Q(group_id__in=GroupMembership.objects.filter(user=student).values("group_id"))
        )
        .order_by("-time_multiplier")
        .values_list("time_multiplier", flat=True)
        .first()
    )


def item_pools(quizzes) -> dict[int, list[str]]:
    """The pool of each item of each quiz ("" for an unpooled one), by quiz id: 1 query."""
    pools: dict[int, list[str]] = {quiz.pk: [] for quiz in quizzes}
    for quiz_id, pool in QuizItem.objects.filter(quiz__in=quizzes).values_list("quiz_id", "pool"):
        pools[quiz_id].append(pool)
    return pools


def attempts_of(student, quizzes) -> list[Attempt]:
    """The student's attempts at `quizzes`, by number: 1 query."""
    return list(Attempt.objects.filter(student=student, quiz__in=quizzes).order_by("number"))


def whole_attempt_overrides(attempt):
    """1 query."""
    return ScoreOverride.objects.filter(attempt=attempt, item=None)


def chapters_and_reading(course, student) -> tuple[list[Chapter], set[int]]:
    """The book's chapters in reading order and the ids of those the student read: 2 queries."""
    chapters = list(Chapter.objects.for_course(course).order_by("part__number", "order"))
    read = set(
        ReadingProgress.objects.filter(user=student, chapter__in=chapters).values_list(
            "chapter_id", flat=True
        )
    )
    return chapters, read


def diagnosis_counts(student, *, quiz_ids) -> Counter:
    """How often the grader recognised each mistake in the student's responses to the quizzes
    whose results are released to them (`quiz_ids`; an exam's wait for its release): 1 query."""
    return Counter(
        dict(
            Response.objects.filter(
                variant__attempt__student=student, variant__attempt__quiz_id__in=list(quiz_ids)
            )
            .exclude(diagnosis="")
            .values_list("diagnosis")
            .annotate(n=Count("id"))
            .values_list("diagnosis", "n")
        )
    )
