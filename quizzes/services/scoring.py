"""Scores from responses: a part's state, a variant's score, an item's best, an attempt's total.

Pure functions over rows already loaded (no queries), so a page can score a whole attempt from
one fetch of its variants and responses.

- A part is *final* when it is correct or its counted tries are spent (homework), or once the
  attempt is submitted (exam: one graded submission per part at the end).
- A part scores the best score among its graded responses; a variant scores the points-weighted
  mean of its parts; an item scores its best non-practice variant; an attempt scores
  Σ points × item score, times (1 − penalty) when late. The latest ScoreOverride wins: one for
  an item replaces that item's score (in points), one for the whole attempt replaces the total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from quizzes.models import ResponseStatus

THOUSANDTHS = Decimal("0.001")
STAFF_STATUSES = (ResponseStatus.PENDING, ResponseStatus.GRADED)


@dataclass
class PartState:
    part_id: str
    responses: list = field(default_factory=list)
    tries_used: int = 0
    tries_allowed: int | None = None
    submitted: bool = False  # exam: the attempt is submitted, so every part is final

    @property
    def last(self):
        return self.responses[-1] if self.responses else None

    @property
    def graded(self) -> list:
        return [r for r in self.responses if r.try_number is not None]

    @property
    def last_graded(self):
        """The latest try that was graded (an unreadable answer is no try)."""
        graded = self.graded
        return graded[-1] if graded else None

    @property
    def best_graded(self):
        """The graded try that earns the part's score (ties: the latest)."""
        best = None
        for response in self.graded:
            if best is None or response.score >= best.score:
                best = response
        return best

    @property
    def shown(self):
        """What the part reports: its latest graded try, else its latest (unreadable) answer.

        A later unreadable answer must not hide the feedback of the try that counted.
        """
        return self.last_graded or self.last

    @property
    def newer_invalid(self):
        """An unreadable answer sent after the latest graded try, if there is one."""
        graded = self.last_graded
        if graded is None or self.last is graded:
            return None
        return self.last

    @property
    def is_correct(self) -> bool:
        return any(r.status == ResponseStatus.CORRECT for r in self.responses)

    @property
    def score(self) -> float:
        return max((r.score for r in self.graded), default=0.0)

    @property
    def is_awaiting_grading(self) -> bool:
        """Its counted answer waits for a staff grade (a part graded by staff)."""
        best = self.best_graded
        return best is not None and best.status == ResponseStatus.PENDING

    @property
    def with_staff(self) -> bool:
        """An answer of this part went to staff to grade (awaiting or graded)."""
        return any(r.status in STAFF_STATUSES for r in self.responses)

    @property
    def is_final(self) -> bool:
        if self.submitted or self.is_correct:
            return True
        # An answer handed to staff (awaiting or graded) is the part's one submission.
        if self.with_staff:
            return True
        return self.tries_allowed is not None and self.tries_used >= self.tries_allowed

    @property
    def tries_left(self) -> int | None:
        if self.tries_allowed is None:
            return None
        return max(self.tries_allowed - self.tries_used, 0)

    @property
    def earlier_value(self) -> float | None:
        """The student's own latest readable value, for error carried forward."""
        for response in reversed(self.graded):
            if response.value is not None:
                return response.value
        return None


def part_states(
    part_ids: Iterable[str], responses: Iterable, *, tries_allowed: int | None, submitted: bool
) -> dict[str, PartState]:
    """Each part's state from a variant's responses (in the order they were made)."""
    states = {
        pid: PartState(pid, tries_allowed=tries_allowed, submitted=submitted) for pid in part_ids
    }
    for response in sorted(responses, key=lambda r: (r.created_at, r.pk or 0)):
        state = states.get(response.part_id)
        if state is None:
            continue
        state.responses.append(response)
        if response.try_number is not None:
            state.tries_used += 1
    return states


def awaiting_grading(states: Mapping[str, PartState]) -> int:
    """How many of a variant's parts count an answer that still awaits a staff grade."""
    return sum(1 for state in states.values() if state.is_awaiting_grading)


def variant_score(states: Mapping[str, PartState], points: Mapping[str, float]) -> float:
    """A variant's score from its part states: see `weighted_score`."""
    weights = {pid: points.get(pid, 1.0) for pid in states}
    return weighted_score(weights, {pid: state.score for pid, state in states.items()})


def weighted_score(points: Mapping[str, float], scores: Mapping[str, float]) -> float:
    """The points-weighted mean of the parts' scores (0..1; a part with no score has 0): the
    one variant score, for a check, a submission, a regrade and demo data."""
    total = sum(points.values())
    if total <= 0:
        return 0.0
    earned = sum(weight * scores.get(pid, 0.0) for pid, weight in points.items())
    return min(max(earned / total, 0.0), 1.0)


def item_score(variants: Iterable) -> float:
    """The best score among an item's variants that count (practice variants never count)."""
    return max((v.score for v in variants if not v.is_practice), default=0.0)


def latest_overrides(overrides: Iterable) -> tuple[object | None, dict[int, object]]:
    """(the latest whole-attempt override, the latest override per item id)."""
    whole, per_item = None, {}
    for override in sorted(overrides, key=lambda o: (o.created_at, o.pk or 0)):
        if override.item_id is None:
            whole = override
        else:
            per_item[override.item_id] = override
    return whole, per_item


def _points(value) -> Decimal:
    return Decimal(str(value)).quantize(THOUSANDTHS, rounding=ROUND_HALF_UP)


def attempt_total(
    items: Iterable,
    variants_by_item: Mapping[int, list],
    *,
    is_late: bool = False,
    late_penalty: Decimal = Decimal(0),
    overrides: Iterable = (),
) -> tuple[Decimal, Decimal]:
    """(score, max score) in points for an attempt's items."""
    whole, per_item = latest_overrides(overrides)
    score = max_score = Decimal(0)
    for item in items:
        points = Decimal(item.points)
        max_score += points
        if item.pk in per_item:
            score += Decimal(per_item[item.pk].score)
        else:
            score += points * Decimal(str(item_score(variants_by_item.get(item.pk, []))))
    if is_late and late_penalty:
        score *= 1 - Decimal(late_penalty)
    if whole is not None:
        score = Decimal(whole.score)
    return _points(score), _points(max_score)


def shown_score(attempt, overrides: Iterable = ()) -> Decimal | None:
    """The score to show for an attempt: the latest whole-attempt override, else its own."""
    whole, _ = latest_overrides(overrides)
    if whole is not None:
        return Decimal(whole.score)
    return attempt.score
