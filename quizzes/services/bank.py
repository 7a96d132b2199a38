"""The question bank on disk and in the database: read every file, check all of it, then write.

Files under ``content/questions/`` are question templates (``docs/question-format.md``); files
under any ``quizzes/`` folder there are quiz definitions (``docs/quiz-format.md``). Loading is
all-or-nothing: every file is parsed and cross-checked first, and only a bank without a single
problem is written, in one transaction. Loading the same files again changes nothing (each row
keeps the hash of the text it came from).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.db import transaction
from django.utils.dateparse import parse_datetime

from content.expressions import ExpressionError
from courseware.models import Chapter, Course
from quizzes.engine import (
    GenerationError,
    TemplateError,
    TemplateIssue,
    generate_variant,
    parse_template,
    render_prompt,
    render_solution,
)
from quizzes.models import (
    LatePolicy,
    QuestionTemplate,
    Quiz,
    QuizItem,
    QuizMode,
    ReleasePolicy,
    TemplateStatus,
    TemplateVersion,
)

QUESTIONS_DIR = Path(settings.BASE_DIR) / "content" / "questions"
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
    "items",
    "published",
}
ITEM_FIELDS = {"template", "points", "pool", "draw", "templates"}


class BankError(Exception):
    """The bank has problems; ``problems`` lists each as 'file, line N: message'."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class TemplateFile:
    path: str
    text: str
    slug: str
    title: str
    chapter: str
    kind: str

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


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


@dataclass
class Bank:
    templates: list[TemplateFile] = field(default_factory=list)
    quizzes: list[QuizFile] = field(default_factory=list)


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    quizzes_created: list[str] = field(default_factory=list)
    quizzes_updated: list[str] = field(default_factory=list)
    quizzes_unchanged: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"templates: created {len(self.created)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}; quizzes: created {len(self.quizzes_created)}, "
            f"updated {len(self.quizzes_updated)}, unchanged {len(self.quizzes_unchanged)}"
        )


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def template_kind(template) -> str:
    kinds = {part.kind for part in template.parts}
    if len(template.parts) > 1:
        return "multi-part"
    return kinds.pop()


SMOKE_SEEDS = 3


def read_template_text(text: str, *, source: str) -> TemplateFile:
    """Parse one template's text and draw a few variants from it.

    Raises TemplateError with every problem and its line. The draws catch what only shows when
    an expression runs (a misspelt catalog field); `validate_questions` checks hundreds of seeds.
    """
    template = parse_template(text, source=source)
    for seed in range(SMOKE_SEEDS):
        try:
            variant = generate_variant(template, seed)
            render_prompt(template, variant)
            render_solution(template, variant)
        except (GenerationError, ExpressionError) as exc:
            line = getattr(exc, "line", None)
            raise TemplateError(
                [TemplateIssue(line, "variant", f"seed {seed}: {_message(exc)}")], source=source
            ) from None
    return TemplateFile(
        path=source,
        text=text,
        slug=template.slug,
        title=template.title,
        chapter=template.chapter,
        kind=template_kind(template),
    )


def _message(exc: Exception) -> str:
    expr = getattr(exc, "expr", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{expr}: {message}" if expr else message


def read_bank(root: Path = QUESTIONS_DIR) -> Bank:
    """Read and check every file under ``root``; raise BankError listing every problem."""
    problems: list[str] = []
    bank = Bank()
    for path in sorted(root.rglob("*.yaml")) + sorted(root.rglob("*.yml")):
        rel = _display_path(path, root)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{rel}: cannot be read as UTF-8 text ({exc})")
            continue
        if "quizzes" in path.relative_to(root).parts[:-1]:
            try:
                bank.quizzes.append(read_quiz_text(text, source=rel))
            except BankError as exc:
                problems.extend(exc.problems)
        else:
            try:
                bank.templates.append(read_template_text(text, source=rel))
            except TemplateError as exc:
                problems.extend(f"{rel}, {issue}" for issue in exc.errors)
    problems.extend(cross_check(bank))
    if problems:
        raise BankError(problems)
    return bank


def _display_path(path: Path, root: Path) -> str:
    base = Path(settings.BASE_DIR)
    try:
        return str(path.resolve().relative_to(base))
    except ValueError:
        return str(path.relative_to(root))


def cross_check(bank: Bank, known_slugs: set[str] | None = None) -> list[str]:
    """Problems that only show across files: duplicate slugs, quizzes naming unknown templates."""
    problems = []
    seen: dict[str, str] = {}
    for t in bank.templates:
        if t.slug in seen:
            problems.append(f"{t.path}: slug '{t.slug}' is also used by {seen[t.slug]}")
        seen[t.slug] = t.path
    slugs = set(seen) | (known_slugs or set())
    quiz_seen: dict[str, str] = {}
    for q in bank.quizzes:
        if q.slug in quiz_seen:
            problems.append(f"{q.path}: quiz slug '{q.slug}' is also used by {quiz_seen[q.slug]}")
        quiz_seen[q.slug] = q.path
        for item in q.items:
            if item.template not in slugs:
                near = _close(item.template, slugs)
                problems.append(
                    f"{q.path}: items: unknown template '{item.template}'"
                    + (f"; did you mean '{near}'?" if near else "")
                )
    return problems


def _close(word: str, candidates: set[str]) -> str | None:
    import difflib

    match = difflib.get_close_matches(word, sorted(candidates), n=1)
    return match[0] if match else None


def read_quiz_text(text: str, *, source: str) -> QuizFile:
    """Parse one quiz definition; raises BankError with file and line for each problem."""
    problems: list[str] = []

    def problem(message: str, node=None) -> None:
        line = f", line {node.start_mark.line + 1}" if node is not None else ""
        problems.append(f"{source}{line}: {message}")

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
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
    for name in ("max_attempts", "time_limit_minutes", "tries_per_variant", "position"):
        value = data.get(name)
        if value is not None and (not isinstance(value, int) or value < 0):
            problem(f"{name} must be a whole number", lines.get(name))
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
    for index, raw in enumerate(raw_items):
        item_node = item_nodes[index] if index < len(item_nodes) else lines.get("items")
        if not isinstance(raw, dict) or not (set(raw) <= ITEM_FIELDS):
            problem("each item is {template, points} or {pool, draw, templates, points}", item_node)
            continue
        try:
            points = Decimal(str(raw.get("points", 1)))
            if points <= 0:
                raise InvalidOperation
        except (InvalidOperation, ValueError):
            problem("points must be a positive number", item_node)
            points = Decimal(1)
        if "pool" in raw:
            name = str(raw["pool"])
            members = raw.get("templates") or []
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


@transaction.atomic
def sync_bank(*, bank: Bank, course: Course, user=None) -> SyncReport:
    """Write a checked bank to the database; unchanged files change nothing.

    A template whose file changed gets a new immutable version (students who already have
    variants keep theirs); its draft follows the file unless an author has edited the draft
    in the studio since the last version, in which case the author's draft is kept.
    """
    report = SyncReport()
    existing = {
        t.slug: t
        for t in QuestionTemplate.objects.filter(course=course).select_related("current_version")
    }
    for tf in bank.templates:
        template = existing.get(tf.slug)
        if template is None:
            template = QuestionTemplate.objects.create(
                course=course,
                slug=tf.slug,
                title=tf.title,
                chapter_slug=tf.chapter,
                kind=tf.kind,
                status=TemplateStatus.PUBLISHED,
                draft_source=tf.text,
                source_path=tf.path,
                created_by=user,
            )
            publish_version(template=template, text=tf.text, title=tf.title, user=user)
            existing[tf.slug] = template
            report.created.append(tf.slug)
            continue
        current = template.current_version
        if current is not None and current.content_hash == tf.content_hash:
            report.unchanged.append(tf.slug)
            continue
        draft_untouched = current is None or template.draft_source == current.source
        publish_version(template=template, text=tf.text, title=tf.title, user=user)
        template.title, template.chapter_slug, template.kind = tf.title, tf.chapter, tf.kind
        template.source_path = tf.path
        if template.status == TemplateStatus.DRAFT:
            template.status = TemplateStatus.PUBLISHED
        if draft_untouched:
            template.draft_source = tf.text
            template.draft_revision += 1
        template.save()
        report.updated.append(tf.slug)

    chapters = {c.slug: c for c in Chapter.objects.for_course(course)}
    for qf in bank.quizzes:
        quiz = Quiz.objects.filter(course=course, slug=qf.slug).first()
        if quiz is not None and quiz.content_hash == qf.content_hash:
            report.quizzes_unchanged.append(qf.slug)
            continue
        values = dict(qf.fields)
        values.update(
            title=qf.title,
            chapter=chapters.get(qf.chapter),
            pools=qf.pools,
            source_path=qf.path,
            content_hash=qf.content_hash,
        )
        if quiz is None:
            quiz = Quiz.objects.create(course=course, slug=qf.slug, **values)
            report.quizzes_created.append(qf.slug)
        else:
            for name, value in values.items():
                setattr(quiz, name, value)
            quiz.save()
            report.quizzes_updated.append(qf.slug)
        set_quiz_items(quiz=quiz, items=qf.items, templates=existing)
    return report


def set_quiz_items(*, quiz: Quiz, items: list[ItemSpec], templates: dict) -> None:
    """Make the quiz's items match ``items``, keeping rows that students already answered."""
    current = {item.template.slug: item for item in quiz.items.select_related("template")}
    # Positions are unique per quiz: move existing rows out of the way first.
    if current:
        offset = 1000 + max(i.position for i in current.values())
        for item in current.values():
            item.position += offset
            item.save(update_fields=["position"])
    wanted = set()
    for position, spec in enumerate(items, start=1):
        wanted.add(spec.template)
        item = current.get(spec.template)
        if item is None:
            QuizItem.objects.create(
                quiz=quiz,
                template=templates[spec.template],
                position=position,
                points=spec.points,
                pool=spec.pool,
            )
        else:
            item.position, item.points, item.pool = position, spec.points, spec.pool
            item.save(update_fields=["position", "points", "pool"])
    next_position = len(items) + 1
    for slug, item in current.items():
        if slug in wanted:
            continue
        if item.variants.exists():
            # Answered items stay (their variants refer to them) but leave the quiz's draw:
            # they move to a pool that draws nothing.
            item.pool = "retired"
            item.position = next_position
            next_position += 1
            item.save(update_fields=["pool", "position"])
            quiz.pools = {**quiz.pools, "retired": 0}
            quiz.save(update_fields=["pools"])
        else:
            item.delete()


def publish_version(
    *, template: QuestionTemplate, text: str, title: str, user=None, note: str = ""
) -> TemplateVersion:
    """Create the next immutable version of ``template`` from ``text`` and make it current."""
    last = template.versions.order_by("-number").values_list("number", flat=True).first() or 0
    version = TemplateVersion.objects.create(
        template=template,
        number=last + 1,
        source=text,
        content_hash=content_hash(text),
        title=title,
        published_by=user,
        note=note,
    )
    template.current_version = version
    template.status = TemplateStatus.PUBLISHED
    template.save(update_fields=["current_version", "status"])
    return version
