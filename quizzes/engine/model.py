"""The parsed form of a question template: frozen dataclasses, one per YAML construct.

Every expression and piece of live text keeps the line it came from, so errors found while
generating or validating a variant point at the file.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

CHAPTERS = ("intro", "gpus", "roofline", "inference", "precision", "interconnect")
CATALOGS = ("accelerator", "dtype", "model", "link")
DOMAINS = ("positive", "real", "integer")


@dataclass(frozen=True)
class Expr:
    """An expression of the safe expression language and the line it was written on."""

    text: str
    line: int | None = None


@dataclass(frozen=True)
class Text:
    """Live text (Markdown + math + ``{{ }}``) and the line of its first line in the file."""

    text: str
    line: int | None = None


@dataclass(frozen=True)
class Parameter:
    """One entry of ``parameters``: ``kind`` is choice, range, loguniform or value."""

    name: str
    kind: str
    line: int | None = None
    values: tuple = ()
    catalog: str | None = None
    low: float = 0.0
    high: float = 0.0
    step: float = 1.0
    sig: int = 2
    expr: Expr | None = None


@dataclass(frozen=True)
class CommonErrorSpec:
    """A known wrong answer of a numeric part, its diagnosis code and its feedback."""

    code: str
    value: Expr
    feedback: Text
    rtol: float | None = None


@dataclass(frozen=True)
class Option:
    """One option of a choice part; ``correct`` is a constant or an expression."""

    id: str
    text: Text
    correct: bool | Expr
    feedback: Text | None = None
    diagnosis: str | None = None
    # the variants in which a wrong pick is the slip ``diagnosis`` names (None: every variant)
    diagnosis_when: Expr | None = None


@dataclass(frozen=True)
class Part:
    """One gradable part: what every part has, and its kind's own settings.

    ``kind`` names an answer kind (a folder of ``quizzes/engine/kinds``); ``settings`` is that
    kind's own frozen dataclass (a numeric part's unit and tolerance, a choice part's options),
    built by the kind's ``parse`` and read only by the kind.
    """

    id: str
    kind: str
    line: int | None = None
    prompt: Text | None = None
    points: float = 1.0
    uses: tuple[str, ...] = ()
    settings: Any = None


# The `part:` of a hint about the whole question rather than one of its parts.
WHOLE_QUESTION = "all"


@dataclass(frozen=True)
class Hint:
    after: int
    text: Text
    # The part it helps with: shown beside that part, after `after` wrong tries at that part.
    # None: a hint about the whole question, after `after` wrong tries at any of its parts.
    part: str | None = None
    # Whether the source said which part (or `part: all`): validation asks a template with
    # several parts to say it, so that a hint never shows beside a part it is not about.
    part_named: bool = False


@dataclass(frozen=True)
class Outcomes:
    """The category expression of a variant and the balance the validator expects."""

    category: Expr
    expect: tuple[str, ...] = ()
    min_share: float = 0.15


@dataclass(frozen=True)
class PlausibleCheck:
    """One entry of ``plausible``: a registered check and its arguments as expressions."""

    check: str
    arguments: tuple[tuple[str, Expr], ...]
    line: int | None = None


@dataclass(frozen=True)
class FigureBar:
    """One bar of a ``bars`` figure: its label (live text) and one value per series."""

    label: Text
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class FigurePoint:
    """One kernel of a ``roofline`` figure; no ``performance`` puts it on the roof."""

    label: Text
    intensity: Expr
    performance: Expr | None = None


@dataclass(frozen=True)
class Figure:
    """The template's ``figure``: a drawer of ``quizzes.engine.figures.DRAWERS`` and the
    expressions of what it draws (never markup); see docs/question-format.md."""

    draw: str
    title: Text
    line: int | None = None
    # bars
    unit: str = ""
    scale: str = "linear"
    series: tuple[str, ...] = ()
    bars: tuple[FigureBar, ...] = ()
    reference: tuple[Text, Expr] | None = None
    # roofline
    accelerator: Expr | None = None
    dtype: Expr | None = None
    points: tuple[FigurePoint, ...] = ()
    values: bool = True
    # false: every point drawn alike and no "memory-bound" in the description (a question asks it)
    bounds: bool = True


@dataclass(frozen=True)
class Template:
    """A parsed, statically checked question template."""

    slug: str
    title: str
    chapter: str
    objectives: tuple[str, ...]
    difficulty: int
    prompt: Text
    parts: tuple[Part, ...]
    solution: Text
    source: str = "<template>"
    tags: tuple[str, ...] = ()
    min_variants: int = 1
    parameters: tuple[Parameter, ...] = ()
    constraints: tuple[Expr, ...] = ()
    max_tries: int = 1000
    hints: tuple[Hint, ...] = ()
    outcomes: Outcomes | None = None
    plausible: tuple[PlausibleCheck, ...] = ()
    figure: Figure | None = None
    text: str = field(default="", repr=False, compare=False)

    @functools.cached_property
    def text_plan(self):
        """Which of its texts' expressions a draw evaluates to learn the catalog entries they
        look up (``engine.lookups.TextPlan``): worked out once per parsed template, kept with
        it (a new version is a new object; ``dataclasses.replace`` makes a new one too)."""
        from quizzes.engine.lookups import text_plan

        return text_plan(self)

    def part(self, part_id: str) -> Part:
        for part in self.parts:
            if part.id == part_id:
                return part
        known = ", ".join(p.id for p in self.parts)
        raise KeyError(f"template {self.slug!r} has no part {part_id!r} (parts: {known})")
