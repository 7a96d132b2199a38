"""A question's text drawn once per template with slots (`presenters.slotted`) is the HTML the
variant's own Markdown gives, for every template of the bank, and still passes the sanitizer."""

from __future__ import annotations

from pathlib import Path

import pytest

import content
from content.expressions import LivePieces
from quizzes.engine import (
    generate_variant,
    load_template_file,
    prompt_pieces,
    render_parts,
    render_prompt,
    template_paths,
)
from quizzes.presenters import slotted
from quizzes.presenters.markup import render_markdown_math

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)
SEEDS = (1, 2, 3, 17)


def _texts(template, variant):
    pieces = prompt_pieces(template, variant)
    assert pieces.text == render_prompt(template, variant)
    yield pieces
    for rendered in render_parts(template, variant):
        assert rendered.prompt_pieces.text == rendered.prompt
        yield rendered.prompt_pieces


def test_every_template_draws_the_same_html_with_and_without_slots():
    slotted._skeleton.cache_clear()
    drawn = slotted_count = 0
    for path in PATHS:
        template = load_template_file(path, root=QUESTIONS.parent)
        for seed in SEEDS:
            variant = generate_variant(template, seed)
            for pieces in _texts(template, variant):
                whole = str(render_markdown_math(pieces.text))
                assert str(slotted.render(pieces)) == whole, (path.stem, seed, pieces)
                drawn += 1
                if pieces.values and slotted._fills(pieces) is not None:
                    flags = tuple(m for _v, m in pieces.values)
                    slotted_count += slotted._skeleton(pieces.literals, flags) is not None
    # Not vacuous: a good share of the texts are drawn from their template's skeleton.
    assert slotted_count > drawn // 4, (slotted_count, drawn)


def test_a_template_text_is_drawn_once_for_all_its_variants(monkeypatch):
    slotted._skeleton.cache_clear()
    calls = []
    real = slotted.render_markdown_math
    monkeypatch.setattr(slotted, "render_markdown_math", lambda s: calls.append(s) or real(s))
    literals = ("A ", " reads ", " at $", "$ GB/s.")
    first = slotted.render(
        LivePieces(literals, (("H100 SXM 80 GB", False), ("3.35 TB/s", False), ("900", True)))
    )
    second = slotted.render(
        LivePieces(literals, (("A100 SXM 40 GB", False), ("1.6 TB/s", False), ("81{,}559", True)))
    )
    assert len(calls) == 1
    assert "H100 SXM 80 GB" in first and "A100 SXM 40 GB" in second
    assert "<mn>900</mn>" in first and "<mn>81,559</mn>" in second


def _same(literals, values):
    pieces = LivePieces(tuple(literals), tuple(values))
    return str(slotted.render(pieces)) == str(render_markdown_math(pieces.text))


@pytest.mark.parametrize(
    ("literals", "values"),
    [
        # A number at a line's start followed by ". " is an ordered list's.
        (("", ". Then"), (("3", False),)),
        (("x\n- ", ". y"), (("12", False),)),
        # A value that starts with a space at a line's start; next to emphasis and escapes.
        (("a\n", " b"), ((" (c)", False),)),
        (("*", "*"), ((" (c)", False),)),
        (("\\", " d"), (("(c)", False),)),
        (("**", "**"), (("4.8 TB/s", False),)),
        # In a link's address, in code, in an image's text.
        (("[x](http://e.org/", ")"), (("a b", False),)),
        (("`", "`"), (("H100 SXM", False),)),
        (("![", "](p.png)"), (("3 GB", False),)),
        # Markup, entities and Markdown in a value are never slotted, and still sanitized.
        (("A ", "."), (("<script>alert(1)</script>", False),)),
        (("&#", ";"), (("60", False),)),
        (("A ", "."), (("*x*", False),)),
        # Math: a number next to digits, a TeX group separator, a superscript, a sign.
        (("$x = 2", "$"), (("12", True),)),
        (("$x^", "$"), (("12", True),)),
        (("$10^{", "}$"), (("12", True),)),
        (("$2{,}", "$"), (("125", True),)),
        (("$a = ", "$"), (("-3", True),)),
        (("$a = ", "\\,\\text{GB}$"), (("81{,}559", True),)),
        (("$\\frac", "{2}$"), (("12", True),)),
    ],
)
def test_hostile_and_awkward_places_draw_as_the_whole_text_does(literals, values):
    assert _same(literals, values)


def test_a_slot_in_the_authors_text_is_never_filled():
    stem = slotted._TEXT_STEM
    pieces = LivePieces((f"{stem}000q ", "."), (("x", False),))
    assert str(slotted.render(pieces)) == str(render_markdown_math(pieces.text))


def test_what_the_author_writes_around_the_values_is_still_sanitized():
    pieces = LivePieces(
        ('<img src=x onerror="alert(1)"> ', " [a](javascript:alert(1))"), (("3 GB", False),)
    )
    html = str(slotted.render(pieces))
    assert "<img" not in html and 'href="javascript' not in html
    assert "3 GB" in html
    assert html == str(render_markdown_math(pieces.text))
