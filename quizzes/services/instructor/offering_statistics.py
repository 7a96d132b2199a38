"""The item index's and the misconception map's figures kept per offering, so each page reads a
few small rows whatever the class size (issue 34: both aggregated every response on every view,
788 and 796 ms at 3,000 students on PostgreSQL, 2.3 and 4.3 s on SQLite).

The same rule as the item page's kept statistics (`statistics`): every grade write raises its
quiz's change counter in the transaction that writes the grade, from the ORM itself
(`quizzes/stamps.py`; deleting an attempt does too). A kept row is computed by
the same from-scratch function the page used to run (`analytics.index_figures`,
`analytics.misconception_figures`) after reading the offering's counters, and remembers them
(`seen`); it is current exactly while they have not moved. A grade committed during a
computation moves them, so that row is seen stale and computed again.

A stale row is still shown (with its time) while a background task computes the new one; the
first view of a page computes it in the request. The figures are the offering's alone: its
quizzes' responses, its quizzes' counters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from courseware.models import Offering
from quizzes.models import OfferingStatistics, QuizActivity
from quizzes.services import analytics

Kind = OfferingStatistics.Kind

# What each kind keeps: a function of the offering computing its figures from every grade.
FIGURES = {
    Kind.ITEM_INDEX: analytics.index_figures,
    Kind.MISCONCEPTIONS: analytics.misconception_figures,
}


@dataclass(frozen=True)
class KeptPage:
    """A page's figures as kept, when they were computed, and whether grades changed since."""

    data: object
    computed_at: datetime
    stale: bool


def counters(offering) -> dict[str, int]:
    """{quiz id (a JSON key): changes so far} of the offering's graded quizzes (one query, one
    row per quiz)."""
    rows = QuizActivity.objects.filter(quiz__offering=offering, changes__gt=0)
    return {str(quiz): n for quiz, n in rows.values_list("quiz_id", "changes")}


def kept(offering, kind: str, *, now_seen: dict[str, int] | None = None) -> KeptPage:
    """The page's figures from the kept row (two small queries, one when the caller read the
    `counters` already: the analytics filter reads them with its quiz choices), computed here
    only when there is none yet; `stale` says grades changed since (then `claim_refresh` and
    refresh it)."""
    now_seen = counters(offering) if now_seen is None else now_seen
    row = OfferingStatistics.objects.filter(offering=offering, kind=kind).first()
    if row is None:
        row = refresh(offering, kind, seen=now_seen)
        return KeptPage(row.data, row.computed_at, stale=False)
    return KeptPage(row.data, row.computed_at, stale=row.seen != now_seen)


def refresh(offering, kind: str, *, seen: dict | None = None) -> OfferingStatistics:
    """Compute the page's figures from every stored grade of the offering and keep them (one
    upsert). `seen`: the counters read before, if the caller has them."""
    # The counters before the rows: a grade committed meanwhile moves them.
    seen = counters(offering) if seen is None else seen
    row = OfferingStatistics(
        offering=offering,
        kind=kind,
        data=FIGURES[kind](offering),
        seen=seen,
        computed_at=timezone.now(),
    )
    return OfferingStatistics.keep(row, unique_fields=["offering", "kind"])


def claim_refresh(offering, kind: str, *, now=None) -> bool:
    """Whether this caller should queue the refresh (one queued refresh per page at a time)."""
    return OfferingStatistics.claim(now or timezone.now(), offering=offering, kind=kind)


def refresh_by_ids(offering_id: int, kind: str) -> None:
    """`refresh` for a background task, which is handed ids (an unknown kind or a deleted
    offering does nothing)."""
    offering = Offering.objects.filter(pk=offering_id).first()
    if offering is not None and kind in FIGURES:
        refresh(offering, kind)


def rebuild(offering=None) -> int:
    """Compute again every kept page of `offering` or of every offering; how many."""
    offerings = Offering.objects.order_by("pk")
    if offering is not None:
        offerings = offerings.filter(pk=offering.pk)
    n = 0
    for each in offerings:
        for kind in FIGURES:
            refresh(each, kind)
            n += 1
    return n
