"""The matching kind: match each of 2 to 10 items with one of 2 to 6 categories (kernels with
"memory-bound" or "compute-bound", formats with what they are used for).

Each item names its category with ``match``: a category id, or an expression that gives one
per variant (``'"memory" if intensity < ridge else "compute"'``), so the key follows the
variant's numbers.  The student picks a category for each item from a list box beside it.

Grading: all items right is correct; otherwise the score is the share of items matched right.
An answer that leaves an item unmatched, names an unknown category, or matches one item twice
is refused before grading and costs no try.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from content.expressions import ExpressionError, evaluate
from quizzes.engine.kinds import register
from quizzes.engine.kinds.base import AnswerKind, AnswerRefused, Rendered, as_list
from quizzes.engine.kinds.toolbox import Item, parse_items
from quizzes.engine.model import Expr
from quizzes.engine.render import render_text

ITEMS = (2, 10)
CATEGORIES = (2, 6)


@dataclass(frozen=True)
class MatchingSettings:
    items: tuple[Item, ...]
    categories: tuple[Item, ...]
    shuffle: bool = True


@register
class MatchingKind(AnswerKind):
    name = "matching"
    label = "Match items to categories"
    fields = ("items", "categories", "shuffle")
    noun = "a matching"

    # -- authoring ----------------------------------------------------------------------------

    def parse(self, rules, loc, *, names, answer_names) -> MatchingSettings:
        categories = parse_items(
            rules, loc, "categories", names, least=CATEGORIES[0], most=CATEGORIES[1]
        )
        known = {c.id for c in categories}

        def match(rules, child, names):
            """A category id as it is, anything else as an expression giving one."""
            if isinstance(child.value, str) and child.value in known:
                return child.value
            # "" after an error already reported, so the item is not also "missing" a match
            return rules.expr(child, "match", names) or ""

        items = parse_items(
            rules, loc, "items", names, least=ITEMS[0], most=ITEMS[1], extra={"match": match}
        )
        for item in items:
            if item.get("match") is None:
                rules.issue(
                    item.line, "match", "each item needs match: a category id or an expression"
                )
        shuffle = loc.get("shuffle")
        if shuffle is not None and not isinstance(shuffle.value, bool):
            rules.issue(shuffle, "shuffle", "must be true or false")
        keep = shuffle.value if shuffle is not None and isinstance(shuffle.value, bool) else True
        return MatchingSettings(items, categories, keep)

    def answer(self, template, part, names) -> tuple[tuple[str, str], ...]:
        known = {c.id for c in part.settings.categories}
        pairs = []
        for item in part.settings.items:
            match = item.get("match")
            if isinstance(match, Expr):
                value = evaluate(match.text, names, source=template.source, line=match.line)
                if value not in known:
                    raise ExpressionError(
                        template.source,
                        match.line,
                        match.text,
                        f"match must give one of the categories ({', '.join(sorted(known))}), "
                        f"not {value!r}",
                    )
                match = value
            pairs.append((item.id, str(match)))
        return tuple(pairs)

    def option_order(self, part, rng) -> tuple[str, ...]:
        ids = [item.id for item in part.settings.items]
        if rng is not None and part.settings.shuffle:
            rng.shuffle(ids)
        return tuple(ids)

    def validate(self, checks, part, variant, seed) -> None:
        right = dict(variant.answers[part.id])
        checks.count_key(part, sorted(right.items()))
        grade = self.grade(checks.template, variant, part, right, earlier={}, grade_fn=None)
        if grade.status != "correct":
            checks.failures.add("grading", f"its own key grades {grade.status}", seed, part.id)

    def render(self, template, part, variant, names) -> Rendered:
        by_id = {item.id: item for item in part.settings.items}
        order = variant.option_order.get(part.id) or tuple(by_id)
        items = tuple((i, render_text(template, by_id[i].text, names)) for i in order)
        categories = tuple(
            (c.id, render_text(template, c.text, names)) for c in part.settings.categories
        )
        return Rendered({"items": items, "categories": categories}, {})

    def rendered_texts(self, part):
        return tuple(i.text for i in part.settings.items) + tuple(
            c.text for c in part.settings.categories
        )

    # -- answering ----------------------------------------------------------------------------

    def clean(self, raw, part) -> dict[str, str]:
        """Posted "item:category" values (one per item) as {item id: category id}."""
        items = [item.id for item in part.settings.items]
        categories = {c.id for c in part.settings.categories}
        values = as_list(raw)
        if len(values) > len(items):
            raise AnswerRefused("That answer matches more items than the question has.")
        matched: dict[str, str] = {}
        for value in values:
            item_id, _, category = value.partition(":")
            if item_id not in items or category not in categories:
                raise AnswerRefused("That answer names an item or a category the question lacks.")
            if item_id in matched:
                raise AnswerRefused("An item is matched twice; give it one category.")
            matched[item_id] = category
        if len(matched) < len(items):
            raise AnswerRefused("Match every item with a category before checking.")
        return {item: matched[item] for item in items}

    def draft(self, raw) -> str:
        """An exam's half-given matching: the pairs given so far, as JSON."""
        pairs = {}
        for value in as_list(raw)[: ITEMS[1]]:
            item_id, _, category = value.partition(":")
            if item_id and category and len(value) <= 101:
                pairs[item_id] = category
        return json.dumps(pairs) if pairs else ""

    def stored(self, clean) -> str:
        return json.dumps(dict(clean))

    def from_stored(self, raw: str) -> dict[str, str]:
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    def grade(self, template, variant, part, response, *, earlier, grade_fn):
        from quizzes.grading.results import Grade

        given = self.from_stored(response) if isinstance(response, str) else dict(response)
        right = dict(variant.answers[part.id])
        if set(given) != set(right):
            return Grade("invalid", 0.0, "Match every item with exactly one category.")
        shown = ", ".join(f"{item}: {given[item]}" for item in right)
        hits = sum(1 for item, category in right.items() if given[item] == category)
        if hits == len(right):
            return Grade("correct", 1.0, "Correct.", interpreted=shown)
        feedback = f"{hits} of {len(right)} items are matched right."
        return Grade("incorrect", min(hits / len(right), 0.99), feedback, interpreted=shown)

    def read_back(self, part, raw) -> tuple[bool, str]:
        count = len(part.settings.items)
        given = len(self.from_stored(raw))
        if given < count:
            return False, f"{given} of {count} items have a category; match them all."
        return True, f"All {count} items matched."

    # -- showing ------------------------------------------------------------------------------

    def input_state(self, facts, raw) -> dict[str, str]:
        return self.from_stored(raw)

    def reading(self, facts, raw, interpreted) -> dict[str, str]:
        return self.from_stored(raw)

    def answer_key(self, part, answer) -> dict[str, str]:
        return dict(answer)

    def answer_text(self, part, answer, *, sig=None) -> str:
        return ", ".join(f"{item}: {category}" for item, category in dict(answer).items())

    def demo_answer(self, part, answer, common, right, rng):
        pairs = dict(answer)
        if not right:
            item = rng.choice(sorted(pairs))
            others = [c.id for c in part.settings.categories if c.id != pairs[item]]
            pairs[item] = rng.choice(others)
        return self.stored(pairs), None, ""
