"""Item statistics kept up to date as grades change, so the item page reads two small rows
whatever the class size (issue: item analysis cost grew with the class).

How it stays exact: every grade write raises its quiz's change counter in the transaction that
writes the grade, from the ORM itself (`quizzes/stamps.py`). A kept row is computed by the same
from-scratch function the page used to run (`analytics.item_analysis`), after reading the
counters, and remembers them (`seen`). It is current exactly while the counters of its quizzes
have not moved: a grade committed during a computation moves them, so the row is seen stale and
computed again, never trusted with a missing answer.

A stale row is still shown (with its time) while a background task computes the new one, as
Moodle's quiz statistics do; the first view of an item computes it in the request.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from courseware.models import Offering
from quizzes.models import ItemStatistics, QuestionTemplate, QuizActivity, QuizItem
from quizzes.services import analytics


@dataclass(frozen=True)
class Kept:
    """Statistics as kept, when they were computed, and whether grades changed since."""

    stats: analytics.ItemStats
    computed_at: datetime
    stale: bool


# ---------------------------------------------------------------- JSON round trip


def stats_to_json(stats: analytics.ItemStats) -> dict:
    data = dataclasses.asdict(stats)
    for group in data["wrong"]:
        group.pop("info", None)  # presentation, rebuilt from the code when read
    return data


def stats_from_json(data: dict) -> analytics.ItemStats:
    stats = analytics.ItemStats(**data)
    for group in stats.wrong:
        group["info"] = analytics.misconception_info(group["diagnosis"])
    return stats


# ---------------------------------------------------------------- scope and counters


@dataclass(frozen=True)
class Scope:
    """A template's items in one quiz or in all, with their quizzes and change counters."""

    items: list  # QuizItem rows, each with its quiz (and the quiz's counter) loaded

    def within(self, quiz) -> Scope:
        return self if quiz is None else Scope([i for i in self.items if i.quiz_id == quiz.pk])

    @property
    def quizzes(self) -> list:
        unique = {item.quiz_id: item.quiz for item in self.items}
        return sorted(unique.values(), key=lambda q: (q.position, q.slug))

    @property
    def item_rows(self) -> list[tuple[int, int]]:
        return [(item.pk, item.quiz_id) for item in self.items]

    @property
    def counters(self) -> dict[str, int]:
        """{quiz id: changes so far} (as JSON keys), 0 for a quiz no grade has touched."""
        return {str(item.quiz_id): _changes(item.quiz) for item in self.items}


def _changes(quiz) -> int:
    try:
        return quiz.activity.changes
    except QuizActivity.DoesNotExist:
        return 0


def scope(template: QuestionTemplate, offering, quiz=None) -> Scope:
    """The template's items in `quiz`, or in every quiz of the offering (one query)."""
    items = QuizItem.objects.filter(template=template, quiz__offering=offering)
    if quiz is not None:
        items = items.filter(quiz=quiz)
    return Scope(list(items.select_related("quiz__activity").order_by("pk")))


# ---------------------------------------------------------------- reading and computing


def _key(quiz) -> int:
    return quiz.pk if quiz is not None else 0


def kept(template: QuestionTemplate, offering, *, quiz=None, within: Scope | None = None) -> Kept:
    """The item's statistics in the offering from its kept row (two small queries, one with
    `within`, the scope already read), computed here only when there is none yet; `stale` says
    grades changed since it was computed (then `claim_refresh` and refresh it)."""
    within = (within or scope(template, offering, quiz)).within(quiz)
    row = ItemStatistics.objects.filter(
        template=template, offering=offering, quiz_key=_key(quiz)
    ).first()
    if row is None:
        row = refresh(template, offering, quiz=quiz, within=within)
        return Kept(stats_from_json(row.data), row.computed_at, stale=False)
    return Kept(stats_from_json(row.data), row.computed_at, stale=row.seen != within.counters)


def refresh(template: QuestionTemplate, offering, *, quiz=None, within: Scope | None = None):
    """Compute the item's statistics in the offering from every stored grade and keep them
    (one upsert)."""
    # Its counters before the rows: a later grade moves them.
    within = within or scope(template, offering, quiz)
    stats = analytics.item_analysis(template, item_rows=within.item_rows)
    row = ItemStatistics(
        template=template,
        offering=offering,
        quiz_key=_key(quiz),
        data=stats_to_json(stats),
        seen=within.counters,
        computed_at=timezone.now(),
    )
    return ItemStatistics.keep(row, unique_fields=["template", "offering", "quiz_key"])


def claim_refresh(template: QuestionTemplate, offering, *, quiz=None, now=None) -> bool:
    """Whether this caller should queue the refresh (one queued refresh per row at a time; a
    claim older than ten minutes is taken over, in case its task was lost)."""
    return ItemStatistics.claim(
        now or timezone.now(), template=template, offering=offering, quiz_key=_key(quiz)
    )


def refresh_by_ids(template_id: int, offering_id: int, quiz_id: int | None) -> None:
    """`refresh` for a background task, which is handed ids (a quiz of another offering than
    the one named is never touched)."""
    template = QuestionTemplate.objects.filter(pk=template_id).first()
    offering = Offering.objects.filter(pk=offering_id).first()
    if template is None or offering is None:
        return
    quiz = offering.quizzes.filter(pk=quiz_id).first() if quiz_id else None
    if quiz_id and quiz is None:
        return
    refresh(template, offering, quiz=quiz)


def rebuild(offering=None) -> int:
    """Compute again every kept row (offering-wide and per quiz) of `offering` or of every
    offering, for each template its quizzes ask; how many rows were computed."""
    offerings = Offering.objects.order_by("pk")
    if offering is not None:
        offerings = offerings.filter(pk=offering.pk)
    n = 0
    for each in offerings:
        asked = QuizItem.objects.filter(quiz__offering=each).values("template_id")
        for template in QuestionTemplate.objects.filter(pk__in=asked).order_by("pk"):
            every = scope(template, each)
            refresh(template, each, within=every)
            n += 1
            for quiz in every.quizzes:
                refresh(template, each, quiz=quiz, within=every.within(quiz))
                n += 1
    return n
