"""The rows the instructor's item pages, variant search and per-student forms load.

Each reader runs a fixed number of queries; the statistics come from `analytics`, the rows of a
student or attempt from the course they must belong to (another course's id is a 404).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.shortcuts import get_object_or_404

from courseware.models import Chapter, Role
from quizzes.models import Attempt, QuestionTemplate, Quiz, QuizItem, RegradeRun
from quizzes.services import analytics
from quizzes.services.instructor import statistics


def enrolled_student(course, user_id: int):
    """The course's student `user_id`, or 404."""
    return get_object_or_404(
        get_user_model(),
        pk=user_id,
        enrollments__course=course,
        enrollments__role=Role.STUDENT,
    )


def course_attempt(course, attempt_id: int) -> Attempt:
    """An attempt at one of the course's quizzes, with its student, or 404."""
    return get_object_or_404(
        Attempt.objects.select_related("student"), pk=attempt_id, quiz__course=course
    )


def attempt_item(attempt: Attempt, item_id: int) -> QuizItem | None:
    """The question `item_id` of the attempt's quiz, or None for any other id."""
    return QuizItem.objects.filter(pk=item_id, quiz=attempt.quiz_id).first()


def book_chapters(course) -> list[tuple[str, str]]:
    """(slug, title) of the course's chapters in the book's reading order."""
    return list(
        Chapter.objects.for_course(course)
        .order_by("part__number", "order")
        .values_list("slug", "title")
    )


def item_index(course) -> tuple[list[analytics.ItemStats], list[tuple[str, str]]]:
    """Every template's headline statistics, and the book's chapters to place them in."""
    return analytics.template_index(course), book_chapters(course)


def item_page(course, slug: str, quiz_slug: str | None = None) -> dict:
    """A template's (or its item's in one quiz) kept statistics and the quizzes that ask it:
    four small queries whatever the number of students."""
    template = get_object_or_404(QuestionTemplate, course=course, slug=slug)
    quiz = None
    if quiz_slug is not None:
        quiz = get_object_or_404(Quiz, course=course, slug=quiz_slug)
    every = statistics.scope(template)
    kept = statistics.kept(template, quiz=quiz, within=every)
    return {
        "template": template,
        "quiz": quiz,
        "quizzes": every.quizzes,
        "stats": kept.stats,
        "kept": kept,
    }


def template_choices(course) -> list[tuple[str, str]]:
    """(slug, title) of the course's templates, for the variant search's picker."""
    return list(QuestionTemplate.objects.for_course(course).values_list("slug", "title"))


def course_template(course, pk: int) -> QuestionTemplate | None:
    """The course's template `pk`, or None."""
    return QuestionTemplate.objects.for_course(course).filter(pk=pk).first()


def regradable_templates(course) -> list[QuestionTemplate]:
    """The course's templates that have a published version to regrade to."""
    return list(
        QuestionTemplate.objects.for_course(course)
        .annotate(n_versions=Count("versions"))
        .filter(n_versions__gt=0)
        .order_by("slug")
    )


def recent_regrades(course, *, limit: int = 20) -> list[RegradeRun]:
    """The course's latest regrade runs, newest first."""
    return list(
        RegradeRun.objects.filter(template__course=course).select_related(
            "template", "target_version", "created_by"
        )[:limit]
    )


def course_regrade(course, run_id: int) -> RegradeRun:
    """A regrade run of one of the course's templates, or 404."""
    return get_object_or_404(
        RegradeRun.objects.select_related("template", "target_version", "created_by"),
        pk=run_id,
        template__course=course,
    )
