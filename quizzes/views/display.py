"""What a student's browser may see of a question: prompt, parts, hints and solution as HTML.

The page is built from plain dataclasses (`QuestionView`, `PartView`) that by construction hold
no correct answer, seed or common-error value; the solution is rendered only when the caller has
decided the variant is final.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from quizzes import engine
from quizzes.services.questions import QuestionUnavailable, engine_variant, template_for
from quizzes.views.markup import render_inline, render_markdown_math

_UNIT_EXAMPLES = {"B": "GB", "B/s": "TB/s", "s": "ms", "FLOP": "TFLOP", "FLOP/s": "TFLOP/s"}


@dataclass
class OptionView:
    id: str
    html: SafeString


@dataclass
class PartView:
    """One part as the student sees it: prompt, the kind of input, and a fresh form key."""

    id: str
    kind: str
    points: float
    prompt_html: SafeString | str = ""
    unit_hint: str = ""
    variables: tuple[str, ...] = ()
    options: list[OptionView] = field(default_factory=list)
    multiple: bool = False
    uses: tuple[str, ...] = ()
    idempotency_key: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass
class QuestionView:
    title: str
    prompt_html: SafeString | str
    parts: list[PartView]


def unit_hint(unit: str | None) -> str:
    """ "Answer in a unit of data rate, e.g. TB/s." for the part's SI unit."""
    if not unit:
        return "Answer with a plain number (no unit)."
    try:
        from quizzes.grading.quantities import describe_dimensions, parse_unit

        phrase, example = describe_dimensions(parse_unit(unit).dimensions)
    except Exception:  # noqa: BLE001 - a hint is a courtesy; never fail the page for it
        phrase, example = f"a quantity in {unit}", None
    example = example or _UNIT_EXAMPLES.get(unit, unit)
    phrase = phrase.removeprefix("an ").removeprefix("a ")
    return f"Answer in a unit of {phrase}, e.g. {example}."


def question_view(row) -> QuestionView:
    """The prompt and parts of a stored variant, rendered for the student."""
    template = template_for(row.version)
    variant = engine_variant(row)
    try:
        prompt = render_markdown_math(engine.render_prompt(template, variant))
        parts = [_part_view(p) for p in engine.render_parts(template, variant)]
    except Exception as error:  # noqa: BLE001 - report as unavailable, never a 500
        raise QuestionUnavailable(str(error)) from error
    return QuestionView(title=template.title, prompt_html=prompt, parts=parts)


def _part_view(rendered) -> PartView:
    view = PartView(
        id=rendered.id,
        kind=rendered.kind,
        points=float(rendered.points),
        prompt_html=render_markdown_math(rendered.prompt),
        variables=tuple(rendered.variables),
        multiple=bool(rendered.multiple),
        options=[OptionView(oid, render_inline(text)) for oid, text in rendered.options],
    )
    if rendered.kind == "numeric":
        view.unit_hint = unit_hint(rendered.unit)
    return view


def hints_html(row, tries: int) -> list[SafeString]:
    """The template's hints unlocked after `tries` counted incorrect tries."""
    template = template_for(row.version)
    try:
        hints = engine.render_hints(template, engine_variant(row), tries)
    except Exception:  # noqa: BLE001 - hints are optional help
        return []
    return [render_markdown_math(hint) for hint in hints]


def solution_html(row) -> SafeString:
    template = template_for(row.version)
    try:
        return render_markdown_math(engine.render_solution(template, engine_variant(row)))
    except Exception:  # noqa: BLE001
        return render_markdown_math("_The worked solution could not be rendered._")
