"""What a student's browser may see of a question: prompt, parts, hints and solution as HTML.

The page is built from plain dataclasses (`QuestionView`, `PartView`) that by construction hold
no correct answer, seed or common-error value; the solution is rendered only when the caller has
decided the variant is final.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
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


def _names(template, variant) -> dict[str, object]:
    from quizzes.engine.namespace import names_for

    return names_for(variant.params)


def _live(template, text, names: Mapping[str, object]) -> str:
    from content.expressions import render_live

    if text is None:
        return ""
    return render_live(text.text, names, source=template.source, first_line=text.line or 1).text


def unit_hint(unit: str | None) -> str:
    """ "answer in a unit of data rate, e.g. TB/s" for the part's SI unit."""
    if not unit:
        return "Answer with a plain number (no unit)."
    try:
        from quizzes.grading.quantities import describe_dimensions, parse_unit

        phrase, example = describe_dimensions(parse_unit(unit).dimensions)
    except Exception:  # noqa: BLE001 - a hint is a courtesy; never fail the page for it
        phrase, example = f"a quantity in {unit}", None
    example = example or _UNIT_EXAMPLES.get(unit, unit)
    return f"Answer in a unit of {phrase.removeprefix('a ').removeprefix('an ')}, e.g. {example}."


def question_view(row) -> QuestionView:
    """The prompt and parts of a stored variant, rendered for the student."""
    template = template_for(row.version)
    variant = engine_variant(row)
    names = _names(template, variant)
    try:
        prompt = render_markdown_math(engine.render_prompt(template, variant))
        parts = [_part_view(template, variant, part, names) for part in template.parts]
    except Exception as error:  # noqa: BLE001 - report as unavailable, never a 500
        raise QuestionUnavailable(str(error)) from error
    return QuestionView(title=template.title, prompt_html=prompt, parts=parts)


def _part_view(template, variant, part, names) -> PartView:
    view = PartView(
        id=part.id,
        kind=part.kind,
        points=float(part.points),
        prompt_html=render_markdown_math(_live(template, part.prompt, names)),
        uses=tuple(part.uses),
    )
    if part.kind == "numeric":
        view.unit_hint = unit_hint(part.unit)
    elif part.kind == "formula":
        view.variables = tuple(name for name, _domain in part.variables)
    elif part.kind == "choice":
        by_id = {option.id: option for option in part.options}
        order = variant.option_order.get(part.id) or tuple(by_id)
        view.options = [
            OptionView(i, render_inline(_live(template, by_id[i].text, names)))
            for i in order
            if i in by_id
        ]
        view.multiple = bool(part.multiple)
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


def part_kind(row, part_id: str) -> str | None:
    template = template_for(row.version)
    try:
        return template.part(part_id).kind
    except KeyError:
        return None


def part_points(row) -> dict[str, float]:
    return {part.id: float(part.points) for part in template_for(row.version).parts}
