"""The error every expression problem becomes, naming the source, the line and the expression."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class ExpressionError(Exception):
    """An expression that cannot be parsed, is refused, or fails while evaluating.

    ``expr`` is the text as the author wrote it (for live text, the whole ``{{ ... }}``), so
    the message can be matched against the source by eye.
    """

    def __init__(self, source: str, line: int | None, expr: str, message: str) -> None:
        self.source = source
        self.line = line
        self.expr = expr
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}, line {self.line}"
        shown = self.expr if len(self.expr) <= 160 else self.expr[:157] + "..."
        return f"{where}: {shown}: {self.message}"

    def __reduce__(self):
        return (type(self), (self.source, self.line, self.expr, self.message))


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return "; did you mean 'x'?" for the closest candidate, or "" when none is close."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""
