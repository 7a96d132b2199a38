"""Quiz definition files (docs/quiz-format.md): parsed and checked with file and line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml
from django.utils.dateparse import parse_datetime

from quizzes.engine.yamlnodes import PlainYAMLError, check_plain
from quizzes.models import AnswerRelease, LatePolicy, QuizMode, ReleasePolicy

from .common import BankError, _close, content_hash

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


@dataclass(frozen=True)
class ItemSpec:
    template: str
    points: Decimal
    pool: str = ""


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

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


def read_quiz_text(text: str, *, source: str) -> QuizFile:
    """Parse one quiz definition; raises BankError with file and line for each problem."""
    problems: list[str] = []

    def problem(message: str, node=None) -> None:
        line = f", line {node.start_mark.line + 1}" if node is not None else ""
        problems.append(f"{source}{line}: {message}")

    try:
        check_plain(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except PlainYAMLError as exc:
        raise BankError([f"{source}, {exc}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark else ""
        raise BankError(
            [f"{source}{line}: not valid YAML ({getattr(exc, 'problem', exc)})"]
        ) from None
    if not isinstance(data, dict):
        raise BankError([f"{source}: a quiz file must be a mapping of fields"])
    lines = _key_nodes(node)
    for key in data:
        if key not in QUIZ_FIELDS:
            near = _close(str(key), QUIZ_FIELDS)
            problem(
                f"unknown field '{key}'" + (f"; did you mean '{near}'?" if near else ""),
                lines.get(key),
            )
    for required in ("slug", "title", "items"):
        if not data.get(required):
            problem(f"'{required}' is required")
    for name, most in (("slug", 100), ("title", 200)):
        if len(str(data.get(name) or "")) > most:
            problem(f"{name} is at most {most} characters", lines.get(name))
    fields: dict[str, Any] = {}
    mode = data.get("mode", QuizMode.HOMEWORK)
    if mode not in QuizMode.values:
        problem(f"mode must be one of {', '.join(QuizMode.values)}", lines.get("mode"))
    fields["mode"] = mode
    late = data.get("late_policy", LatePolicy.PENALTY)
    if late not in LatePolicy.values:
        problem(
            f"late_policy must be one of {', '.join(LatePolicy.values)}", lines.get("late_policy")
        )
    fields["late_policy"] = late
    release = data.get("release", ReleasePolicy.IMMEDIATE)
    if release not in ReleasePolicy.values:
        problem(f"release must be one of {', '.join(ReleasePolicy.values)}", lines.get("release"))
    fields["release"] = release
    shown = data.get("show_answers", AnswerRelease.AFTER_FINAL)
    if shown not in AnswerRelease.values:
        choices = ", ".join(AnswerRelease.values)
        problem(f"show_answers must be one of {choices}", lines.get("show_answers"))
    fields["show_answers"] = shown
    for name, most in COUNT_BOUNDS.items():
        value = data.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            problem(f"{name} must be a whole number", lines.get(name))
            value = None
        elif value is not None and not 0 <= value <= most:
            problem(f"{name} must be a whole number from 0 to {most:,}", lines.get(name))
            value = None
        fields[name] = value
    if fields["tries_per_variant"] is None:
        fields["tries_per_variant"] = 3
    if fields["position"] is None:
        fields["position"] = 0
    try:
        penalty = Decimal(str(data.get("late_penalty", 0)))
        if not 0 <= penalty <= 1:
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        problem("late_penalty must be a fraction between 0 and 1", lines.get("late_penalty"))
        penalty = Decimal(0)
    fields["late_penalty"] = penalty
    for name, target in (("opens", "opens_at"), ("due", "due_at"), ("closes", "closes_at")):
        value = data.get(name)
        if value is None:
            fields[target] = None
            continue
        moment = value if isinstance(value, datetime) else parse_datetime(str(value))
        if moment is None or moment.tzinfo is None:
            problem(
                f"{name} must be an ISO date and time with a zone, e.g. 2027-01-15T23:59:00Z",
                lines.get(name),
            )
        fields[target] = moment
    fields["description"] = str(data.get("description") or "")
    fields["is_published"] = bool(data.get("published", True))

    items: list[ItemSpec] = []
    pools: dict[str, int] = {}
    raw_items = data.get("items") or []
    item_nodes = _seq_nodes(node, "items")
    if not isinstance(raw_items, list):
        problem("items must be a list", lines.get("items"))
        raw_items = []
    elif len(raw_items) > MAX_ITEMS:
        problem(f"items has {len(raw_items)} entries; at most {MAX_ITEMS}", lines.get("items"))
        raw_items = []
    for index, raw in enumerate(raw_items):
        item_node = item_nodes[index] if index < len(item_nodes) else lines.get("items")
        if not isinstance(raw, dict) or not (set(raw) <= ITEM_FIELDS):
            problem("each item is {template, points} or {pool, draw, templates, points}", item_node)
            continue
        try:
            points = Decimal(str(raw.get("points", 1)))
            if not points.is_finite() or not 0 < points <= MAX_POINTS:
                raise InvalidOperation
        except (InvalidOperation, ValueError):
            problem(f"points must be a positive number, at most {MAX_POINTS}", item_node)
            points = Decimal(1)
        if "pool" in raw:
            name = str(raw["pool"])
            members = raw.get("templates") or []
            if len(name) > 50:
                problem("a pool name is at most 50 characters", item_node)
                continue
            draw = raw.get("draw")
            if not isinstance(members, list) or len(members) < 2:
                problem(f"pool '{name}' needs a list of at least two templates", item_node)
                continue
            if not isinstance(draw, int) or not 1 <= draw <= len(members):
                problem(f"pool '{name}': draw must be between 1 and {len(members)}", item_node)
                continue
            if name in pools:
                problem(f"pool '{name}' is defined twice", item_node)
            pools[name] = draw
            items.extend(ItemSpec(str(slug), points, name) for slug in members)
        elif "template" in raw:
            items.append(ItemSpec(str(raw["template"]), points))
        else:
            problem("an item needs 'template' (or 'pool' with 'templates')", item_node)
    slugs = [i.template for i in items]
    for slug in {s for s in slugs if slugs.count(s) > 1}:
        problem(f"template '{slug}' appears twice in this quiz", lines.get("items"))
    if problems:
        raise BankError(problems)
    return QuizFile(
        path=source,
        text=text,
        slug=str(data["slug"]),
        title=str(data["title"]),
        chapter=str(data.get("chapter") or ""),
        fields=fields,
        items=items,
        pools=pools,
    )


def _key_nodes(node) -> dict:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: k for k, _ in node.value}


def _seq_nodes(node, key: str) -> list:
    if not isinstance(node, yaml.MappingNode):
        return []
    for k, v in node.value:
        if k.value == key and isinstance(v, yaml.SequenceNode):
            return list(v.value)
    return []
