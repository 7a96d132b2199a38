"""Finding and parsing template files under a folder the caller names (the bank's own folder is
the `QUESTIONS_DIR` setting, which the apps read; the engine knows no folder of its own)."""

from __future__ import annotations

from pathlib import Path

from quizzes.engine.errors import TemplateError, TemplateIssue
from quizzes.engine.model import Template
from quizzes.engine.parse import parse_template

SKIPPED_FOLDER = "quizzes"


def template_paths(directory: str | Path) -> list[Path]:
    """Every ``*.yaml``/``*.yml`` under ``directory``, except those inside a ``quizzes/`` folder."""
    root = Path(directory)
    paths = [*root.rglob("*.yaml"), *root.rglob("*.yml")]
    return sorted(p for p in paths if SKIPPED_FOLDER not in p.relative_to(root).parts[:-1])


def load_template_file(path: str | Path, *, root: str | Path | None = None) -> Template:
    """Parse one file; the template's ``source`` is its path relative to ``root`` if given."""
    path = Path(path)
    source = str(path.relative_to(root)) if root is not None else str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError([TemplateIssue(None, "file", str(exc))], source) from None
    return parse_template(text, source=source)


def load_template_files(directory: str | Path) -> list[Template]:
    """Parse every template under ``directory``; raise one ``TemplateError`` for all bad files.

    Slugs must be unique across files.
    """
    templates, errors = load_templates_collecting(directory)
    if errors:
        issues = [
            TemplateIssue(i.line, f"{e.source}: {i.field}", i.message)
            for e in errors
            for i in e.errors
        ]
        raise TemplateError(issues, str(directory))
    return templates


def load_templates_collecting(directory: str | Path) -> tuple[list[Template], list[TemplateError]]:
    """Like ``load_template_files`` but returns (good templates, errors) instead of raising."""
    root = Path(directory)
    templates: list[Template] = []
    errors: list[TemplateError] = []
    seen: dict[str, str] = {}
    for path in template_paths(root):
        try:
            template = load_template_file(path, root=root.parent)
        except TemplateError as exc:
            errors.append(exc)
            continue
        if template.slug in seen:
            issue = TemplateIssue(
                None, "slug", f"'{template.slug}' is also used by {seen[template.slug]}"
            )
            errors.append(TemplateError([issue], template.source))
            continue
        seen[template.slug] = template.source
        templates.append(template)
    return templates, errors
