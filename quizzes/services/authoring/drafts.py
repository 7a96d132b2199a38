"""Drafts in the studio: starters, new and duplicated templates, checking and saving a draft.

A save never loses the author's text: a draft with errors is stored as it is (the published
version, if any, stays untouched) and the errors are returned with their lines. Saves are
guarded by an optimistic lock on ``QuestionTemplate.draft_revision``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.db import transaction

from quizzes.engine import CHAPTERS, TemplateIssue, kinds
from quizzes.engine.yamlnodes import PlainYAMLError, check_plain
from quizzes.models import QuestionTemplate, TemplateStatus
from quizzes.services.authoring.budgets import deadline_after, preview_budget
from quizzes.services.bank import TemplateFile, read_one

STARTERS_DIR = Path(__file__).resolve().parents[2] / "starters"
# kind -> (starter file, label shown to authors): each answer kind's own (in its folder), and
# one with several parts.
STARTERS = {
    **{kind.name: (kind.starter, kind.label) for kind in kinds.all_kinds()},
    "multi-part": (STARTERS_DIR / "multipart.yaml", "Multi-part, with error carried forward"),
}
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Far above any real template; it bounds what one save stores and what one preview parses.
MAX_SOURCE_CHARS = 100_000
_SLUG_LINE = re.compile(r"^slug:.*$", re.MULTILINE)
_TITLE_LINE = re.compile(r"^title:.*$", re.MULTILINE)
_CHAPTER_LINE = re.compile(r"^chapter:.*$", re.MULTILINE)


class AuthoringError(Exception):
    """A refused authoring action; the message is shown to the author as it is."""


@dataclass
class DraftConflict(Exception):
    """Another author saved the draft since this one was loaded."""

    theirs: str
    revision: int
    by: str

    def __str__(self) -> str:
        return f"the draft was saved by {self.by} since you opened it (revision {self.revision})"


def starter_source(kind: str) -> str:
    """The starter text of ``kind`` (one of STARTERS); each is a valid template as it is."""
    if kind not in STARTERS:
        raise AuthoringError(f"Unknown kind of question '{kind}'; choose one of the starters.")
    return STARTERS[kind][0].read_text(encoding="utf-8")


def check_slug(slug: str, *, course) -> str:
    slug = (slug or "").strip()
    if not SLUG_RE.match(slug) or len(slug) > 100:
        raise AuthoringError(
            "A slug is lowercase letters, digits and single hyphens, e.g. 'ridge-point-h100'."
        )
    if QuestionTemplate.objects.filter(course=course, slug=slug).exists():
        raise AuthoringError(f"The slug '{slug}' is already taken; choose another.")
    return slug


def with_fields(text: str, *, slug: str, title: str = "", chapter: str = "") -> str:
    """``text`` with its top-level slug (and optionally title and chapter) lines replaced."""

    def put(pattern: re.Pattern, key: str, value: str, text: str) -> str:
        line = f"{key}: {value}"
        if pattern.search(text):
            return pattern.sub(lambda _: line, text, count=1)
        return f"{line}\n{text}"

    text = put(_SLUG_LINE, "slug", slug, text)
    if title:
        # A JSON string is a valid double-quoted YAML scalar, whatever the title contains.
        text = put(_TITLE_LINE, "title", json.dumps(title, ensure_ascii=False), text)
    if chapter:
        text = put(_CHAPTER_LINE, "chapter", chapter, text)
    return text


def _line_of(pattern: re.Pattern, text: str) -> int | None:
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def refuse_unsafe_text(text: str) -> None:
    """AuthoringError for a text that must never be stored: an alias bomb, or too large."""
    if len(text) > MAX_SOURCE_CHARS:
        raise AuthoringError(
            f"Not saved: the text is longer than {MAX_SOURCE_CHARS:,} characters. "
            "The stored draft is unchanged."
        )
    try:
        check_plain(text)
    except PlainYAMLError as exc:
        raise AuthoringError(f"Not saved: {exc}. The stored draft is unchanged.") from None
    except yaml.YAMLError:
        pass  # ordinary bad YAML is the author's work in progress: stored, with its errors


def read_draft(text: str, *, slug: str | None = None) -> tuple[TemplateFile | None, list]:
    """Parse ``text`` (and draw a few variants): (the parsed file or None, its issues).

    With ``slug``, a text that names another slug is an issue too: a template's slug is stable.
    Never raises: whatever goes wrong becomes an issue the author can read.
    """
    parsed, issues = check_draft(text, slug=slug)
    return (None, issues) if issues else (parsed, [])


def check_draft(text: str, *, slug: str | None = None) -> tuple[TemplateFile | None, list]:
    """Like ``read_draft``, but a draft that parses is returned even when its slug is not
    ``slug`` (the issue says so): the editor still previews it.

    The editor's text is a (path, text) pair like any other file: the bank's one reader
    (`bank.read_one`) parses it, once.
    """
    if len(text) > MAX_SOURCE_CHARS:
        return None, [
            TemplateIssue(None, "template", f"is longer than {MAX_SOURCE_CHARS:,} characters")
        ]
    if "\x00" in text:
        return None, [TemplateIssue(None, "template", "contains a NUL character (binary data?)")]
    try:
        parsed, issues = read_one("draft", text, deadline=deadline_after(preview_budget()))
    except Exception as exc:  # noqa: BLE001 - an engine bug must still reach the author as text
        return None, [TemplateIssue(None, "template", f"could not be read: {exc}")]
    if parsed is None:
        return None, issues
    if slug is not None and parsed.slug != slug:
        message = (
            f"is '{parsed.slug}' but this template's slug is '{slug}'; a slug never changes "
            "(duplicate the template to get a new slug)"
        )
        return parsed, [TemplateIssue(_line_of(_SLUG_LINE, text), "slug", message)]
    return parsed, []


def create_template(*, course, user, kind: str, slug: str, title: str = "", chapter: str = ""):
    """A new draft template from the starter of ``kind``."""
    slug = check_slug(slug, course=course)
    if chapter and chapter not in CHAPTERS:
        raise AuthoringError(f"Unknown chapter '{chapter}'; choose one of {', '.join(CHAPTERS)}.")
    text = with_fields(starter_source(kind), slug=slug, title=title.strip(), chapter=chapter)
    return _new_draft(course=course, user=user, slug=slug, text=text)


def duplicate_template(*, template: QuestionTemplate, slug: str, user) -> QuestionTemplate:
    """A new draft template with ``template``'s current draft text under a new slug."""
    slug = check_slug(slug, course=template.course)
    text = with_fields(template.draft_source, slug=slug)
    return _new_draft(course=template.course, user=user, slug=slug, text=text)


def _new_draft(*, course, user, slug: str, text: str) -> QuestionTemplate:
    parsed, _ = read_draft(text, slug=slug)
    return QuestionTemplate.objects.create(
        course=course,
        slug=slug,
        title=parsed.title if parsed else slug,
        chapter_slug=parsed.chapter if parsed else "",
        kind=parsed.kind if parsed else "",
        status=TemplateStatus.DRAFT,
        draft_source=text,
        draft_updated_by=user,
        created_by=user,
    )


def save_draft(*, template: QuestionTemplate, text: str, revision: int, user) -> list:
    """Store ``text`` as the draft and return its issues (empty when it parses).

    Raises DraftConflict when the draft's revision is no longer ``revision``. The text is stored
    even when it has errors; the title, chapter and kind follow the text only when it parses.
    A text no reader may ever open (YAML aliases, beyond the size bounds) is not stored at all:
    AuthoringError, the draft unchanged.
    """
    text = text.replace("\r\n", "\n")
    refuse_unsafe_text(text)
    parsed, issues = read_draft(text, slug=template.slug)
    with transaction.atomic():
        # No join here: PostgreSQL refuses FOR UPDATE on the nullable side of an outer join.
        locked = QuestionTemplate.objects.select_for_update().get(pk=template.pk)
        if locked.draft_revision != revision:
            who = locked.draft_updated_by
            raise DraftConflict(
                theirs=locked.draft_source,
                revision=locked.draft_revision,
                by=(who.get_full_name() or who.username) if who else "another author",
            )
        locked.draft_source = text
        locked.draft_revision += 1
        locked.draft_updated_by = user
        if parsed is not None:
            locked.title, locked.chapter_slug, locked.kind = (
                parsed.title,
                parsed.chapter,
                parsed.kind,
            )
        locked.save()
    template.refresh_from_db()
    return issues
