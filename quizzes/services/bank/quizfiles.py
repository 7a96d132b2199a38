"""Quiz definition files (docs/quiz-format.md), parsed by the template engine's own machinery.

The same YAML guard (`content.plainyaml` through `engine.yamlnodes`), the same field checks
(`ParserBase`: unknown fields with "did you mean", typed getters) and the same error: a
`TemplateError` whose issues read "q.yaml, line 3, mode: must be one of homework, exam", as a
template's do. Every problem is reported, not just the first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils.dateparse import parse_datetime

from content.expressions import did_you_mean
from quizzes.engine.errors import TemplateError
from quizzes.engine.parse.base import ParserBase, _as_number
from quizzes.engine.yamlnodes import Loc
from quizzes.models import AnswerRelease, LatePolicy, QuizMode, ReleasePolicy

from .common import content_hash

QUIZ_FIELDS = {
    "slug",
    "title",
    "chapter",
    "description",
    "position",
    "mode",
    "max_attempts",
    "tries_per_variant",
    "opens",
    "due",
    "closes",
    "late_policy",
    "late_penalty",
    "time_limit_minutes",
    "release",
    "show_answers",
    "items",
    "published",
    "objectives",
}
ITEM_FIELDS = {"template", "points", "pool", "draw", "templates"}
# The counts a quiz file sets, each bounded (the columns hold at most 32,767; a week of exam).
COUNT_BOUNDS = {
    "max_attempts": 1_000,
    "time_limit_minutes": 7 * 24 * 60,
    "tries_per_variant": 100,
    "position": 32_767,
}
MAX_ITEMS = 200
MAX_POINTS = 1000
OBJECTIVE_FIELDS = ("id", "text", "templates")
OBJECTIVE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@dataclass(frozen=True)
class ItemSpec:
    template: str
    points: Decimal
    pool: str = ""


@dataclass(frozen=True)
class Objective:
    """A learning objective of a chapter quiz and the templates that test it."""

    id: str
    text: str
    templates: tuple[str, ...]


@dataclass
class QuizFile:
    path: str
    text: str
    slug: str
    title: str
    chapter: str
    fields: dict[str, Any]
    items: list[ItemSpec]
    pools: dict[str, int]
    objectives: list[Objective] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


def read_quiz_text(text: str, *, source: str, root: Loc | None = None) -> QuizFile:
    """Parse one quiz definition; raise `TemplateError` listing every problem with its line.
    ``root``: the text already composed, as `parse_template` takes it."""
    parser = _QuizParser(source)
    quiz = parser.parse(text, root)
    if parser.issues or quiz is None:
        raise TemplateError(parser.issues, source)
    return quiz


# (field, its choices, the default) of the fields that name one of a model's choices
CHOICE_FIELDS = (
    ("mode", QuizMode, QuizMode.HOMEWORK),
    ("late_policy", LatePolicy, LatePolicy.PENALTY),
    ("release", ReleasePolicy, ReleasePolicy.IMMEDIATE),
    ("show_answers", AnswerRelease, AnswerRelease.AFTER_FINAL),
)
MOMENTS = (("opens", "opens_at"), ("due", "due_at"), ("closes", "closes_at"))


class _QuizParser(ParserBase):
    def parse(self, text: str, root: Loc | None = None) -> QuizFile | None:
        root = self.compose_root(text, "the quiz", root)
        if root is None:
            return None
        self.unknown_keys(root, sorted(QUIZ_FIELDS), "a quiz file")
        slug = self.text_field(root, "slug")
        title = self.text_field(root, "title")
        for loc, name, most in ((slug, "slug", 100), (title, "title", 200)):
            if loc is not None and len(loc.value) > most:
                self.issue(loc, name, f"at most {most} characters")
        fields: dict[str, Any] = {}
        for name, choices, default in CHOICE_FIELDS:
            fields[name] = self.choice(root.get(name), name, choices.values, default)
        for name, most in COUNT_BOUNDS.items():
            fields[name] = self.count(root.get(name), name, most)
        if fields["tries_per_variant"] is None:
            fields["tries_per_variant"] = 3
        if fields["position"] is None:
            fields["position"] = 0
        fields["late_penalty"] = self.penalty(root.get("late_penalty"))
        for name, target in MOMENTS:
            fields[target] = self.moment(root.get(name), name)
        fields["description"] = str(_value(root, "description") or "")
        fields["is_published"] = bool(_value(root, "published", True))
        items, pools = self.parse_items(root)
        objectives = self.parse_objectives(root.get("objectives"))
        if self.issues or slug is None or title is None:
            return None
        return QuizFile(
            path=self.source,
            text=text,
            slug=slug.value,
            title=title.value,
            chapter=str(_value(root, "chapter") or ""),
            fields=fields,
            items=items,
            pools=pools,
            objectives=objectives,
        )

    # -- one field each --------------------------------------------------------------------------

    def choice(self, loc: Loc | None, name: str, choices: list[str], default: str) -> str:
        if loc is None:
            return default
        if loc.value not in choices:
            hint = did_you_mean(str(loc.value), choices)
            self.issue(loc, name, f"must be one of {', '.join(choices)}{hint}")
            return default
        return loc.value

    def count(self, loc: Loc | None, name: str, most: int) -> int | None:
        if loc is None or loc.value is None:  # null: no limit
            return None
        value = _as_number(loc.value)
        if value is None or value != int(value) or not 0 <= value <= most:
            self.issue(loc, name, f"must be a whole number from 0 to {most:,}")
            return None
        return int(value)

    def penalty(self, loc: Loc | None) -> Decimal:
        if loc is None:
            return Decimal(0)
        value = _as_number(loc.value)
        if value is None or not 0 <= value <= 1:
            self.issue(loc, "late_penalty", "must be a fraction between 0 and 1")
            return Decimal(0)
        return Decimal(str(value))

    def moment(self, loc: Loc | None, name: str) -> datetime | None:
        if loc is None or loc.value is None:
            return None
        value = loc.value
        try:
            moment = value if isinstance(value, datetime) else parse_datetime(str(value))
        except ValueError:  # the right shape, an impossible date (month 13)
            moment = None
        if moment is None or moment.tzinfo is None:
            self.issue(
                loc, name, "must be an ISO date and time with a zone, e.g. 2027-01-15T23:59:00Z"
            )
            return None
        return moment

    # -- items and objectives --------------------------------------------------------------------

    def parse_items(self, root: Loc) -> tuple[list[ItemSpec], dict[str, int]]:
        items: list[ItemSpec] = []
        pools: dict[str, int] = {}
        loc = root.get("items")
        if loc is None:
            self.issue(root, "items", "is required")
            return items, pools
        if not isinstance(loc.children, list) or not loc.children:
            self.issue(loc, "items", "must be a list of {template, points} entries")
            return items, pools
        if len(loc.children) > MAX_ITEMS:
            self.issue(loc, "items", f"has {len(loc.children)} entries; at most {MAX_ITEMS}")
            return items, pools
        for item in loc.items():
            if not isinstance(item.children, dict):
                self.issue(item, "items", "each item is {template, points} or a pool")
                continue
            self.unknown_keys(item, sorted(ITEM_FIELDS), "an item")
            points = self.points(item.get("points"))
            if item.get("pool") is not None:
                self.parse_pool(item, points, items, pools)
            elif item.get("template") is not None:
                items.append(ItemSpec(str(item.get("template").value), points))
            else:
                self.issue(item, "items", "an item needs 'template' (or 'pool' with 'templates')")
        slugs = [i.template for i in items]
        for slug in sorted({s for s in slugs if slugs.count(s) > 1}):
            self.issue(loc, "items", f"template '{slug}' appears twice in this quiz")
        return items, pools

    def points(self, loc: Loc | None) -> Decimal:
        if loc is None:
            return Decimal(1)
        value = _as_number(loc.value)
        if value is None or not 0 < value <= MAX_POINTS:
            self.issue(loc, "points", f"must be a positive number, at most {MAX_POINTS}")
            return Decimal(1)
        return Decimal(str(loc.value).strip())

    def parse_pool(self, item: Loc, points: Decimal, items: list, pools: dict) -> None:
        name = str(item.get("pool").value)
        members = item.get("templates")
        draw = item.get("draw")
        if len(name) > 50:
            self.issue(item.get("pool"), "pool", "a pool name is at most 50 characters")
            return
        listed = members.value if members is not None else None
        if not isinstance(listed, list) or len(listed) < 2:
            self.issue(members or item, "templates", f"pool '{name}' needs at least two templates")
            return
        count = _as_number(draw.value) if draw is not None else None
        if count is None or count != int(count) or not 1 <= count <= len(listed):
            self.issue(draw or item, "draw", f"pool '{name}': must be from 1 to {len(listed)}")
            return
        if name in pools:
            self.issue(item.get("pool"), "pool", f"pool '{name}' is defined twice")
        pools[name] = int(count)
        items.extend(ItemSpec(str(slug), points, name) for slug in listed)

    def parse_objectives(self, loc: Loc | None) -> list[Objective]:
        """``objectives``: each {id, text, templates}, naming at least two templates."""
        if loc is None:
            return []
        if not isinstance(loc.children, list) or not loc.children:
            self.issue(loc, "objectives", "must be a list of {id, text, templates}")
            return []
        objectives: list[Objective] = []
        for entry in loc.items():
            if not isinstance(entry.children, dict):
                self.issue(entry, "objectives", "each objective is {id, text, templates}")
                continue
            self.unknown_keys(entry, list(OBJECTIVE_FIELDS), "an objective")
            ident = _value(entry, "id")
            if not isinstance(ident, str) or not OBJECTIVE_ID.fullmatch(ident):
                where = entry.get("id") or entry
                self.issue(where, "id", "is required: lowercase letters, digits, hyphens")
                continue
            text = _value(entry, "text")
            if not isinstance(text, str) or not text.strip():
                self.issue(entry, "text", f"objective '{ident}' needs the sentence students read")
            templates = _value(entry, "templates")
            where = entry.get("templates") or entry
            if not isinstance(templates, list) or not all(isinstance(t, str) for t in templates):
                self.issue(where, "templates", f"objective '{ident}': a list of template slugs")
                continue
            if len(set(templates)) < 2:
                self.issue(
                    where,
                    "templates",
                    f"objective '{ident}' names {len(set(templates))} template(s); name at "
                    "least two that test it in different ways",
                )
            if len(set(templates)) != len(templates):
                self.issue(where, "templates", f"objective '{ident}' names a template twice")
            if ident in {o.id for o in objectives}:
                self.issue(entry, "id", f"objective '{ident}' is defined twice")
            objectives.append(Objective(ident, str(text or "").strip(), tuple(templates)))
        return objectives


def _value(loc: Loc, key: str, default=None):
    child = loc.get(key)
    return default if child is None else child.value
