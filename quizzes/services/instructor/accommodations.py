"""Terms for more than one quiz or more than one student: a group's extension on a quiz, a time
multiplier (an accommodation) for a student or a group on every timed quiz of the offering,
and taking back a student's extension. Each write is one keyword-only function inside a
transaction that also moves the deadlines of the attempts it affects (`refresh_open_deadlines`);
each raises ValidationError with a message for the instructor.

`terms_rows` reads every extension and accommodation of an offering for its page and its CSV.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction

from courseware.models import GroupMembership, StudentGroup
from quizzes.models import Accommodation, Extension, GroupExtension, Quiz
from quizzes.models.accommodations import MULTIPLIER_MAX, MULTIPLIER_MIN
from quizzes.services.instructor.writes import checked_terms, refresh_open_deadlines


def _group_of(offering, group: StudentGroup) -> StudentGroup:
    if group.offering_id != offering.pk:
        raise ValidationError("Choose one of this offering's groups.")
    return group


def _members(group: StudentGroup) -> list[int]:
    return list(GroupMembership.objects.filter(group=group).values_list("user_id", flat=True))


def set_group_extension(
    *,
    quiz: Quiz,
    group: StudentGroup,
    by,
    opens_at: datetime | None = None,
    due_at: datetime | None = None,
    closes_at: datetime | None = None,
    extra_minutes: int = 0,
    extra_attempts: int = 0,
    reason: str = "",
) -> GroupExtension:
    """Give a group other dates, extra minutes and/or attempts on one quiz (replacing the
    group's earlier extension on it). A member's own extension still wins field by field."""
    _group_of(quiz.offering, group)
    terms = checked_terms(
        opens_at=opens_at,
        due_at=due_at,
        closes_at=closes_at,
        extra_minutes=extra_minutes,
        extra_attempts=extra_attempts,
        reason=reason,
        by=by,
    )
    with transaction.atomic():
        extension, _ = GroupExtension.objects.select_for_update().update_or_create(
            quiz=quiz, group=group, defaults=terms
        )
        refresh_open_deadlines(quizzes=[quiz], student_ids=_members(group))
    return extension


@transaction.atomic
def remove_extension(*, extension: Extension | GroupExtension) -> None:
    """Take back a student's or a group's extension; open attempts get their deadlines back."""
    quiz = extension.quiz
    students = (
        [extension.student_id] if isinstance(extension, Extension) else _members(extension.group)
    )
    extension.delete()
    refresh_open_deadlines(quizzes=[quiz], student_ids=students)


def _multiplier(value) -> Decimal:
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValidationError("The time multiplier is a number, like 1.5.") from None
    if not number.is_finite() or not MULTIPLIER_MIN <= number <= MULTIPLIER_MAX:
        raise ValidationError(
            f"The time multiplier is from {MULTIPLIER_MIN} to {MULTIPLIER_MAX} (1.5 gives half "
            "as much time again)."
        )
    return number.quantize(Decimal("0.01"))


def set_accommodation(
    *, offering, by, time_multiplier, student=None, group=None, reason: str = ""
) -> Accommodation:
    """A time multiplier on every timed quiz of the offering, for one of its students or one
    of its groups (replacing the earlier one). The open attempts of the people it covers get
    their new deadlines at once."""
    if (student is None) == (group is None):
        raise ValidationError("An accommodation is for one student or one group.")
    multiplier = _multiplier(time_multiplier)
    if group is not None:
        _group_of(offering, group)
    with transaction.atomic():
        accommodation, _ = Accommodation.objects.select_for_update().update_or_create(
            offering=offering,
            student=student,
            group=group,
            defaults={
                "time_multiplier": multiplier,
                "reason": reason.strip()[:300],
                "granted_by": by,
            },
        )
        people = [student.pk] if student is not None else _members(group)
        refresh_open_deadlines(quizzes=Quiz.objects.for_offering(offering), student_ids=people)
    return accommodation


@transaction.atomic
def remove_accommodation(*, accommodation: Accommodation) -> None:
    people = (
        [accommodation.student_id] if accommodation.student_id else _members(accommodation.group)
    )
    offering = accommodation.offering
    accommodation.delete()
    refresh_open_deadlines(quizzes=Quiz.objects.for_offering(offering), student_ids=people)


def members_changed(*, offering, user_ids=None) -> int:
    """Who is in which group changed (for `user_ids`, or anyone in the offering): their open
    attempts get the deadlines their groups' terms now give them."""
    with transaction.atomic():
        return refresh_open_deadlines(
            quizzes=Quiz.objects.for_offering(offering), student_ids=user_ids
        )


# ---------------------------------------------------------------- reading


@dataclass
class TermsRow:
    """One extension or accommodation as the page and the CSV list it."""

    kind: str  # "student extension", "group extension", "accommodation"
    who: str
    username: str
    quiz: str
    opens_at: datetime | None
    due_at: datetime | None
    closes_at: datetime | None
    extra_minutes: int
    extra_attempts: int
    time_multiplier: Decimal | None
    reason: str
    granted_by: str
    granted_at: datetime | None
    row: object


def _extension_row(kind: str, who: str, username: str, e) -> TermsRow:
    """A student's or a group's extension on one quiz as a row (no time multiplier)."""
    return TermsRow(
        kind,
        who,
        username,
        e.quiz.title,
        e.opens_at,
        e.due_at,
        e.closes_at,
        e.extra_minutes,
        e.extra_attempts,
        None,
        e.reason,
        e.granted_by.username if e.granted_by else "",
        e.granted_at,
        e,
    )


def terms_rows(offering) -> list[TermsRow]:
    """Every extension (students' and groups') and accommodation of the offering: 3 queries."""
    rows: list[TermsRow] = []
    for e in Extension.objects.filter(quiz__offering=offering).select_related(
        "quiz", "student", "granted_by"
    ):
        who = e.student.get_full_name() or e.student.username
        rows.append(_extension_row("student extension", who, e.student.username, e))
    for e in GroupExtension.objects.filter(quiz__offering=offering).select_related(
        "quiz", "group", "granted_by"
    ):
        rows.append(_extension_row("group extension", str(e.group), "", e))
    for a in Accommodation.objects.filter(offering=offering).select_related(
        "student", "group", "granted_by"
    ):
        who = (a.student.get_full_name() or a.student.username) if a.student else str(a.group)
        rows.append(
            TermsRow(
                "accommodation",
                who,
                a.student.username if a.student else "",
                "every timed quiz",
                None,
                None,
                None,
                0,
                0,
                a.time_multiplier,
                a.reason,
                a.granted_by.username if a.granted_by else "",
                a.granted_at,
                a,
            )
        )
    return rows
