"""When a student may work on a quiz: opening, due and close dates, extensions, late policy,
attempt limits and the exam deadline.

Pure rules over one quiz, one student's extension and a moment `now`; the workflows in
`quizzes.services.attempts` ask these questions and the pages show the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.utils import timezone
from django.utils.formats import date_format

from quizzes.models import Extension, LatePolicy, Quiz


class QuizRuleError(Exception):
    """A request the quiz's rules refuse; `message` is a sentence for the student."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _when(moment: datetime) -> str:
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT")


@dataclass(frozen=True)
class QuizWindow:
    """One student's dates for one quiz (their extension applied)."""

    opens_at: datetime | None
    due_at: datetime | None
    closes_at: datetime | None
    late_policy: str
    late_penalty: Decimal
    time_limit_minutes: int | None
    extra_minutes: int = 0

    @property
    def last_moment(self) -> datetime | None:
        """The last moment work is accepted: the due date when late work is refused."""
        if self.late_policy == LatePolicy.REFUSE:
            return self.due_at or self.closes_at
        return self.closes_at

    @property
    def time_limit(self) -> timedelta | None:
        if not self.time_limit_minutes:
            return None
        return timedelta(minutes=self.time_limit_minutes + self.extra_minutes)

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
        """An attempt's hard end: the time limit (plus extra minutes), never past the close."""
        ends = [self.last_moment] if self.last_moment else []
        if self.time_limit:
            ends.append(started_at + self.time_limit)
        return min(ends) if ends else None


def window_for(quiz: Quiz, extension: Extension | None) -> QuizWindow:
    """The quiz's dates with the student's extension (later dates, extra minutes) applied."""
    due, closes, extra = quiz.due_at, quiz.closes_at, 0
    if extension is not None:
        due = extension.due_at or due
        closes = extension.closes_at or closes
        extra = extension.extra_minutes or 0
        # An extension past the close date implies the close moves with it.
        if closes and due and due > closes:
            closes = due
    return QuizWindow(
        opens_at=quiz.opens_at,
        due_at=due,
        closes_at=closes,
        late_policy=quiz.late_policy,
        late_penalty=quiz.late_penalty or Decimal(0),
        time_limit_minutes=quiz.time_limit_minutes,
        extra_minutes=extra,
    )


def student_window(quiz: Quiz, student) -> QuizWindow:
    known = quiz.__dict__.get("_extensions_read", {})
    if student.pk in known:
        extension = known[student.pk]
    else:
        extension = Extension.objects.filter(quiz=quiz, student=student).first()
    return window_for(quiz, extension)


def remember_extension(quiz: Quiz, student, extension: Extension | None) -> None:
    """The student's extension (or None), read by the caller's own query in this request:
    `student_window` then reads no row. Kept on this quiz object only, never across requests."""
    quiz.__dict__.setdefault("_extensions_read", {})[student.pk] = extension


def results_released(quiz: Quiz, window: QuizWindow, now: datetime) -> bool:
    """Whether scores, feedback and solutions of a submitted attempt may be shown.

    Homework gives feedback part by part as the student works, so only exams wait.
    """
    if quiz.is_homework:
        return True
    if quiz.release_after_due and window.due_at is not None:
        return now > window.due_at
    return True
