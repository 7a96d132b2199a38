"""When a student may work on a quiz: opening, due and close dates, extensions (their own and
their groups'), late policy, attempt limits, the time limit with any accommodation's
multiplier, and the exam deadline.

Pure rules over one quiz, one student's extension and a moment `now`; the workflows in
`quizzes.services.attempts` ask these questions and the pages show the same answers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import FilteredRelation, Max, Min, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.formats import date_format

from courseware.timezones import place_name
from quizzes.models import Accommodation, Extension, GroupExtension, LatePolicy, Quiz


class QuizRuleError(Exception):
    """A request the quiz's rules refuse; `message` is a sentence for the student."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _when(moment: datetime) -> str:
    """A moment in the reader's zone, the zone named ("15 Jan 2027, 23:59 Berlin time")."""
    name = timezone.get_current_timezone_name()
    return f"{date_format(timezone.localtime(moment), 'j M Y, H:i')} {place_name(name)}"


@dataclass(frozen=True)
class GroupTerms:
    """What the student's groups' extensions on one quiz add up to: the earliest opening, the
    latest due and close dates, the most extra minutes and attempts (Moodle's rule for group
    overrides: the most generous wins)."""

    opens_at: datetime | None = None
    due_at: datetime | None = None
    closes_at: datetime | None = None
    extra_minutes: int = 0
    extra_attempts: int = 0

    @classmethod
    def of(cls, extensions) -> GroupTerms | None:
        rows = list(extensions)
        if not rows:
            return None

        def pick(name, chooser):
            values = [getattr(r, name) for r in rows if getattr(r, name) is not None]
            return chooser(values) if values else None

        return cls(
            opens_at=pick("opens_at", min),
            due_at=pick("due_at", max),
            closes_at=pick("closes_at", max),
            extra_minutes=pick("extra_minutes", max) or 0,
            extra_attempts=pick("extra_attempts", max) or 0,
        )

    @property
    def changes_anything(self) -> bool:
        return any(
            (self.opens_at, self.due_at, self.closes_at, self.extra_minutes, self.extra_attempts)
        )


@dataclass(frozen=True)
class QuizWindow:
    """One student's dates, time and attempts for one quiz: their own extension, else their
    groups', else the quiz's, field by field; their time multiplier on the time limit."""

    opens_at: datetime | None
    due_at: datetime | None
    closes_at: datetime | None
    late_policy: str
    late_penalty: Decimal
    time_limit_minutes: int | None
    extra_minutes: int = 0
    time_multiplier: Decimal = Decimal(1)
    max_attempts: int | None = None
    extra_attempts: int = 0
    # Where the student's terms differ from the quiz's, for the quiz page to say: "own", "group".
    extended_by: tuple[str, ...] = ()

    @property
    def last_moment(self) -> datetime | None:
        """The last moment work is accepted: the due date when late work is refused."""
        if self.late_policy == LatePolicy.REFUSE:
            return self.due_at or self.closes_at
        return self.closes_at

    @property
    def scaled_minutes(self) -> int | None:
        """The quiz's time limit times the student's multiplier (whole minutes, rounded up)."""
        if not self.time_limit_minutes:
            return None
        return math.ceil(self.time_limit_minutes * self.time_multiplier)

    @property
    def total_minutes(self) -> int | None:
        """The student's whole time: the scaled limit plus any extra minutes."""
        scaled = self.scaled_minutes
        return None if scaled is None else scaled + self.extra_minutes

    @property
    def time_limit(self) -> timedelta | None:
        total = self.total_minutes
        return None if total is None else timedelta(minutes=total)

    @property
    def has_multiplier(self) -> bool:
        return self.time_multiplier != 1

    def is_open(self, now: datetime) -> bool:
        return self.refusal(now) is None

    def is_late(self, now: datetime) -> bool:
        return self.due_at is not None and now > self.due_at

    def refusal(self, now: datetime) -> str | None:
        """Why work is not accepted at `now`, or None when it is."""
        if self.opens_at and now < self.opens_at:
            return f"This quiz opens on {_when(self.opens_at)}."
        last = self.last_moment
        if last and now > last:
            if self.late_policy == LatePolicy.REFUSE and self.due_at and last == self.due_at:
                return f"This quiz was due on {_when(last)}; late work is not accepted."
            return f"This quiz closed on {_when(last)}; no more work is accepted."
        return None

    def deadline_for(self, started_at: datetime) -> datetime | None:
        """An attempt's hard end: the time limit (scaled, plus extra minutes), never past the
        close."""
        ends = [self.last_moment] if self.last_moment else []
        if self.time_limit:
            ends.append(started_at + self.time_limit)
        return min(ends) if ends else None


def window_for(
    quiz: Quiz,
    extension: Extension | None,
    *,
    groups: GroupTerms | None = None,
    multiplier: Decimal | None = None,
) -> QuizWindow:
    """The quiz's terms with the student's own extension, else their groups' (`groups`),
    applied field by field, and their time multiplier (an accommodation) on the time limit."""
    opens, due, closes = quiz.opens_at, quiz.due_at, quiz.closes_at
    extra = attempts = 0
    by: list[str] = []
    if groups is not None and groups.changes_anything:
        opens = groups.opens_at or opens
        due = groups.due_at or due
        closes = groups.closes_at or closes
        extra, attempts = groups.extra_minutes, groups.extra_attempts
        by.append("group")
    if extension is not None:
        opens = extension.opens_at or opens
        due = extension.due_at or due
        closes = extension.closes_at or closes
        extra = extension.extra_minutes or extra
        attempts = extension.extra_attempts or attempts
        by.append("own")
    # An extension past the close date implies the close moves with it.
    if closes and due and due > closes:
        closes = due
    return QuizWindow(
        opens_at=opens,
        due_at=due,
        closes_at=closes,
        late_policy=quiz.late_policy,
        late_penalty=quiz.late_penalty or Decimal(0),
        time_limit_minutes=quiz.time_limit_minutes,
        extra_minutes=extra or 0,
        time_multiplier=Decimal(multiplier) if multiplier else Decimal(1),
        max_attempts=quiz.max_attempts + attempts if quiz.max_attempts else None,
        extra_attempts=attempts,
        extended_by=tuple(by),
    )


def terms_annotations(*, quiz, offering, user_id) -> dict:
    """The student's group terms and time multiplier for a query over a quiz, as scalar
    subqueries (`quiz` and `offering` are OuterRefs to the quiz's and its offering's ids), so
    the caller's own query carries them: read back with `terms_from_row`."""
    from courseware.models import GroupMembership

    def group_value(field: str, aggregate):
        return Subquery(
            GroupExtension.objects.filter(
                quiz_id=quiz,
                group_id__in=GroupMembership.objects.filter(user_id=user_id).values("group_id"),
            )
            .order_by()
            .values("quiz_id")
            .annotate(value=aggregate(field))
            .values("value")[:1]
        )

    return {
        "terms_opens": group_value("opens_at", Min),
        "terms_due": group_value("due_at", Max),
        "terms_closes": group_value("closes_at", Max),
        "terms_minutes": group_value("extra_minutes", Max),
        "terms_attempts": group_value("extra_attempts", Max),
        "terms_multiplier": Subquery(
            Accommodation.objects.filter(offering_id=offering)
            .filter(
                Q(student_id=user_id)
                | Q(group_id__in=GroupMembership.objects.filter(user_id=user_id).values("group_id"))
            )
            .order_by("-time_multiplier")
            .values("time_multiplier")[:1]
        ),
    }


def terms_from_row(row) -> tuple[GroupTerms | None, Decimal | None]:
    """The group terms and multiplier of a row annotated by `terms_annotations` (a model
    instance or a dict)."""
    get = row.get if isinstance(row, dict) else lambda name: getattr(row, name, None)
    groups = GroupTerms(
        opens_at=get("terms_opens"),
        due_at=get("terms_due"),
        closes_at=get("terms_closes"),
        extra_minutes=get("terms_minutes") or 0,
        extra_attempts=get("terms_attempts") or 0,
    )
    multiplier = get("terms_multiplier")
    return (groups if groups.changes_anything else None), (
        Decimal(multiplier) if multiplier is not None else None
    )


def student_window(quiz: Quiz, student) -> QuizWindow:
    """The student's window on `quiz`: what this request has read already (`remember_terms`),
    else one query for their extension, their groups' terms and their multiplier."""
    known = quiz.__dict__.get("_terms_read", {})
    if student.pk in known:
        extension, groups, multiplier = known[student.pk]
        return window_for(quiz, extension, groups=groups, multiplier=multiplier)
    row = (
        Quiz.objects.filter(pk=quiz.pk)
        .annotate(
            own=FilteredRelation("extensions", condition=Q(extensions__student_id=student.pk)),
            **terms_annotations(
                quiz=OuterRef("pk"), offering=OuterRef("offering_id"), user_id=student.pk
            ),
        )
        .values(*(f"own__{name}" for name in _EXTENSION_FIELDS), *_TERMS)
        .order_by()
        .first()
    )
    extension = None
    if row is not None and row["own__id"] is not None:
        extension = Extension(
            quiz_id=quiz.pk,
            student_id=student.pk,
            **{name: row[f"own__{name}"] for name in _EXTENSION_FIELDS},
        )
    groups, multiplier = terms_from_row(row) if row is not None else (None, None)
    return window_for(quiz, extension, groups=groups, multiplier=multiplier)


_EXTENSION_FIELDS = (
    "id",
    "opens_at",
    "due_at",
    "closes_at",
    "extra_minutes",
    "extra_attempts",
    "reason",
)
_TERMS = (
    "terms_opens",
    "terms_due",
    "terms_closes",
    "terms_minutes",
    "terms_attempts",
    "terms_multiplier",
)


def remember_terms(quiz: Quiz, student, extension, groups=None, multiplier=None) -> None:
    """The student's extension (or None), group terms and multiplier, read by the caller's own
    query in this request: `student_window` then reads no row. Kept on this quiz object only,
    never across requests."""
    quiz.__dict__.setdefault("_terms_read", {})[student.pk] = (extension, groups, multiplier)


def remember_extension(quiz: Quiz, student, extension: Extension | None) -> None:
    """`remember_terms` for a caller that knows the student has no group terms or multiplier."""
    remember_terms(quiz, student, extension)


def results_released(quiz: Quiz, window: QuizWindow, now: datetime) -> bool:
    """Whether scores, feedback and solutions of a submitted attempt may be shown.

    Homework gives feedback part by part as the student works, so only exams wait.
    """
    if quiz.is_homework:
        return True
    if quiz.release_after_due and window.due_at is not None:
        return now > window.due_at
    return True
