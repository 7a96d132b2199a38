"""Reading the bank from disk: every template and quiz file parsed and cross-checked."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml
from django.conf import settings

from content.expressions import ExpressionError
from quizzes.engine import (
    GenerationError,
    Template,
    TemplateError,
    TemplateIssue,
    jobs,
    parse_template,
    sandbox,
)
from quizzes.engine.errors import OverBudget
from quizzes.engine.yamlnodes import Loc, compose

from . import gate
from .common import BankError, _close, content_hash
from .quizfiles import QuizFile, read_quiz_text


def questions_dir() -> Path:
    """The bank's folder (`settings.QUESTIONS_DIR`), read when asked so an override holds."""
    return Path(settings.QUESTIONS_DIR)


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


def read_template_text(
    text: str, *, source: str, deadline: float | None = None, root: Loc | None = None
) -> TemplateFile:
    """Parse one template's text and draw a few variants from it.

    Raises TemplateError with every problem and its line. The draws catch what only shows when
    an expression runs (a misspelt catalog field); `validate_questions` checks hundreds of seeds.
    With `deadline` (a `time.monotonic()` value) the draws stop, as an error, once it passes.
    `root` is the text already composed, if a caller had to look inside it first.
    """
    template = parse_template(text, source=source, root=root)
    try:
        smoke_draws(template, deadline=deadline)
    except sandbox.Refused as refused:
        issue = TemplateIssue(None, "budget", f"drawing seeds 0-{SMOKE_SEEDS - 1}: {refused}")
        raise TemplateError([issue], source=source) from None
    except (GenerationError, ExpressionError) as exc:
        line = getattr(exc, "line", None)
        seed = getattr(exc, "seed_of_error", 0)
        # Out of time is not a fault of the text: its own field, so a caller can say so.
        field = "budget" if isinstance(exc, OverBudget) else "variant"
        raise TemplateError(
            [TemplateIssue(line, field, f"seed {seed}: {_message(exc)}")], source=source
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


# The smoke draws of a text read without a deadline (sync, import): their sandbox's clock.
SMOKE_BUDGET_S = 20.0


def smoke_draws(template: Template, *, deadline: float | None) -> None:
    """Draw and render the first `SMOKE_SEEDS` seeds of `template` in the sandbox (its memory
    limit, and a clock that ends at `deadline`, else after `SMOKE_BUDGET_S`)."""
    budget = None if deadline is None else max(0.1, deadline - time.monotonic())
    sandbox.run_limited(
        jobs.smoke_draws,
        seconds=(SMOKE_BUDGET_S if budget is None else budget) + sandbox.GRACE_S,
        template=template,
        seeds=SMOKE_SEEDS,
        budget_s=budget,
    )


def _message(exc: Exception) -> str:
    expr = getattr(exc, "expr", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{expr}: {message}" if expr else message


def compose_mapping(text: str) -> Loc | None:
    """The text composed as YAML (`yamlnodes.compose`) if it is a mapping, else None (the
    parser that reads it then says what is wrong, with its line): for a caller that must look
    inside a file before reading it, and hands the result to `read_one` as its `root`."""
    try:
        root = compose(text)
    except yaml.YAMLError:  # PlainYAMLError is one
        return None
    return root if root is not None and isinstance(root.children, dict) else None


def is_quiz_file(path: Path, root: Path) -> bool:
    """Quiz definitions live in any folder named ``quizzes`` below the bank's root."""
    return "quizzes" in path.relative_to(root).parts[:-1]


def is_quiz_path(rel: str) -> bool:
    """``is_quiz_file`` for a path already relative to the bank's root."""
    return "quizzes" in PurePosixPath(rel).parts[:-1]


def read_one(
    path: str,
    text: str | None,
    *,
    is_quiz: bool = False,
    deadline: float | None = None,
    root: Loc | None = None,
) -> tuple[TemplateFile | QuizFile | None, list[TemplateIssue]]:
    """Read one (path, text) pair: (the parsed file, or None; its issues, with their lines).

    The one reader of a bank file wherever it comes from: a folder, a zip, the studio's editor.
    A text of None could not be read as UTF-8. Never raises for anything in the text. `root`:
    the text already composed (`compose_mapping`), which is then not composed again.
    """
    if text is None:
        return None, [TemplateIssue(None, "file", "cannot be read as UTF-8 text")]
    if "\x00" in text:
        return None, [TemplateIssue(None, "file", "contains binary data")]
    try:
        if is_quiz:
            return read_quiz_text(text, source=path, root=root), []
        return read_template_text(text, source=path, deadline=deadline, root=root), []
    except TemplateError as exc:
        return None, list(exc.errors)


def add_bank_file(
    bank: Bank, text: str, *, source: str, is_quiz: bool, root: Loc | None = None
) -> list[str]:
    """Parse one file's text into ``bank``; return its problems (nothing is added then)."""
    parsed, issues = read_one(source, text, is_quiz=is_quiz, root=root)
    if parsed is None:
        # A whole-file problem has no line: "path: message", as the engine's own loader says.
        return [f"{source}: {i.message}" if i.field == "file" else f"{source}, {i}" for i in issues]
    (bank.quizzes if is_quiz else bank.templates).append(parsed)
    return []


def read_files(
    files: Iterable[tuple[str, str | None]],
    *,
    is_quiz: Callable[[str], bool],
    on_template: Callable[[TemplateFile], list[str]] | None = None,
    roots: dict[str, Loc] | None = None,
) -> tuple[Bank, list[str]]:
    """The one reader of bank files, over (path, text) pairs (`read_one` reads each).

    Each template is parsed once (its TemplateFile carries the parsed template) and handed to
    ``on_template`` for further checks (the publication gate). ``roots`` holds, by path, the
    texts a caller already composed (`compose_mapping`). Returns the bank and every problem as
    "path, line N, field: message", cross-file ones excluded (``cross_check``).
    """
    bank, problems = Bank(), []
    roots = roots or {}
    for path, text in files:
        quiz = is_quiz(path)
        found = add_bank_file(bank, text, source=path, is_quiz=quiz, root=roots.get(path))
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


def read_folder_templates(
    root: Path | None = None,
) -> tuple[list[Template], list[TemplateError]]:
    """Every template file under ``root`` (default: the bank's folder), each read by `read_one`,
    as (parsed templates, the errors of files that are unusable or reuse a slug), in path
    order; quiz files are left out. For `validate_questions` and the bench, which check
    templates one by one rather than load a bank; sources read "questions/<path>"."""
    root = questions_dir() if root is None else Path(root)
    templates: list[Template] = []
    errors: list[TemplateError] = []
    seen: dict[str, str] = {}
    for path, text in folder_files(root):
        if is_quiz_path(path):
            continue
        # Named from the folder's own name down ("questions/roofline.yaml"), as authors see it.
        source = f"{root.name}/{path}"
        parsed, issues = read_one(source, text)
        if parsed is None:
            errors.append(TemplateError(issues, source))
        elif parsed.slug in seen:
            issue = TemplateIssue(
                None, "slug", f"'{parsed.slug}' is also used by {seen[parsed.slug]}"
            )
            errors.append(TemplateError([issue], source))
        else:
            seen[parsed.slug] = source
            templates.append(parsed.template)
    return templates, errors


def read_bank(root: Path | None = None, *, gate_for=None) -> Bank:
    """Read and check every file under ``root`` (default: the bank's folder, `questions_dir`);
    raise BankError listing every problem.

    With ``gate_for`` (a course), every template the sync would create or change for that
    course passes the publication gate first (`gate.refusals`): its refusals are problems too.
    """
    root = questions_dir() if root is None else root
    quizzes = {
        _display_path(path, root) for path in root.rglob("*.y*ml") if is_quiz_file(path, root)
    }
    bank, problems = read_files(
        folder_files(root, display=lambda path: _display_path(path, root)),
        is_quiz=quizzes.__contains__,
        on_template=None if gate_for is None else _sync_gate(gate_for),
    )
    problems.extend(cross_check(bank))
    if problems:
        raise BankError(problems)
    return bank


def _sync_gate(course) -> Callable[[TemplateFile], list[str]]:
    """The gate for the templates a sync would publish: new ones, and changed texts."""
    from quizzes.models import QuestionTemplate

    published = dict(
        QuestionTemplate.objects.filter(course=course).values_list(
            "slug", "current_version__content_hash"
        )
    )
    passes = gate.recorded_passes()

    def check(tf: TemplateFile) -> list[str]:
        if published.get(tf.slug) == tf.content_hash:
            return []  # already this very version: the sync changes nothing
        return gate.refusals(tf, passes=passes)

    return check


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
