"""Loading the book into the database: every chapter file is checked before any row is written.

``read_chapter_files`` parses and fully renders each ``content/book/*.md`` (front matter, live
figures, directives), so a file that would fail on its page is refused here, with its name and
line.  ``sync_chapters`` then writes all of them in one transaction, matched by slug and compared
by content hash, so running it twice changes nothing the second time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from content.expressions import ExpressionError

from .models import Chapter, Course, Part
from .rendering import ContentError, content_hash, render_body, split_front_matter

BOOK_DIR = Path(settings.BASE_DIR) / "content" / "book"
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TITLE_MAX = Chapter._meta.get_field("title").max_length


class BookError(Exception):
    """One or more chapter files are malformed; ``problems`` says where and what, one each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class ChapterFile:
    """A checked chapter file, ready to be stored."""

    name: str
    slug: str
    title: str
    order: int
    part: int
    summary: str
    text: str
    content_hash: str


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    without_file: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"created {len(self.created)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}"
        )
        if self.without_file:
            text += f"; kept {len(self.without_file)} with no file ({', '.join(self.without_file)})"
        return text


def _display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path(settings.BASE_DIR)))
    except ValueError:
        return str(path)


def _line_of_key(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 2


def _integer(meta: dict, key: str, default: int | None, name: str, text: str) -> int:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        line = _line_of_key(text, key)
        raise ContentError(name, line, f"'{key}' must be a whole number, not {value!r}")
    return value


def check_chapter_file(path: Path) -> ChapterFile:
    """Parse and render one file; ContentError or ExpressionError name the file and line."""
    name = _display_name(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ContentError(name, None, f"not UTF-8 text ({exc.reason})") from None
    parsed = split_front_matter(text, source=name)
    meta = parsed.meta
    slug, title = meta["slug"].strip(), meta["title"].strip()
    if not _SLUG.match(slug):
        raise ContentError(
            name, _line_of_key(text, "slug"), f"slug {slug!r} must be lower-case words joined by -"
        )
    if len(title) > _TITLE_MAX:
        raise ContentError(name, _line_of_key(text, "title"), f"title longer than {_TITLE_MAX}")
    order = _integer(meta, "order", None, name, text)
    part = _integer(meta, "part", 1, name, text)
    render_body(parsed.body, source=name, first_line=parsed.body_line)
    summary = str(meta.get("summary") or "").strip()
    return ChapterFile(name, slug, title, order, part, summary, text, content_hash(text))


def read_chapter_files(directory: Path = BOOK_DIR) -> list[ChapterFile]:
    """Every ``*.md`` of ``directory`` checked; BookError lists every problem found."""
    paths = sorted(Path(directory).glob("*.md"))
    problems: list[str] = []
    files: list[ChapterFile] = []
    for path in paths:
        try:
            files.append(check_chapter_file(path))
        except (ContentError, ExpressionError) as exc:
            problems.append(str(exc))
    seen: dict[str, str] = {}
    for chapter in files:
        if chapter.slug in seen:
            line = _line_of_key(chapter.text, "slug")
            problems.append(
                f"{chapter.name}, line {line}: slug '{chapter.slug}' is already used by "
                f"{seen[chapter.slug]}"
            )
        seen.setdefault(chapter.slug, chapter.name)
    if not paths:
        problems.append(f"{_display_name(Path(directory))}: no chapter files (*.md) found")
    if problems:
        raise BookError(problems)
    return files


@transaction.atomic
def sync_chapters(*, course: Course, files: list[ChapterFile]) -> SyncReport:
    """Store ``files`` as the course's chapters: create, update or leave each, matched by slug.

    Chapters in the database without a file are kept (readers' progress points at them).
    """
    report = SyncReport()
    parts = {part.number: part for part in course.parts.all()}
    existing = {c.slug: c for c in Chapter.objects.for_course(course)}
    for chapter_file in files:
        part = parts.get(chapter_file.part)
        if part is None:
            part = Part.objects.create(
                course=course, number=chapter_file.part, title=f"Part {chapter_file.part}"
            )
            parts[part.number] = part
        values = {
            "part": part,
            "title": chapter_file.title,
            "order": chapter_file.order,
            "summary": chapter_file.summary,
            "source": chapter_file.text,
            "source_path": chapter_file.name,
            "content_hash": chapter_file.content_hash,
        }
        chapter = existing.get(chapter_file.slug)
        if chapter is None:
            Chapter.objects.create(slug=chapter_file.slug, **values)
            report.created.append(chapter_file.slug)
        elif all(getattr(chapter, key) == value for key, value in values.items()):
            report.unchanged.append(chapter_file.slug)
        else:
            for key, value in values.items():
                setattr(chapter, key, value)
            chapter.save()
            report.updated.append(chapter_file.slug)
    slugs = {f.slug for f in files}
    report.without_file = sorted(slug for slug in existing if slug not in slugs)
    return report


_HEADING = re.compile(r"^#{2,4}\s+(?P<text>.+?)\s*(?:\{#(?P<id>[\w-]+)\})?\s*$", re.MULTILINE)


def section_headings(source: str) -> dict[str, str]:
    """{anchor: heading text} of every heading of a chapter, as `section_heading` finds them
    (the first heading of an anchor wins): one pass for a page that names many sections."""
    found: dict[str, str] = {}
    for match in _HEADING.finditer(source or ""):
        text = match["text"]
        found.setdefault(match["id"] or slugify(text), re.sub(r"[*_`$]", "", text))
    return found


def section_heading(source: str, anchor: str) -> str:
    """The text of the chapter heading that `anchor` links to (an explicit `{#id}` or the
    heading's slug), for link texts that say where they go; "" when there is none."""
    if not anchor:
        return ""
    for match in _HEADING.finditer(source or ""):
        text = match["text"]
        if match["id"] == anchor or (not match["id"] and slugify(text) == anchor):
            return re.sub(r"[*_`$]", "", text)
    return ""
