"""Reading the bank from disk: every template and quiz file parsed and cross-checked."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings

from content.expressions import ExpressionError
from quizzes.engine import (
    GenerationError,
    Template,
    TemplateError,
    TemplateIssue,
    generate_variant,
    parse_template,
    render_prompt,
    render_solution,
)

from .common import BankError, _close, content_hash
from .quizfiles import QuizFile, read_quiz_text

QUESTIONS_DIR = Path(settings.BASE_DIR) / "content" / "questions"


@dataclass(frozen=True)
class TemplateFile:
    path: str
    text: str
    slug: str
    title: str
    chapter: str
    kind: str
    # The parsed template travels with the file, so no later step parses the text again.
    template: Template | None = field(default=None, compare=False, repr=False)

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


@dataclass
class Bank:
    templates: list[TemplateFile] = field(default_factory=list)
    quizzes: list[QuizFile] = field(default_factory=list)


def template_kind(template) -> str:
    kinds = {part.kind for part in template.parts}
    if len(template.parts) > 1:
        return "multi-part"
    return kinds.pop()


SMOKE_SEEDS = 3


def read_template_text(text: str, *, source: str, deadline: float | None = None) -> TemplateFile:
    """Parse one template's text and draw a few variants from it.

    Raises TemplateError with every problem and its line. The draws catch what only shows when
    an expression runs (a misspelt catalog field); `validate_questions` checks hundreds of seeds.
    With `deadline` (a `time.monotonic()` value) the draws stop, as an error, once it passes.
    """
    template = parse_template(text, source=source)
    for seed in range(SMOKE_SEEDS):
        try:
            variant = generate_variant(template, seed, deadline=deadline)
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
        template=template,
    )


def _message(exc: Exception) -> str:
    expr = getattr(exc, "expr", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{expr}: {message}" if expr else message


def is_quiz_file(path: Path, root: Path) -> bool:
    """Quiz definitions live in any folder named ``quizzes`` below the bank's root."""
    return "quizzes" in path.relative_to(root).parts[:-1]


def is_quiz_path(rel: str) -> bool:
    """``is_quiz_file`` for a path already relative to the bank's root."""
    return "quizzes" in PurePosixPath(rel).parts[:-1]


def add_bank_file(bank: Bank, text: str, *, source: str, is_quiz: bool) -> list[str]:
    """Parse one file's text into ``bank``; return its problems (nothing is added then)."""
    try:
        if is_quiz:
            bank.quizzes.append(read_quiz_text(text, source=source))
        else:
            bank.templates.append(read_template_text(text, source=source))
    except BankError as exc:
        return list(exc.problems)
    except TemplateError as exc:
        return [f"{source}, {issue}" for issue in exc.errors]
    return []


def read_files(
    files: Iterable[tuple[str, str | None]],
    *,
    is_quiz: Callable[[str], bool],
    on_template: Callable[[TemplateFile], list[str]] | None = None,
) -> tuple[Bank, list[str]]:
    """The one reader of bank files, wherever they come from (a folder, a zip, the editor).

    ``files`` are (path, text) pairs; a text of None is a file that could not be read as UTF-8.
    Each template is parsed once (its TemplateFile carries the parsed template) and handed to
    ``on_template`` for further checks (an import's publication gate). Returns the bank and every
    problem, cross-file ones excluded (``cross_check``).
    """
    bank, problems = Bank(), []
    for path, text in files:
        if text is None:
            problems.append(f"{path}: cannot be read as UTF-8 text")
            continue
        if "\x00" in text:
            problems.append(f"{path}: contains binary data")
            continue
        quiz = is_quiz(path)
        found = add_bank_file(bank, text, source=path, is_quiz=quiz)
        problems.extend(found)
        if not quiz and not found and on_template is not None:
            problems.extend(on_template(bank.templates[-1]))
    return bank, problems


def folder_files(root: Path, *, display=None) -> list[tuple[str, str | None]]:
    """(path, text) of every YAML file under ``root``, in path order (None: unreadable)."""
    pairs = []
    for path in sorted([*root.rglob("*.yaml"), *root.rglob("*.yml")]):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        pairs.append((display(path) if display else str(path.relative_to(root)), text))
    return pairs


def read_bank(root: Path = QUESTIONS_DIR) -> Bank:
    """Read and check every file under ``root``; raise BankError listing every problem."""
    quizzes = {
        _display_path(path, root) for path in root.rglob("*.y*ml") if is_quiz_file(path, root)
    }
    bank, problems = read_files(
        folder_files(root, display=lambda path: _display_path(path, root)),
        is_quiz=quizzes.__contains__,
    )
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
        for objective in q.objectives:
            for slug in objective.templates:
                if slug not in slugs:
                    near = _close(slug, slugs)
                    problems.append(
                        f"{q.path}: objective '{objective.id}': unknown template '{slug}'"
                        + (f"; did you mean '{near}'?" if near else "")
                    )
    return problems
