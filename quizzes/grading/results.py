"""The values the grader hands back: `Grade`, `CommonError` and `ResponseError`.

A grade has three outcomes.  "correct" scores 1.0 and nothing else does.  "incorrect" is a
readable answer that is wrong (wrong value, wrong dimension, a template's named mistake).
"invalid" is an answer that could not be read at all; it costs the student no attempt, so its
feedback must say exactly what to type instead.  A kind graded by people (a written
explanation) answers a fourth, "pending": taken and counted as a try, scored 0 until staff
grade it (the attempt services store it as awaiting grading).
"""

from __future__ import annotations

from dataclasses import dataclass

CORRECT = "correct"
INCORRECT = "incorrect"
INVALID = "invalid"
PENDING = "pending"


@dataclass(frozen=True)
class Grade:
    """The verdict on one response.

    `interpreted` says how the response was read ("3.35×10¹² B/s", "2*n^3/(3*n^2)"), and
    `counterexample` where a formula differs from the expected one.  `value`
    is a numeric response converted to the SI base of the expected unit, so that a later part
    can be graded against it (error carried forward); it is None when there is no such number.
    """

    status: str
    score: float
    feedback: str
    diagnosis: str | None = None
    interpreted: str | None = None
    value: float | None = None
    # A formula that is not equivalent: where it differs from the expected one, with both
    # values at one point.  It tells the expected formula's value there, so pages show it only
    # once the part is final (quizzes.services.feedback_release); None for everything else.
    counterexample: str | None = None

    @property
    def is_correct(self) -> bool:
        return self.status == CORRECT

    @property
    def is_invalid(self) -> bool:
        return self.status == INVALID

    @property
    def is_pending(self) -> bool:
        return self.status == PENDING


@dataclass(frozen=True)
class CommonError:
    """A template's named wrong model of the problem.

    `value` is a number in the SI base of the part's unit for numeric parts, or a formula in
    the part's variables for formula parts.  `rtol` None means the part's own tolerance.
    """

    code: str
    value: float | str
    feedback: str
    rtol: float | None = None


class ResponseError(ValueError):
    """A response that cannot be read; `message` is a sentence the UI may show as it is."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def correct(feedback: str = "Correct.", **extra) -> Grade:
    return Grade(CORRECT, 1.0, feedback, **extra)


def incorrect(feedback: str, diagnosis: str | None = None, **extra) -> Grade:
    return Grade(INCORRECT, 0.0, feedback, diagnosis, **extra)


def invalid(feedback: str, **extra) -> Grade:
    return Grade(INVALID, 0.0, feedback, None, **extra)


def pending(feedback: str = "", **extra) -> Grade:
    """An answer taken for staff to grade: no score until they do."""
    return Grade(PENDING, 0.0, feedback, None, **extra)
