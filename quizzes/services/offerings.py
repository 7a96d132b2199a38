"""Copying an offering: a new term in a minute.

The copy has the same quizzes with the same settings and items (the same bank templates, the
same pinned versions), every date moved by the chosen offset, and nothing of the people: no
students, no attempts, no extensions, no LMS links. Each copied quiz remembers the quiz it was
copied from and keeps its file provenance (`source_path`, `content_hash`), so a later check can
tell a browser edit from a file edit; the copy itself never follows the quiz files (its rows are
its own), whatever its source does.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction

from courseware.models import Offering, Role
from courseware.offerings import create_offering, give_role
from quizzes.models import Quiz, QuizItem

# An item an answered quiz file dropped stays in its quiz, in a pool that draws nothing
# (`bank.sync.set_quiz_items`); a copy, which has no answers, leaves it out.
RETIRED_POOL = "retired"
MAX_SHIFT = timedelta(days=3660)
DATES = ("opens_at", "due_at", "closes_at")


def copy_offering(
    *,
    source: Offering,
    slug: str,
    title: str,
    term: str = "",
    section: str = "",
    time_zone: str | None = None,
    shift: timedelta = timedelta(0),
    by=None,
    instructors=(),
) -> Offering:
    """A new offering with `source`'s quizzes and settings, dates moved by `shift`; `instructors`
    become its instructors. Raises ValidationError with a message for the administrator."""
    if abs(shift) > MAX_SHIFT:
        raise ValidationError("Shift the dates by at most ten years.")
    with transaction.atomic():
        offering = create_offering(
            course=source.course,
            slug=slug,
            title=title,
            term=term,
            section=section,
            time_zone=time_zone or source.time_zone,
            by=by,
            copied_from=source,
        )
        copy_quizzes(source=source, target=offering, shift=shift)
        for user in instructors:
            give_role(offering=offering, user=user, role=Role.INSTRUCTOR)
    return offering


def copy_quizzes(*, source: Offering, target: Offering, shift: timedelta = timedelta(0)) -> int:
    """Copy every quiz of `source` (and its items) into `target`; how many. A quiz slug that
    `target` has already is refused, so nothing is overwritten."""
    quizzes = list(Quiz.objects.filter(offering=source).order_by("position", "slug", "pk"))
    clash = set(
        Quiz.objects.filter(offering=target, slug__in=[q.slug for q in quizzes]).values_list(
            "slug", flat=True
        )
    )
    if clash:
        raise ValidationError(
            f"The offering has these quizzes already: {', '.join(sorted(clash))}."
        )
    items = list(
        QuizItem.objects.filter(quiz__offering=source)
        .exclude(pool=RETIRED_POOL)
        .order_by("quiz_id", "position")
    )
    for quiz in quizzes:
        original = quiz.pk
        quiz.pk = None
        quiz._state.adding = True
        quiz.offering = target
        quiz.copied_from_id = original
        quiz.pools = {name: n for name, n in (quiz.pools or {}).items() if name != RETIRED_POOL}
        for name in DATES:
            moment = getattr(quiz, name)
            if moment is not None:
                setattr(quiz, name, moment + shift)
        quiz.save()
        QuizItem.objects.bulk_create(
            [
                QuizItem(
                    quiz=quiz,
                    template_id=item.template_id,
                    pinned_version_id=item.pinned_version_id,
                    position=position,
                    points=item.points,
                    pool=item.pool,
                )
                for position, item in enumerate(
                    (i for i in items if i.quiz_id == original), start=1
                )
            ]
        )
    return len(quizzes)
