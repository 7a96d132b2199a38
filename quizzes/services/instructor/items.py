"""The rows the instructor's item pages, variant search and per-student forms load.

Each reader runs a fixed number of queries; the statistics come from `analytics`, the rows of a
student or attempt from the offering they must belong to (another offering's id is a 404).
Templates are the site's bank (`offering.course`); statistics and regrades are the offering's.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone

from courseware import caching
from courseware.models import Chapter, Role
from quizzes.models import Attempt, QuestionTemplate, Quiz, QuizItem, RegradeRun
from quizzes.services import analytics
from quizzes.services.instructor import offering_statistics, statistics


def enrolled_student(offering, user_id: int):
    """The offering's student `user_id`, or 404."""
    return get_object_or_404(
        get_user_model(),
        pk=user_id,
        enrollments__offering=offering,
        enrollments__role=Role.STUDENT,
    )


def offering_attempt(offering, attempt_id: int) -> Attempt:
    """An attempt at one of the offering's quizzes, with its student, or 404."""
    attempt = get_object_or_404(
        Attempt.objects.select_related("student", "quiz"), pk=attempt_id, quiz__offering=offering
    )
    attempt.quiz.offering = offering
    return attempt


def attempt_item(attempt: Attempt, item_id: int) -> QuizItem | None:
    """The question `item_id` of the attempt's quiz, or None for any other id."""
    return QuizItem.objects.filter(pk=item_id, quiz=attempt.quiz_id).first()


def book_chapters(course) -> list[tuple[str, str]]:
    """(slug, title) of the book's chapters in reading order."""
    return list(
        Chapter.objects.for_course(course)
        .order_by("part__number", "order")
        .values_list("slug", "title")
    )


def item_index(offering, scope=None, *, counters=None):
    """Every bank template's headline statistics in the offering, the book's chapters to place
    them in, and the kept row they came from (None when computed now). Kept per offering
    (`offering_statistics`), so the page's queries do not grow with the class; within a
    narrowing `scope` (the analytics filter) they are computed now and not kept. `counters`:
    the offering's quiz counters if the caller read them (`offering_statistics.counters`)."""
    chapters = book_chapters(offering.course_id)
    if scope is not None and scope.narrows:
        return analytics.template_index(offering, scope), chapters, None
    kept = offering_statistics.kept(
        offering, offering_statistics.Kind.ITEM_INDEX, now_seen=counters
    )
    return analytics.index_rows(offering, kept.data), chapters, kept


_map_rows = caching.local_cache(
    "misconception map rows",
    max_bytes=8 * 1024 * 1024,
    why="the map's rows drawn once per refresh of its kept figures, not on every view",
)


def misconception_page(offering, scope=None, *, counters=None) -> dict:
    """The misconception map's rows and the kept row they came from (None when computed now
    for a narrowing `scope`); kept per offering like the item index (`counters` as there)."""
    # The page's links, reversed once rather than once per row and place.
    urls = {
        "items_url": reverse("instructor:item_index", args=[offering.slug]),
        "gradebook_url": reverse("instructor:gradebook", args=[offering.slug]),
    }
    if scope is not None and scope.narrows:
        rows = analytics.misconception_map(offering, scope)
        return {"rows": rows, "kept": None, "rows_key": None, **urls}
    kept = offering_statistics.kept(
        offering, offering_statistics.Kind.MISCONCEPTIONS, now_seen=counters
    )
    # The rows depend on the kept figures (named by when they were computed) and the book's
    # titles and texts (by content hash), so they are drawn once per refresh, not per view.
    book = analytics.book_titles(offering)
    key = (offering.pk, kept.computed_at.isoformat(), tuple(sorted(book.items())))
    rows = _map_rows.get_or_build(
        key, lambda: analytics.misconception_rows(offering, kept.data, book)
    )
    return {"rows": [dict(row) for row in rows], "kept": kept, "rows_key": key, **urls}


def item_page(offering, slug: str, quiz_slug: str | None = None, scope=None) -> dict:
    """A template's (or its item's in one quiz) kept statistics in the offering and the
    offering's quizzes that ask it: four small queries whatever the number of students.
    Within a narrowing `scope` (the analytics filter: a quiz, a group, a range of days) the
    statistics are computed now from the grades it keeps, and not kept."""
    template = get_object_or_404(QuestionTemplate, course=offering.course_id, slug=slug)
    quiz = None
    if quiz_slug is not None:
        quiz = get_object_or_404(Quiz, offering=offering, slug=quiz_slug)
    every = statistics.scope(template, offering)
    if scope is not None and scope.narrows:
        rows = every.within(quiz).item_rows
        if scope.quiz is not None:
            rows = [(item, quiz_id) for item, quiz_id in rows if quiz_id == scope.quiz.pk]
        live = analytics.item_analysis(template, item_rows=rows, scope=scope)
        kept = statistics.Kept(live, timezone.now(), stale=False)
    else:
        kept = statistics.kept(template, offering, quiz=quiz, within=every)
    return {
        "template": template,
        "quiz": quiz,
        "quizzes": every.quizzes,
        "stats": kept.stats,
        "kept": kept,
    }


def template_choices(offering) -> list[tuple[str, str]]:
    """(slug, title) of the bank's templates, for the variant search's picker."""
    return list(
        QuestionTemplate.objects.for_course(offering.course_id).values_list("slug", "title")
    )


def offering_template(offering, pk: int) -> QuestionTemplate | None:
    """The bank's template `pk` (the offering's course's), or None."""
    return QuestionTemplate.objects.for_course(offering.course_id).filter(pk=pk).first()


def regradable_templates(offering) -> list[QuestionTemplate]:
    """The bank's templates that have a published version to regrade to."""
    return list(
        QuestionTemplate.objects.for_course(offering.course_id)
        .annotate(n_versions=Count("versions"))
        .filter(n_versions__gt=0)
        .order_by("slug")
    )


def recent_regrades(offering, *, limit: int = 20) -> list[RegradeRun]:
    """The offering's latest regrade runs, newest first."""
    return list(
        RegradeRun.objects.filter(offering=offering).select_related(
            "template", "target_version", "created_by"
        )[:limit]
    )


def offering_regrade(offering, run_id: int) -> RegradeRun:
    """A regrade run of the offering, or 404."""
    return get_object_or_404(
        RegradeRun.objects.select_related("template", "target_version", "created_by"),
        pk=run_id,
        offering=offering,
    )
