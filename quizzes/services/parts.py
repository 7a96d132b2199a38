"""Helpers shared by the attempt workflows: part states of a stored variant, grading one
answer with the student's earlier values, the stored form of an answer, and SQLite lock retries."""

from __future__ import annotations

import random
import time

from django.db import OperationalError

from quizzes.engine import kinds
from quizzes.models import Variant
from quizzes.services import questions, scoring
from quizzes.services.availability import QuizRuleError


def retry_when_locked(work, *, attempts: int = 60):
    """Run `work()`, retrying while SQLite reports its lock as busy.

    SQLite allows one writer at a time; a concurrent submission may find the lock taken (the
    in-memory test database reports it at once instead of waiting). Other databases never
    raise this message, so elsewhere this is a plain call.
    """
    for attempt in range(attempts):
        try:
            return work()
        except OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.01 + random.random() * 0.04)
    raise AssertionError("unreachable")


def states_of(variant: Variant, responses=None, *, submitted: bool = False):
    tries = variant.attempt.quiz.tries_allowed
    points = questions.part_points(variant)
    if responses is None:
        responses = list(variant.responses.all())
    return scoring.part_states(points, responses, tries_allowed=tries, submitted=submitted), points


def clean_raw(raw, kind: kinds.AnswerKind, part) -> object:
    """The answer as the part's kind takes it, checked against the part; QuizRuleError
    (nothing stored, no try used) when refused."""
    try:
        return kind.clean(raw, part)
    except kinds.AnswerRefused as refused:
        raise QuizRuleError(str(refused)) from None


def grade_answer(variant: Variant, part_id: str, raw, states) -> object:
    part = questions.template_for(variant.version).part(part_id)
    earlier = {
        used: states[used].earlier_value
        for used in part.uses
        if used in states and states[used].earlier_value is not None
    }
    return questions.grade(variant, part_id, raw, earlier=earlier)
