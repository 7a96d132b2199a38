"""Chapter files: YAML front matter between two ``---`` lines, then the Markdown body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from content import plainyaml

REQUIRED_FIELDS = ("slug", "title")


class ContentError(ValueError):
    """A chapter file that cannot be loaded; the message names the file and the line."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class ChapterSource:
    """A chapter file split into its metadata and its body.

    ``body_line`` is the line of the file on which the body starts, so errors found in the body
    can name the file's own line numbers.
    """

    meta: dict[str, Any]
    body: str
    body_line: int


def split_front_matter(text: str, *, source: str = "<chapter>") -> ChapterSource:
    """Parse ``text``; raise ContentError for missing or malformed front matter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise ContentError(source, 1, "the file must start with '---' and YAML front matter")
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            break
    else:
        raise ContentError(source, 1, "the front matter has no closing '---' line")
    front = "".join(lines[1:index])
    try:
        # The guard every authored YAML passes: no anchors or aliases, bounded size and depth.
        meta = plainyaml.safe_load(front) or {}
    except plainyaml.PlainYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 2 if mark is not None else 2  # front matter starts on line 2
        raise ContentError(source, line, f"front matter refused: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise ContentError(source, line, f"front matter is not valid YAML: {problem}") from None
    if not isinstance(meta, dict):
        raise ContentError(source, 2, "the front matter must be a mapping of 'key: value' lines")
    for name in REQUIRED_FIELDS:
        value = meta.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ContentError(source, 2, f"the front matter needs a non-empty '{name}'")
    return ChapterSource(meta, "".join(lines[index + 1 :]), index + 2)
