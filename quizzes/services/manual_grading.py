"""Grading by people: the answers to a part graded by staff (a kind with ``graded_by_staff``)
and the one write that grades one of them with its rubric.

A staff-graded answer is a Response with status "pending" (score 0) until a grader ticks the
rubric items it meets; `grade_response` then stores a `ManualGrade` (and a `ManualGradeEvent`
for the audit), sets the Response to "graded" with the ticked points' share as its score,
rescores the variant and, for a submitted attempt, the attempt: its new score reaches the
gradebook, the CSV and the LMS (the Attempt save's passback hook) like any other score.  The
attempt's ``awaiting_grading`` counts its parts still waiting, so pages and the LMS know the
score is provisional until it is 0.

Two graders on one answer: the attempt's row and then the response's are locked (the order a
submission takes them), and a save names the grade version it was drawn from, so a grade
changed meanwhile is reported, never overwritten unseen.  Saving the same grade again changes
nothing (a double click, a resent form).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from courseware import caching
from quizzes.models import (
    MAX_COMMENT_LENGTH,
    Attempt,
    AttemptStatus,
    ManualGrade,
    ManualGradeEvent,
    QuizItem,
    Response,
    ResponseStatus,
    SavedComment,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.availability import QuizRuleError
from quizzes.services.parts import states_of
from quizzes.services.submission import recompute_attempt_score

STAFF_STATUSES = (ResponseStatus.PENDING, ResponseStatus.GRADED)


class GradeConflict(QuizRuleError):
    """Another grader changed this grade after the page was drawn; nothing was stored."""


def _counted(offering):
    """The staff-graded answers of `offering` that count: tries, not practice variants."""
    return Response.objects.filter(
        variant__item__quiz__offering=offering,
        variant__is_practice=False,
        status__in=STAFF_STATUSES,
        try_number__isnull=False,
    )


# -- readers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartToGrade:
    item_id: int
    part_id: str
    quiz_title: str
    quiz_slug: str
    question: str
    position: int
    total: int
    waiting: int


def parts_to_grade(offering) -> list[PartToGrade]:
    """Every quiz part of the offering with staff-graded answers, with how many wait: one
    query."""
    rows = (
        _counted(offering)
        .values(
            "variant__item_id",
            "part_id",
            "variant__item__quiz__title",
            "variant__item__quiz__slug",
            "variant__item__quiz__position",
            "variant__item__template__title",
            "variant__item__position",
        )
        .annotate(total=Count("id"), waiting=Count("id", filter=Q(status=ResponseStatus.PENDING)))
        .order_by("variant__item__quiz__position", "variant__item__position", "part_id")
    )
    return [
        PartToGrade(
            item_id=row["variant__item_id"],
            part_id=row["part_id"],
            quiz_title=row["variant__item__quiz__title"],
            quiz_slug=row["variant__item__quiz__slug"],
            question=row["variant__item__template__title"],
            position=row["variant__item__position"],
            total=row["total"],
            waiting=row["waiting"],
        )
        for row in rows
    ]


@dataclass
class Queue:
    """One part's answers in a fixed order (oldest first), and where the grader is in it."""

    item: QuizItem
    part_id: str
    ids: list[int]
    waiting_ids: list[int]
    current: Response | None
    saved_comments: list[SavedComment]

    @property
    def position(self) -> int:
        return self.ids.index(self.current.pk) + 1 if self.current else 0

    @property
    def previous_id(self) -> int | None:
        at = self.position - 1
        return self.ids[at - 1] if at > 0 else None

    @property
    def next_id(self) -> int | None:
        at = self.position
        return self.ids[at] if 0 < at < len(self.ids) else None

    @property
    def next_waiting_id(self) -> int | None:
        """The next answer still awaiting a grade after this one (wrapping round)."""
        if not self.waiting_ids:
            return None
        later = [pk for pk in self.waiting_ids if self.current is None or pk > self.current.pk]
        others = [pk for pk in self.waiting_ids if self.current is None or pk != self.current.pk]
        return (later or others or [None])[0]


def grading_queue(*, offering, item_id: int, part_id: str, response_id: int | None) -> Queue:
    """The answers to one part of one quiz item of `offering`, and the one to grade now
    (`response_id`, else the first still waiting, else the first): four queries however many
    students answered.  QuizItem.DoesNotExist for an item of another offering."""
    item = QuizItem.objects.select_related("quiz", "template").get(
        pk=item_id, quiz__offering=offering
    )
    rows = list(
        _counted(offering)
        .filter(variant__item=item, part_id=part_id)
        .order_by("pk")
        .values_list("pk", "status")
    )
    ids = [pk for pk, _ in rows]
    waiting = [pk for pk, status in rows if status == ResponseStatus.PENDING]
    wanted = response_id if response_id in ids else (waiting or ids or [None])[0]
    current = None
    if wanted is not None:
        current = (
            Response.objects.select_related(
                "variant__attempt__student", "variant__version", "manual_grade__graded_by"
            )
            .filter(pk=wanted)
            .first()
        )
    comments = list(SavedComment.objects.filter(item=item, part_id=part_id))
    return Queue(item, part_id, ids, waiting, current, comments)


def rubric_for(response: Response) -> tuple[tuple[str, str, float], ...]:
    """The rubric the response's variant was drawn with (its kind's, from the stored answer)."""
    variant = response.variant
    kind = questions.kind_of(variant, response.part_id)
    if kind is None or not kind.graded_by_staff:
        return ()
    return kind.rubric(questions.correct_answers(variant).get(response.part_id))


# -- writes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Graded:
    grade: ManualGrade
    changed: bool


def grade_response(
    *,
    offering,
    response_id: int,
    met: list[str],
    comment: str,
    version: int,
    grader,
    now,
) -> Graded:
    """Grade one staff-graded answer of `offering` with the rubric items in `met` and a
    comment; `version` is the grade version the grader's page showed (0: none yet).

    Refused (QuizRuleError, nothing stored): an item the rubric lacks or given twice, a comment
    over the limit; GradeConflict when the grade changed since `version`.  Response.DoesNotExist
    for an answer of another offering or one no staff grades.
    """
    comment = comment.replace("\r\n", "\n").replace("\x00", "").strip()
    if len(comment) > MAX_COMMENT_LENGTH:
        raise QuizRuleError(
            f"The comment is {len(comment):,} characters long; the limit is {MAX_COMMENT_LENGTH:,}."
        )
    if len(set(met)) != len(met):
        raise QuizRuleError("A rubric item was ticked twice; tick each at most once.")
    # The response, the variant's and attempt's scores raise the stamps once (quizzes/stamps.py).
    with transaction.atomic(), caching.batch():
        found = _counted(offering).filter(pk=response_id).values_list("variant__attempt_id")
        attempt_id = found.get()[0]  # DoesNotExist: not this offering's, or not staff-graded
        attempt = Attempt.objects.select_for_update().get(pk=attempt_id)
        response = (
            Response.objects.select_for_update(of=("self",))
            .select_related("variant__version")
            .get(pk=response_id)
        )
        rubric = rubric_for(response)
        points = {item_id: value for item_id, _, value in rubric}
        unknown = [m for m in met if m not in points]
        if unknown or not rubric:
            raise QuizRuleError("That grade names a rubric item this question does not have.")
        met = [item_id for item_id, _, _ in rubric if item_id in met]  # the rubric's order
        total = sum(points.values())
        earned = min(sum(points[m] for m in met), total)
        current = ManualGrade.objects.filter(response=response).first()
        if current is not None and current.met == met and current.comment == comment:
            return Graded(current, False)  # the same grade again: nothing changes
        if (current.version if current else 0) != version:
            who = current.graded_by if current else None
            raise GradeConflict(
                f"{who or 'Another grader'} changed this grade while you were grading it; "
                "their grade is shown now. Nothing of yours was saved: grade it again if "
                "you still disagree."
            )
        previous = current.earned if current else None
        if current is None:
            current = ManualGrade(response=response, version=0)
        current.met, current.comment = met, comment
        current.earned, current.total = earned, total
        current.version += 1
        current.graded_by, current.graded_at = grader, now
        current.save()
        ManualGradeEvent.objects.create(
            response=response,
            version=current.version,
            met=met,
            comment=comment,
            earned=earned,
            total=total,
            previous_earned=previous,
            graded_by=grader,
            graded_at=now,
        )
        response.status = ResponseStatus.GRADED
        response.score = earned / total if total else 0.0
        response.feedback = ""
        response.interpreted = json.dumps(_reading(rubric, met, earned, total, comment))
        response.save(update_fields=["status", "score", "feedback", "interpreted"])
        _rescore(attempt, response.variant_id)
    return Graded(current, True)


def _reading(rubric, met, earned, total, comment) -> dict:
    """What the student's page shows of the grade (the kind's ``reading`` draws it)."""
    return {
        "earned": earned,
        "total": total,
        "items": [
            {"id": item_id, "text": text, "points": value, "met": item_id in met}
            for item_id, text, value in rubric
        ],
        "comment": comment,
    }


def _rescore(attempt: Attempt, variant_id: int) -> None:
    """The variant's score from its responses, then the attempt's (a submitted one's score is
    stored and sent on; an open one's page changes)."""
    variant = Variant.objects.select_related("attempt__quiz", "version").get(pk=variant_id)
    states, points = states_of(variant, submitted=attempt.status == AttemptStatus.SUBMITTED)
    Variant.objects.filter(pk=variant_id).update(score=scoring.variant_score(states, points))
    waiting = (
        Response.objects.filter(
            variant__attempt=attempt,
            variant__is_practice=False,
            status=ResponseStatus.PENDING,
            try_number__isnull=False,
        )
        .values("variant_id", "part_id")
        .distinct()
        .count()
    )
    Attempt.objects.filter(pk=attempt.pk).update(awaiting_grading=waiting)
    attempt.awaiting_grading = waiting
    if attempt.status == AttemptStatus.SUBMITTED:
        recompute_attempt_score(attempt)  # saves the score: the LMS hears of it


def save_comment(*, offering, item_id: int, part_id: str, text: str, by) -> SavedComment:
    """Keep a grader's comment for one part of one quiz item, to apply to other answers; the
    same text twice is kept once."""
    text = text.replace("\r\n", "\n").replace("\x00", "").strip()
    if not text:
        raise QuizRuleError("Write the comment before saving it.")
    if len(text) > MAX_COMMENT_LENGTH:
        raise QuizRuleError(f"A saved comment is at most {MAX_COMMENT_LENGTH:,} characters.")
    item = QuizItem.objects.get(pk=item_id, quiz__offering=offering)
    with transaction.atomic():
        found = SavedComment.objects.filter(item=item, part_id=part_id, text=text).first()
        return found or SavedComment.objects.create(
            item=item, part_id=part_id, text=text, created_by=by
        )
