"""What a student's browser may see of a question: prompt, parts, hints and solution as HTML.

The page is built from plain dataclasses (`QuestionView`, `PartView`) that by construction hold
no correct answer, seed or common-error value; the solution is rendered only when the caller has
decided the variant is final.

Rendering (the engine's live text, Markdown and MathML) is the page's main cost and depends on
nothing but the variant (with its catalog snapshot) and its template version, so the results are
kept in Django's cache under the variant's and version's keys and the snapshot's digest. The
question view holds no answer; the solution, which does, is only ever rendered and cached once
the caller has decided the variant is final. Form keys (`idempotency_key`) are never cached: each
page gets fresh ones.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.safestring import SafeString

from courseware import caching
from quizzes import engine
from quizzes.engine import kinds
from quizzes.presenters import figures, slotted
from quizzes.presenters.elements import render_kind
from quizzes.presenters.markup import render_inline, render_markdown_math
from quizzes.services.questions import (
    QuestionUnavailable,
    catalog_stamp,
    correct_answers,
    engine_variant,
    option_token,
    template_for,
)

# Bump when what is rendered changes shape (markup, dataclasses) so old entries are not read.
RENDER_CACHE_VERSION = 3
# A variant's figures change only through a regrade, which changes its key; so entries only
# leave the cache to make room.
RENDER_CACHE_SECONDS = 7 * 24 * 3600
# The shared cache unpickles on every read; the entries a process served last are kept here too
# (a class's questions are the same few variants over and over). About 10 kB each.
_renders = caching.Layered(
    "question views, hints, solutions (display)",
    max_bytes=32 * 1024 * 1024,
    version=RENDER_CACHE_VERSION,
    seconds=RENDER_CACHE_SECONDS,
    why="a question's Markdown, MathML and live text drawn once per variant, not per page",
)
_local = _renders.local  # this process's copies (the tests look at their keys)


@dataclass
class OptionView:
    """One item of a part's list (an option, a thing to order or match) as inline HTML."""

    id: str
    html: SafeString
    # The name the browser posts (`questions.option_token`): the id itself never reaches it.
    token: str = ""


@dataclass
class PartView:
    """One part as the student sees it: its prompt, what its kind shows besides (``lists`` of
    items as HTML, plain ``facts``), and a fresh form key.  The kind's templates draw it."""

    id: str
    kind: str
    points: float
    prompt_html: SafeString | str = ""
    lists: dict[str, list[OptionView]] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def answer_kind(self) -> kinds.AnswerKind:
        return kinds.kind_named(self.kind)

    @property
    def input_template(self) -> str:
        """The partial that draws this part's input (its kind's)."""
        return self.answer_kind.input_template


@dataclass
class QuestionView:
    title: str
    prompt_html: SafeString | str
    parts: list[PartView]
    # The template's figure of this variant, drawn above the parts (`presenters.figures`).
    figure_html: SafeString | str = ""


def _cached(what: str, row, build: Callable[[], Any], *extra) -> Any:
    """`build()` for this variant row, from the cache when it was built before.

    Looked up first by the row (cheap to key), then by what the row is rendered from (its
    version and stored JSON): students whose numbers coincide share one rendering, so a new
    attempt's first view is not drawn from scratch for each of them.
    """
    if row.pk is None:
        return build()
    tail = "".join(f":{e}" for e in extra)
    key = f"quizzes:{what}:{_row_key(row)}{tail}"
    value = _renders.get(key)
    if value is not None:
        return value
    shared = _content_key(row)
    if shared is not None:
        value = _renders.get(f"quizzes:{what}:content:{shared}{tail}")
    if value is None:
        value = build()
        if shared is not None:
            # Another server finds it under its content: storing it there under the row's key
            # too cost a second pickle per question of every first view. This process keeps it
            # under the row's key as well, its size measured once.
            _renders.set(f"quizzes:{what}:content:{shared}{tail}", value, local_keys=(key,))
            return value
    if shared is None:
        _renders.set(key, value)
    else:
        _renders.local.set(key, value)
    return value


def _content_key(row) -> str | None:
    """A digest of everything the engine renders a variant from: its template version and
    source, its parameters, its stored answers JSON (with the catalog snapshot) and the catalog
    it reads."""
    version = row.version
    answers = row.answers if isinstance(row.answers, dict) else {"": row.answers}
    # The catalog snapshot's entries are named by the stamp below (their digest): encoding
    # them again here cost more than the rest of the key.
    catalog = answers.get("catalog")
    if isinstance(catalog, dict):
        catalog = {k: v for k, v in catalog.items() if k != "entries"}
    try:
        source = json.dumps(
            [
                version.pk,
                version.content_hash,
                row.parameters,
                {k: v for k, v in answers.items() if k != "catalog"},
                catalog,
            ],
            sort_keys=True,
            separators=(",", ":"),
        )
    except (TypeError, ValueError):
        return None
    # The stamp too: a row stored before snapshots renders from the live catalog.
    return f"{_stamp(row)}:{hashlib.sha256(source.encode()).hexdigest()}"


def render_key(row) -> str:
    """What the question view of `row` is rendered from (`presenters.fragments` keys on it)."""
    return _row_key(row)


def _row_key(row) -> str:
    """The part of a render-cache key that names the variant row's content."""
    # The seed and the source hash as well as the keys: a database whose rows were rolled back
    # (tests) can reuse a primary key for different content. And the catalog figures the
    # variant shows (its snapshot's digest), so a variant moved to corrected figures by a
    # regrade, or a legacy variant under a corrected catalog, is never served a page rendered
    # from other figures than its answers.
    version = row.version
    return ":".join(
        [str(row.pk), str(version.pk), version.content_hash, str(row.seed), _stamp(row)]
    )


def _stamp(row) -> str:
    """`catalog_stamp(row)`, hashed once per loaded snapshot (a page asks up to 3 times per
    variant, and hashing a snapshot costs more than the rest of the key)."""
    snapshot = (row.answers or {}).get("catalog")
    if snapshot is None:  # a legacy row follows the live catalog: never remembered
        return catalog_stamp(row)
    memo = row.__dict__.get("_catalog_stamp")
    if memo is not None and memo[0] is snapshot:
        return memo[1]
    stamp = catalog_stamp(row)
    row.__dict__["_catalog_stamp"] = (snapshot, stamp)
    return stamp


def clear_local_cache() -> None:
    """Forget this process's copies (tests that clear Django's cache call this too)."""
    _local.clear()


def question_view(row) -> QuestionView:
    """The prompt and parts of a stored variant, rendered for the student (cached per variant;
    every call gets fresh form keys)."""
    # The figure's drawing version too: a changed drawer is never served an old picture.
    view = _cached("question", row, lambda: _question_view(row), figures.drawing_digest())
    parts = [replace(part, idempotency_key=uuid.uuid4().hex) for part in view.parts]
    return replace(view, parts=parts)


def _question_view(row) -> QuestionView:
    template = template_for(row.version)
    variant = engine_variant(row)
    try:
        prompt = slotted.render(engine.prompt_pieces(template, variant))
        parts = [part_view(p, row) for p in engine.render_parts(template, variant)]
        figure = figures.figure_html(engine.render_figure(template, variant))
    except Exception as error:  # noqa: BLE001 - report as unavailable, never a 500
        raise QuestionUnavailable(str(error)) from error
    return QuestionView(title=template.title, prompt_html=prompt, parts=parts, figure_html=figure)


def part_view(rendered, row=None) -> PartView:
    """A rendered part (``engine.RenderedPart``) as the page draws it: its prompt as HTML and
    each item of its kind's lists as inline HTML (the student page and the studio alike).
    With the stored variant ``row``, each item also gets the opaque name the browser posts
    (``questions.option_token``), so no item id ("right") reaches a student's page."""
    return PartView(
        id=rendered.id,
        kind=rendered.kind,
        points=float(rendered.points),
        prompt_html=(
            slotted.render(rendered.prompt_pieces)
            if rendered.prompt_pieces is not None
            else render_markdown_math(rendered.prompt)
        ),
        lists={
            name: [
                OptionView(
                    oid,
                    render_inline(text),
                    option_token(row, rendered.id, oid) if row is not None else "",
                )
                for oid, text in items
            ]
            for name, items in rendered.lists.items()
        },
        facts=dict(rendered.facts),
    )


def hints_html(row, tries: int) -> list[SafeString]:
    """The template's hints unlocked after `tries` counted incorrect tries."""
    return list(_cached("hints", row, lambda: _hints_html(row, tries), tries))


def _hints_html(row, tries: int) -> list[SafeString]:
    template = template_for(row.version)
    try:
        hints = engine.render_hints(template, engine_variant(row), tries)
    except Exception:  # noqa: BLE001 - hints are optional help
        return []
    return [render_markdown_math(hint) for hint in hints]


def scoped_hints_html(row, wrong_by_part: dict[str, int]) -> list[tuple[str | None, SafeString]]:
    """(part id or None, hint) of each hint earned, a part's after wrong tries at that part."""
    try:
        earned = engine.earned_hints(template_for(row.version), wrong_by_part)
    except Exception:  # noqa: BLE001 - hints are optional help (as `_scoped_hints` says)
        earned = True
    if not earned:  # most views (a first view: no wrong try yet) earn none: nothing to render
        return []
    counts = ",".join(f"{k}={v}" for k, v in sorted(wrong_by_part.items()))
    return list(_cached("scoped-hints", row, lambda: _scoped_hints(row, wrong_by_part), counts))


def _scoped_hints(row, wrong_by_part: dict[str, int]) -> list[tuple[str | None, SafeString]]:
    template = template_for(row.version)
    try:
        hints = engine.render_scoped_hints(template, engine_variant(row), wrong_by_part)
    except Exception:  # noqa: BLE001 - hints are optional help
        return []
    return [(part, render_markdown_math(text)) for part, text in hints]


def solution_html(row) -> SafeString:
    """The worked solution: call only once the variant is final (it holds the answers)."""
    return _cached("solution", row, lambda: _solution_html(row))


def _solution_html(row) -> SafeString:
    template = template_for(row.version)
    try:
        return render_markdown_math(engine.render_solution(template, engine_variant(row)))
    except Exception:  # noqa: BLE001
        return render_markdown_math("_The worked solution could not be rendered._")


def correct_answer_html(row, part: PartView) -> SafeString | str:
    """The answer key of one part ("1.23 ms", the right options, the formula simplified, as
    math), drawn by its kind's ``answer.html``: call only once the quiz's release policy shows
    this part's answer (`quizzes.services.release`)."""
    answer = correct_answers(row).get(part.id)
    if answer is None:
        return ""
    return answer_key_html(template_for(row.version).part(part.id), answer, part)


def answer_key_html(part, answer, view: PartView) -> SafeString | str:
    """The answer key of engine part `part` whose correct answer is `answer`, as its kind's
    ``answer.html`` draws it beside the part's `view` (the studio's preview uses it too)."""
    kind = kinds.kind_for(part)
    try:
        key = kind.answer_key(part, answer)
    except (KeyError, TypeError, ValueError):
        key = str(answer)
    return render_kind(kind.answer_template, key=key, view=view)
