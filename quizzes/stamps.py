"""The quizzes' two version stamps and every model that raises them: the one place they are set.

`PAGES`, an attempt's `page_stamp`: the attempt and results pages are memoised on the attempt's
row (`presenters.page_memo`, `presenters.results_memo`), which holds this stamp, so a write to
any row those pages show raises it: a response, a saved answer, a variant (its score, new
numbers), a score override, and, for every attempt at the quiz or using the version, an
author's edit of a quiz item or of a question version. The attempt's own row, the quiz's row,
the student's dates and the release policy are in the memo keys themselves.

`STATISTICS`, a quiz's `QuizActivity.changes`: kept item and offering statistics
(`services.instructor.statistics`, `offering_statistics`) are current while the counters they
were computed at have not moved, so every grade change raises it: a graded response (not an
unreadable one, which is no try), a variant's score, an attempt's score (and its deletion), an
override; an exam being graded counts once, when the task worker saves its score.

`courseware.stamps` raises them from the ORM itself (signals, and the watched models'
`StampedQuerySet`), in the writer's transaction; no service calls them. A workflow that writes
several rows wraps them in `caching.batch()` so each owner is raised once.
"""

from __future__ import annotations

from django.db.models import F, QuerySet

from courseware import caching
from quizzes.models import (
    Attempt,
    QuizActivity,
    QuizItem,
    Response,
    ResponseSource,
    ResponseStatus,
    SavedAnswer,
    ScoreOverride,
    TemplateVersion,
    Variant,
)

# Ids per UPDATE (SQLite takes at most 32,766 parameters; demo data raises thousands at once).
_CHUNK = 900


def _raise_pages(owners) -> None:
    if isinstance(owners, QuerySet):  # a subquery: one UPDATE
        Attempt.objects.filter(pk__in=owners).update(page_stamp=F("page_stamp") + 1)
        return
    ids = sorted(owners)  # in id order, as every writer locks attempts (no deadlock)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        Attempt.objects.filter(pk__in=chunk).update(page_stamp=F("page_stamp") + 1)


def _raise_statistics(owners) -> None:
    """One UPDATE per quiz (F() makes two students' increments both count); a quiz's first
    grade makes its counter first (a concurrent first grade's row wins, ours is skipped)."""
    for quiz_id in sorted(caching.ids_of(owners)):
        counter = QuizActivity.objects.filter(quiz_id=quiz_id)
        if not counter.update(changes=F("changes") + 1):
            QuizActivity.objects.bulk_create([QuizActivity(quiz_id=quiz_id)], ignore_conflicts=True)
            counter.update(changes=F("changes") + 1)


PAGES = caching.stamp(
    "attempt pages",
    raise_owners=_raise_pages,
    why="the memoised attempt and results pages are keyed on the attempt's page_stamp",
)
STATISTICS = caching.stamp(
    "quiz statistics",
    raise_owners=_raise_statistics,
    why="kept item and offering statistics are current while their quizzes' counters stand",
)

# The attempt's columns that are its grade.
_GRADE_COLUMNS = frozenset({"score", "max_score", "awaiting_grading"})


def _attempts_at_items(rows):
    return Attempt.objects.filter(quiz_id__in={row.quiz_id for row in rows}).values("pk")


def _attempts_using_versions(rows):
    return Variant.objects.filter(version__in=[row.pk for row in rows]).values("attempt")


def _not_new(row, created, fields) -> bool:
    return not created  # a new version is used by no variant yet


def _a_grade(row, created, fields) -> bool:
    """A graded response: not an unreadable answer (no try, no statistic), nor an exam's grade
    as the task worker stores it (the exam counts once, when its score is saved)."""
    if not created or row is None:
        return True
    return row.status != ResponseStatus.INVALID and row.source != ResponseSource.EXAM


def _a_score(row, created, fields) -> bool:
    return not created and (fields is None or "score" in fields)


def _an_attempt_grade(row, created, fields) -> bool:
    """A change of an attempt's grade; not of an exam waiting for the task worker (a deadline's
    thousand submissions would queue on the quiz's counter row): it counts once graded."""
    if created or (row is not None and row.grading_queued_at is not None):
        return False
    return fields is None or bool(fields & _GRADE_COLUMNS)


def watch() -> None:
    """Connect every watched model (QuizzesConfig.ready)."""
    PAGES.watch(Response, "variant__attempt")
    PAGES.watch(SavedAnswer, "variant__attempt")
    PAGES.watch(Variant, "attempt")
    PAGES.watch(ScoreOverride, "attempt")
    PAGES.watch(QuizItem, _attempts_at_items)
    PAGES.watch(TemplateVersion, _attempts_using_versions, when=_not_new)
    STATISTICS.watch(Response, "variant__attempt__quiz", when=_a_grade)
    STATISTICS.watch(Variant, "attempt__quiz", when=_a_score)
    STATISTICS.watch(Attempt, "quiz", when=_an_attempt_grade)
    STATISTICS.watch(ScoreOverride, "attempt__quiz")
