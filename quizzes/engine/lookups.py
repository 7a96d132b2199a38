"""The catalog entries a new variant's texts look up, read off their expressions.

A draw keeps in the variant's snapshot every catalog entry its texts look up (the prompt, the
parts and their options or items, the hints, the solution, the feedback), so that a later render
shows the figures the answers were computed with. Rendering every text of every new variant to
learn them was about half of a student's Start.

A text looks entries up in two ways. An expression that calls something (a function or a
method) or reads an attribute (which may be a property) runs the subject's code, which may look
an entry up by name; names, numbers, strings, operators and subscripts of a variant's values run
none (the physics' classes define no operator of their own: ``tests/engine/test_lookups.py``),
and formatting a value looks nothing up (``content.physics.formatting`` reads units only). And
``render_text`` (every text but a part's prompt, which is taken apart with ``text_pieces``)
collects the citations of every catalog object its expressions touched, which looks up their
sources. So a template's ``TextPlan`` (``Template.text_plan``, made once per template object)
lists each distinct live expression of its texts with what it needs: evaluated always (it calls
or reads an attribute), or only when one of the names it reads holds more than a plain number
or text (it may then touch a catalog object); with its touched objects' citations or without.
A draw evaluates what it must, with the variant's values and answers, never formatting or
assembling a text; a template whose texts need nothing evaluates nothing.

Where that reading could miss something, a draw renders every text as before
(``TextPlan.render``): a template with a figure (its drawing evaluates expressions of its own), a
part whose kind does more than render texts (``AnswerKind.rendered_texts`` is None), a text that
does not scan or parse, and a variant for which an expression fails (a broken text records what
the full render records). ``tests/quizzes/test_text_lookups.py`` draws every template of the bank
both ways and compares the snapshots.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from content.expressions import collect_citations, evaluate_tracked, scan_live
from content.expressions.evaluator import SafeEvaluator
from content.expressions.policy import parse_expression
from content.physics.catalog import snapshot as catalog_snapshot
from quizzes.engine import kinds
from quizzes.engine.model import Template, Text
from quizzes.engine.namespace import names_for

if TYPE_CHECKING:
    from quizzes.engine.variants import Variant

PLAIN = (int, float, str, bool, type(None))


@dataclass(frozen=True)
class Needed:
    """One distinct expression of a template's texts: ``reads`` the names it reads, None when
    it calls or reads an attribute (always evaluated); ``cites`` whether a text that collects
    its touched objects' citations holds it."""

    expr: str
    line: int | None
    reads: tuple[str, ...] | None
    cites: bool


@dataclass(frozen=True)
class TextPlan:
    """How a draw learns what a template's texts look up: ``render`` every text, or evaluate
    what ``needed`` says."""

    render: bool
    needed: tuple[Needed, ...] = ()


RENDER_EVERYTHING = TextPlan(render=True)


def text_plan(template: Template) -> TextPlan:
    """The template's plan (``Template.text_plan`` keeps it with the template)."""
    texts = _texts(template)
    if texts is None:
        return RENDER_EVERYTHING
    found: dict[str, Needed] = {}
    for text, cites in texts:
        try:
            spans = list(scan_live(text.text, source=template.source, first_line=text.line or 1))
            for span in spans:
                reads = _reads(parse_expression(span.expr))
                if reads == () or (reads and not cites):
                    continue  # constants; or names only, in a text that cites nothing
                seen = found.get(span.expr)
                cited = cites or (seen is not None and seen.cites)
                found[span.expr] = Needed(span.expr, span.line, reads, cited)
        except Exception:  # noqa: BLE001 - a text that does not read is the full render's to report
            return RENDER_EVERYTHING
    return TextPlan(render=False, needed=tuple(found.values()))


def _texts(template: Template) -> list[tuple[Text, bool]] | None:
    """Every text a full render renders, and whether it collects citations; None when the
    template's rendering does more than render texts."""
    if template.figure is not None:
        return None
    texts = [(template.prompt, True), (template.solution, True)]
    texts += [(hint.text, True) for hint in template.hints]
    for part in template.parts:
        rendered = kinds.kind_for(part).rendered_texts(part)
        if rendered is None:
            return None
        texts += [(part.prompt, False)] + [(text, True) for text in rendered]
    return [(text, cites) for text, cites in texts if text is not None]


def _reads(tree: ast.AST) -> tuple[str, ...] | None:
    """The names an expression reads, or None when it calls or reads an attribute."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Call, ast.Attribute)):
            return None
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
    return tuple(names)


def _touches_nothing(reads: tuple[str, ...], names) -> bool:
    return all(isinstance(names.get(name), PLAIN) for name in reads)


def looked_up(template: Template, variant: Variant) -> dict[tuple[str, str], Any] | None:
    """What ``variant``'s texts look up, from the plan's expressions alone; None when the
    texts must be rendered (the plan says so, or one of its expressions fails)."""
    plan = template.text_plan
    if plan.render:
        return None
    if not plan.needed:
        return {}
    names = names_for(variant.params, variant.answers)
    evaluator: SafeEvaluator | None = None
    cited: dict[int, object] = {}  # every catalog object a citing text touched, once
    with variant.replaying(), catalog_snapshot.recording(propagate=False) as used:
        for needed in _to_evaluate(plan, names):
            if evaluator is None:  # one for every expression, as a text has
                evaluator = SafeEvaluator(names, track=False)
            try:
                _, touched = evaluate_tracked(
                    needed.expr,
                    names,
                    source=template.source,
                    line=needed.line,
                    track=False,
                    evaluator=evaluator,
                )
            except Exception:  # noqa: BLE001 - the full render records what a broken text does
                return None
            if needed.cites:
                cited.update((id(obj), obj) for obj in touched)
        try:
            collect_citations(list(cited.values()))
        except Exception:  # noqa: BLE001 - as above
            return None
    return dict(used)


def _to_evaluate(plan: TextPlan, names) -> Iterator[Needed]:
    for needed in plan.needed:
        if needed.reads is None or not _touches_nothing(needed.reads, names):
            yield needed
