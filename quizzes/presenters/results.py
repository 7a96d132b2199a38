"""The results page's data: per item the variant that earned its points, with its answers,
and the other sets of numbers the student worked (practice, or a lower score) listed apart.

Built from the same three queries as the attempt page (`services.attempt_rows`). Scores an
instructor set by hand (`ScoreOverride`, the latest per attempt and per item wins) come with
their reason, on the results page and in the quiz page's list of attempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from quizzes.presenters.attempt import ItemBlock, PartLinks, item_block
from quizzes.services import scoring
from quizzes.services.attempt_rows import attempt_rows, overrides_by_attempt
from quizzes.services.release import answer_gate


@dataclass
class ResultItem:
    """One item on the results page: the scoring variant's block and the other sets."""

    block: ItemBlock
    others: list[ItemBlock] = field(default_factory=list)
    override: OverrideNote | None = None

    @property
    def earned(self) -> Decimal | float:
        """The item's points: the instructor's when set, else its best counting score's."""
        return self.override.score if self.override is not None else self.block.earned

    @property
    def number(self) -> int:
        return self.block.number


@dataclass
class OverrideNote:
    """A score an instructor set: for the whole attempt (`question` None) or one question."""

    score: Decimal
    out_of: Decimal
    reason: str
    question: int | None = None


@dataclass
class OverrideNotes:
    attempt: OverrideNote | None = None
    by_item: dict[int, OverrideNote] = field(default_factory=dict)

    @property
    def items(self) -> list[OverrideNote]:
        return sorted(self.by_item.values(), key=lambda note: note.question or 0)


def override_notes(attempts, rows=None) -> dict[int, OverrideNotes]:
    """The latest override of each attempt and of each of its items, by attempt id: 1 query
    (none given `rows`, `attempt_rows.overrides_by_attempt` of the same attempts)."""
    attempts = list(attempts)
    if not attempts:
        return {}
    rows = overrides_by_attempt(attempts) if rows is None else rows
    notes = {}
    for attempt in attempts:
        whole, per_item = scoring.latest_overrides(rows.get(attempt.pk, []))
        entry = OverrideNotes()
        if whole is not None:
            entry.attempt = OverrideNote(whole.score, attempt.max_score, whole.reason)
        for item_id, override in per_item.items():
            number = attempt.item_ids.index(item_id) + 1 if item_id in attempt.item_ids else None
            entry.by_item[item_id] = OverrideNote(
                override.score, override.item.points, override.reason, number
            )
        notes[attempt.pk] = entry
    return notes


def scoring_variant(siblings):
    """The variant an item's score comes from: the best non-practice one; ties, the latest."""
    counting = [v for v in siblings if not v.is_practice] or list(siblings)
    return max(counting, key=lambda v: (v.score, v.index))


def result_items(
    attempt, notes: OverrideNotes | None = None, *, gate=None, rows=None
) -> list[ResultItem]:
    """Per item of a submitted attempt (in its order) what the results page shows, with the
    instructor's score for an item from `notes` (see `override_notes`); `gate`: the answer
    gate the caller read already (`release.answer_gate`); `rows`: its `attempt_rows`, when
    the caller read them already."""
    rows = rows or attempt_rows(attempt)
    by_item = rows.by_item()
    gate = gate or answer_gate(attempt)
    links = PartLinks(attempt)
    items = []
    for number, item_id in enumerate(attempt.item_ids, start=1):
        siblings = by_item.get(item_id, [])
        if not siblings:
            continue
        main = scoring_variant(siblings)
        ordered = [main] + sorted((v for v in siblings if v is not main), key=lambda v: v.index)
        blocks = [
            item_block(
                number,
                variant,
                siblings,
                rows.responses.get(variant.pk, []),
                rows.saved,
                submitted=True,
                show=True,
                render_solutions=variant is main,
                gate=gate,
                links=links,
            )
            for variant in ordered
        ]
        override = notes.by_item.get(item_id) if notes is not None else None
        items.append(ResultItem(block=blocks[0], others=blocks[1:], override=override))
    return items
