"""Errors of the template engine: parse problems with their lines, and failed generation."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TemplateIssue:
    """One problem in a template file: its line (1-based, None if unknown), field and message."""

    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}, " if self.line is not None else ""
        return f"{where}{self.field}: {self.message}"


class TemplateError(Exception):
    """A template that cannot be used; ``errors`` lists every problem found, in file order."""

    def __init__(self, errors: list[TemplateIssue], source: str = "<template>") -> None:
        self.errors = sorted(errors, key=lambda issue: (issue.line or 0, issue.field))
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(f"{self.source}, {issue}" for issue in self.errors)


class GenerationError(Exception):
    """A variant could not be generated (e.g. constraints never met); says which and where."""

    def __init__(self, message: str, *, source: str = "<template>", line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {message}")


class OverBudget(GenerationError):
    """A preview or a validation ran out of its wall-clock budget; says how far it got."""
