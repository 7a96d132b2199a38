"""The ordering kind: put 3 to 8 items in order (memory levels by bandwidth, kernels by their
arithmetic intensity).

The right order is either the order the items are listed in, or, when every item has a
``value`` expression, the order of those values in the variant (``order: ascending`` or
``descending``), so it follows the variant's catalog entries.  The student gives each item its
position (one list box per item: works with a keyboard, a screen reader and no script).

Grading: the exact order is correct; otherwise the score is the share of pairs of items the
student put in the right relative order (Kendall's concordant pairs: 5 of 6 pairs right scores
0.83), so an order with one neighbouring swap scores high and a reversed order scores 0.  An
answer that leaves an item without a position, or gives two items one position, is refused
before grading and costs no try.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from itertools import combinations

from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, AnswerRefused, Rendered, as_list
from quizzes.engine.kinds.toolbox import Item, number_value, parse_items
from quizzes.engine.render import render_text

FEWEST, MOST = 3, 8
ORDERS = ("ascending", "descending")
# Neighbouring values closer than this (relative) make the order a matter of rounding.
DEFAULT_MIN_GAP = 0.05
REVERSED = "order-reversed"


@dataclass(frozen=True)
class OrderingSettings:
    items: tuple[Item, ...]
    # None: the listed order is the answer; else the values' order
    order: str | None = None
    min_gap: float = DEFAULT_MIN_GAP
    shuffle: bool = True


@register
class OrderingKind(AnswerKind):
    name = "ordering"
    label = "Put items in order"
    fields = ("items", "order", "min_gap", "shuffle")
    noun = "an order"

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> OrderingSettings:
        items = parse_items(
            rules, loc, "items", names, least=FEWEST, most=MOST, extra={"value": "expr"}
        )
        valued = [item for item in items if item.get("value") is not None]
        order_loc = loc.get("order")
        order = None
        if order_loc is not None:
            if order_loc.value not in ORDERS:
                rules.issue(order_loc, "order", "must be ascending or descending")
            else:
                order = order_loc.value
        if valued and len(valued) != len(items):
            rules.issue(loc.get("items"), "items", "give every item a value, or none")
        elif valued and order is None:
            rules.issue(loc, "order", "items with values need order: ascending or descending")
        elif order is not None and not valued:
            rules.issue(order_loc, "order", "an order needs a value on every item to sort by")
        gap = rules.number(loc.get("min_gap"), "min_gap")
        if gap is not None and not 0 <= gap < 1:
            rules.issue(loc.get("min_gap"), "min_gap", "must be from 0 to 1 (a relative gap)")
        shuffle = loc.get("shuffle")
        if shuffle is not None and not isinstance(shuffle.value, bool):
            rules.issue(shuffle, "shuffle", "must be true or false")
        return OrderingSettings(
            items,
            order,
            DEFAULT_MIN_GAP if gap is None else gap,
            shuffle.value if shuffle is not None and isinstance(shuffle.value, bool) else True,
        )

    def answer(self, template, part, names) -> tuple[str, ...]:
        settings = part.settings
        if settings.order is None:
            return tuple(item.id for item in settings.items)
        values = {
            item.id: number_value(template, item.get("value"), names, f"item {item.id}'s value")
            for item in settings.items
        }
        ranked = sorted(values, key=values.get, reverse=settings.order == "descending")
        return tuple(ranked)

    def option_order(self, part, rng) -> tuple[str, ...]:
        ids = [item.id for item in part.settings.items]
        if rng is not None and part.settings.shuffle:
            rng.shuffle(ids)
        return tuple(ids)

    def validate(self, checks, part, variant, seed) -> None:
        answer = list(variant.answers[part.id])
        checks.count_key(part, answer, ordered=True)
        settings = part.settings
        if settings.order is not None:
            self._check_gaps(checks, part, variant, seed)
        grade = self.grade(checks.template, variant, part, answer, earlier={}, grade_fn=None)
        if grade.status != "correct":
            checks.failures.add("grading", f"its own order grades {grade.status}", seed, part.id)

    def _check_gaps(self, checks, part, variant, seed) -> None:
        from quizzes.engine.namespace import names_for

        names = names_for(variant.params)
        values = []
        for item in part.settings.items:
            value = number_value(checks.template, item.get("value"), names, "a value")
            if not math.isfinite(value):
                checks.failures.add(
                    "answer", f"item {item.id}'s value is not finite", seed, part.id
                )
                return
            values.append((value, item.id))
        values.sort()
        for (low, a), (high, b) in zip(values, values[1:]):
            if abs(high - low) <= part.settings.min_gap * max(abs(high), abs(low)):
                checks.failures.add(
                    "ordering",
                    f"items '{a}' and '{b}' have values {low:.4g} and {high:.4g}, closer than "
                    f"min_gap {part.settings.min_gap:g}: their order is a matter of rounding",
                    seed,
                    part.id,
                    fold=f"{a}|{b}",
                )

    def render(self, template, part, variant, names) -> Rendered:
        by_id = {item.id: item for item in part.settings.items}
        order = variant.option_order.get(part.id) or tuple(by_id)
        items = tuple((iid, render_text(template, by_id[iid].text, names)) for iid in order)
        return Rendered({"items": items}, {"positions": tuple(range(1, len(items) + 1))})

    def rendered_texts(self, part):
        return tuple(item.text for item in part.settings.items)

    # -- answering ----------------------------------------------------------------------------

    def clean(self, raw, part) -> list[str]:
        """Posted "item:position" values (one per item) as the item ids in the given order."""
        ids = [item.id for item in part.settings.items]
        positions = _positions(raw, ids)
        missing = [i for i in ids if i not in positions]
        if missing:
            raise AnswerRefused("Give every item a position before checking.")
        taken: dict[int, str] = {}
        for item_id, position in positions.items():
            if position in taken:
                raise AnswerRefused(
                    f"Position {position} is given to two items; give each item its own position."
                )
            taken[position] = item_id
        return [taken[p] for p in sorted(taken)]

    def draft(self, raw) -> str:
        """An exam's half-given order: the positions given so far, as JSON."""
        positions = {}
        for value in as_list(raw)[:MOST]:
            item_id, _, position = value.partition(":")
            if item_id and position.isdigit() and len(position) <= 2 and len(item_id) <= 50:
                positions[item_id] = int(position)
        return json.dumps(positions) if positions else ""

    def stored(self, clean) -> str:
        return json.dumps(list(clean))

    def from_stored(self, raw: str) -> list[str]:
        try:
            value = json.loads(raw) if raw else []
        except ValueError:
            return []
        if isinstance(value, dict):  # an exam's draft: id -> position
            return [str(k) for k, _ in sorted(value.items(), key=lambda kv: kv[1])]
        return [str(v) for v in value] if isinstance(value, list) else []

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        from quizzes.grading.results import Grade

        given = list(response) if not isinstance(response, str) else self.from_stored(response)
        right = list(variant.answers[part.id])
        if sorted(given) != sorted(right):
            return Grade("invalid", 0.0, "Give every item exactly one position.")
        shown = ", ".join(given)
        if given == right:
            return Grade("correct", 1.0, "Correct.", interpreted=shown)
        place = {item: n for n, item in enumerate(given)}
        pairs = list(combinations(right, 2))
        kept = sum(1 for a, b in pairs if place[a] < place[b])
        score = kept / len(pairs)
        if kept == 0:
            return Grade(
                "incorrect",
                0.0,
                "That is the right order backwards: check which end the order starts from.",
                REVERSED,
                interpreted=shown,
            )
        feedback = f"{kept} of {len(pairs)} pairs of items are in the right order."
        return Grade("incorrect", min(score, 0.99), feedback, interpreted=shown)

    def read_back(self, part, raw) -> tuple[bool, str]:
        count = len(part.settings.items)
        try:
            given = json.loads(raw)
        except ValueError:
            return False, "Cannot be read: give each item a position."
        placed = len(given) if isinstance(given, (dict, list)) else 0
        if placed < count:
            return False, f"{placed} of {count} items have a position; place them all."
        if isinstance(given, dict) and len(set(given.values())) < count:
            return False, "Two items share a position; give each its own."
        return True, f"All {count} items placed."

    # -- showing ------------------------------------------------------------------------------

    def input_state(self, facts, raw) -> dict[str, int]:
        """Item id -> the position the input shows selected."""
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        if isinstance(value, list):
            return {str(item): n for n, item in enumerate(value, start=1)}
        return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}

    def reading(self, facts, raw, interpreted) -> list[str]:
        return self.from_stored(raw)

    def answer_key(self, part, answer) -> list[str]:
        return list(answer)

    def answer_text(self, part, answer, *, sig=None) -> str:
        """The right order as the items' ids, first to last ("hbm, l2, dram")."""
        return ", ".join(answer)

    def demo_answer(self, part, answer, common, right, rng):
        order = list(answer)
        if not right:
            i = rng.randrange(len(order) - 1)
            order[i], order[i + 1] = order[i + 1], order[i]
        return self.stored(order), None, ""


def _positions(raw, ids: list[str]) -> dict[str, int]:
    """Item id -> position from posted "id:position" values; AnswerRefused for anything else."""
    positions: dict[str, int] = {}
    values = as_list(raw)
    if len(values) > len(ids):
        raise AnswerRefused("That order lists more items than the question has.")
    for value in values:
        item_id, _, position = value.partition(":")
        known = item_id in ids and position.isdigit() and len(position) <= 2
        if not known or not 1 <= int(position) <= len(ids):
            raise AnswerRefused("That order names an item or a position the question lacks.")
        if item_id in positions:
            raise AnswerRefused("An item is given two positions; give it one.")
        positions[item_id] = int(position)
    return positions
