"""Rendering a variant's text: stem, part prompts and options, hints, solution and feedback.

The output is Markdown with math; turning it into HTML is the caller's job.  Nothing rendered
before the final submission contains a ``part_<id>`` answer: only hints and the solution see them.
Every text is rendered against the variant's own catalog snapshot (``Variant.replaying``), so a
stored variant shows the figures its answers were computed from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from content.expressions import LivePieces, render_live, render_live_pieces
from quizzes.engine.model import Hint, Template, Text
from quizzes.engine.namespace import names_for

if TYPE_CHECKING:
    # Only a type here: the answer kinds render feedback, and variants ask the kinds.
    from quizzes.engine.variants import Variant


@dataclass(frozen=True)
class RenderedPart:
    """What a student sees of one part: its prompt, and what its kind shows besides (named
    lists of (id, Markdown) items such as a choice's options, in the variant's order, and plain
    facts such as a unit hint; ``kinds.base.Rendered``)."""

    id: str
    kind: str
    prompt: str
    points: float
    lists: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)
    # The prompt taken apart (its own text and the variant's values): `prompt` is its `.text`.
    prompt_pieces: LivePieces | None = None


def render_text(
    template: Template, text: Text | None, names: Mapping[str, object], *, math_aware: bool = True
) -> str:
    """Live text of ``template`` rendered with ``names``; errors name the template's line."""
    if text is None:
        return ""
    return render_live(
        text.text,
        names,
        source=template.source,
        math_aware=math_aware,
        first_line=text.line or 1,
        citations=False,
    ).text


def text_pieces(template: Template, text: Text | None, names: Mapping[str, object]) -> LivePieces:
    """``render_text`` taken apart: the text's own words and the variant's values."""
    if text is None:
        return LivePieces(("",), ())
    return render_live_pieces(text.text, names, source=template.source, first_line=text.line or 1)


def render_prompt(template: Template, variant: Variant) -> str:
    """The question stem of ``variant`` (Markdown with live values substituted)."""
    with variant.replaying():
        return render_text(template, template.prompt, names_for(variant.params))


def prompt_pieces(template: Template, variant: Variant) -> LivePieces:
    """``render_prompt`` taken apart (``LivePieces``)."""
    with variant.replaying():
        return text_pieces(template, template.prompt, names_for(variant.params))


def render_figure(template: Template, variant: Variant):
    """The numbers of the template's figure for ``variant`` (``figures.DrawnFigure``), or None;
    drawn from the parameters only, like the prompt."""
    from quizzes.engine.figures import draw_figure

    return draw_figure(template, variant)


def render_part(template: Template, variant: Variant, part_id: str) -> RenderedPart:
    """One part's prompt and what its kind shows besides (its items in the variant's order)."""
    from quizzes.engine import kinds

    part = template.part(part_id)
    names = names_for(variant.params)
    with variant.replaying():
        shown = kinds.kind_for(part).render(template, part, variant, names)
        pieces = text_pieces(template, part.prompt, names)
    return RenderedPart(
        id=part.id,
        kind=part.kind,
        prompt=pieces.text,
        points=part.points,
        lists=dict(shown.lists),
        facts=dict(shown.facts),
        prompt_pieces=pieces,
    )


def render_parts(template: Template, variant: Variant) -> list[RenderedPart]:
    """Every part of ``variant``, in template order."""
    return [render_part(template, variant, part.id) for part in template.parts]


def render_solution(template: Template, variant: Variant) -> str:
    """The worked solution, with every ``part_<id>`` set to the correct answer."""
    with variant.replaying():
        return render_text(template, template.solution, names_for(variant.params, variant.answers))


def render_hints(template: Template, variant: Variant, tries: int) -> list[str]:
    """The hints a student has earned after ``tries`` incorrect tries, in template order."""
    names = names_for(variant.params, variant.answers)
    with variant.replaying():
        return [
            render_text(template, hint.text, names)
            for hint in template.hints
            if hint.after <= tries
        ]


def render_scoped_hints(
    template: Template, variant: Variant, wrong_by_part: dict[str, int]
) -> list[tuple[str | None, str]]:
    """(part id or None, text) of each hint earned: a part's hint after wrong tries at that
    part, a question's hint after wrong tries at any part, in template order."""
    names = names_for(variant.params, variant.answers)
    with variant.replaying():
        return [
            (hint.part, render_text(template, hint.text, names))
            for hint in earned_hints(template, wrong_by_part)
        ]


def earned_hints(template: Template, wrong_by_part: dict[str, int]) -> list[Hint]:
    """The hints earned after `wrong_by_part` wrong tries (by part id), in template order: a
    part's after wrong tries at that part, a question's after wrong tries at any of its parts.
    Nothing is rendered (a page asks first whether there is anything to render)."""
    total = sum(wrong_by_part.values())
    return [
        hint
        for hint in template.hints
        if hint.after <= (wrong_by_part.get(hint.part, 0) if hint.part else total)
    ]


def render_everything(template: Template, variant: Variant) -> None:
    """Render every text the variant can show (prompt, parts, options, all hints, solution,
    feedback), discarding the result: generation does this to record the catalog look-ups."""
    render_prompt(template, variant)
    render_figure(template, variant)
    render_parts(template, variant)
    render_hints(template, variant, tries=10**6)
    render_solution(template, variant)
    render_feedback(template, variant)


def render_feedback(template: Template, variant: Variant) -> None:
    """Render every part's feedback texts (its kind's), discarding them; raises
    ExpressionError for the first that fails."""
    from quizzes.engine import kinds

    with variant.replaying():
        for part in template.parts:
            kinds.kind_for(part).render_feedback(template, part, variant)
