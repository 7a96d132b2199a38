"""The parser's machinery: field names, reporting with lines, and typed getters."""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from content.expressions import check_expression, check_live, did_you_mean
from quizzes.engine.errors import TemplateIssue
from quizzes.engine.model import (
    Expr,
    Text,
)
from quizzes.engine.namespace import base_names
from quizzes.engine.yamlnodes import Loc, PlainYAMLError, compose

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
# Bounded by the columns that store them (a response's part id, a chosen option, a slug).
PART_ID = re.compile(r"[a-z][a-z0-9_]{0,49}")
OPTION_ID = re.compile(r"[a-z0-9_-]{1,50}")
MAX_SLUG = 100
MAX_TITLE = 200
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

TOP_FIELDS = (
    "slug title chapter objectives tags difficulty min_variants parameters constraints "
    "max_tries prompt parts hints solution outcomes plausible figure"
).split()
COMMON_PART_FIELDS = "id kind prompt points uses".split()
PARAMETER_KINDS = ("choice", "range", "loguniform", "value")

# Every count an author controls is bounded, far above what a real question needs, so no
# template can make a preview, a student's start or a validation run without limit.
MAX_TRIES = 2_000  # constraint draws per variant; the default is 1,000
MAX_MIN_VARIANTS = 5_000  # no more than the most seeds one validation checks
COUNT_LIMITS = {
    "parameters": 50,
    "constraints": 50,
    "parts": 26,
    "hints": 20,
    "objectives": 20,
    "tags": 20,
}
PART_COUNT_LIMITS = {"options": 26, "common_errors": 20}
MAX_CHOICE_VALUES = 500


class ParserBase:
    """Collects every issue with its line; the getters report and return None on a bad value."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.issues: list[TemplateIssue] = []
        self.functions = frozenset(base_names())

    # -- reporting -----------------------------------------------------------------------------

    def issue(self, loc: Loc | int | None, field: str, message: str) -> None:
        line = loc.line if isinstance(loc, Loc) else loc
        self.issues.append(TemplateIssue(line, field, message))

    def unknown_keys(self, loc: Loc, allowed: list[str], where: str) -> None:
        for key in loc.keys():
            if key not in allowed:
                hint = did_you_mean(key, allowed)
                self.issue(loc.get(key), key, f"unknown field in {where}{hint}")
        for key, line in loc.duplicates:
            self.issue(line, key, "appears twice; keep one")

    def compose_root(self, text: str, what: str, root: Loc | None = None) -> Loc | None:
        """The text's top-level mapping, or None with the issue said (bad YAML, a refused
        feature, not a mapping); `what` names the file ("the template", "the quiz"). A caller
        that already composed the text (`yamlnodes.compose`) passes its `root`: it is used as
        it is, not composed again."""
        if root is None:
            try:
                root = compose(text)
            except PlainYAMLError as exc:
                mark = exc.problem_mark
                self.issue(mark.line + 1 if mark is not None else None, "yaml", exc.problem)
                return None
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = mark.line + 1 if mark is not None else None
                problem = getattr(exc, "problem", None) or str(exc)
                self.issue(line, "yaml", f"not valid YAML: {problem}")
                return None
        if root is None or not isinstance(root.children, dict):
            field = what.split()[-1]
            self.issue(1, field, "must be a YAML mapping of fields (slug: ..., title: ...)")
            return None
        return root

    # -- typed getters -------------------------------------------------------------------------

    def text_field(self, loc: Loc, key: str, *, required: bool = True) -> Loc | None:
        child = loc.get(key)
        if child is None:
            if required:
                self.issue(loc, key, "is required")
            return None
        if not isinstance(child.value, str) or not child.value.strip():
            self.issue(child, key, "must be non-empty text")
            return None
        return child

    def number(self, loc: Loc | None, field: str, *, integer: bool = False) -> float | None:
        if loc is None:
            return None
        value = as_number(loc.value)
        if value is None or (integer and value != int(value)):
            kind = "an integer" if integer else "a number"
            self.issue(loc, field, f"must be {kind}, not {loc.value!r}")
            return None
        return int(value) if integer else value

    def str_list(self, loc: Loc | None, field: str) -> tuple[str, ...]:
        if loc is None:
            return ()
        if not isinstance(loc.value, list) or not all(isinstance(v, str) for v in loc.value):
            self.issue(loc, field, "must be a list of text items")
            return ()
        return tuple(loc.value)

    def expr(self, loc: Loc | None, field: str, names: frozenset[str]) -> Expr | None:
        if loc is None:
            self.issue(None, field, "is required")
            return None
        value = loc.value
        if isinstance(value, bool) or isinstance(value, (int, float)):
            value = repr(value)
        if not isinstance(value, str) or not value.strip():
            self.issue(loc, field, "must be an expression written as text")
            return None
        try:
            check_expression(value, names, source=self.source, line=loc.line)
        except Exception as exc:  # noqa: BLE001 - ExpressionError, reported with its message
            self.issue(loc, field, getattr(exc, "message", str(exc)))
            return None
        return Expr(value, loc.line)

    def live(self, loc: Loc | None, field: str, names: frozenset[str]) -> Text | None:
        if loc is None:
            return None
        if not isinstance(loc.value, str):
            self.issue(loc, field, "must be text")
            return None
        for error in check_live(loc.value, names, self.source, first_line=loc.text_line):
            self.issue(error.line, field, f"{error.expr}: {error.message}")
        return Text(loc.value, loc.text_line)


def as_number(value: Any) -> float | None:
    """A YAML scalar as a finite number (an int when written as one), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return (
            int(number)
            if number.is_integer() and "." not in value and "e" not in value.lower()
            else number
        )
    return None


def option_letter(index: int) -> str:
    """The default id of the entry at `index` of a list: a, b, c ..."""
    return chr(ord("a") + index) if index < 26 else f"o{index}"


# The names other modules knew these by.
_as_number = as_number
