"""The XSS corpus through every renderer that turns author or student text into HTML."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from courseware.rendering import render_body, render_math, render_text, render_text_inline
from quizzes.presenters.markup import render_feedback
from tests.security.payloads import LEGITIMATE, PAYLOADS, active_content, element_tags


def _math_filter(text: str) -> str:
    return Template("{% load book_math %}{{ x|mathml }}").render(Context({"x": text}))


def _latex(text: str) -> str:
    return render_math(text.strip("$"))


def _chapter(text: str) -> str:
    return str(render_body(f"# A chapter\n\nBefore.\n\n{text}\n\nAfter.\n").html)


RENDERERS = {
    "prompt, part, hint, solution": render_text,
    "option, read-as": render_text_inline,
    "feedback": render_feedback,
    "formula": _latex,
    "mathml filter": _math_filter,
    "chapter": _chapter,
}


def test_the_corpus_is_large_enough():
    assert len(PAYLOADS) >= 50
    assert len(set(PAYLOADS)) == len(PAYLOADS)


@pytest.mark.parametrize("renderer", RENDERERS.values(), ids=RENDERERS.keys())
@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_active_content_survives(renderer, payload):
    html = str(renderer(payload))
    assert active_content(html) == [], html


@pytest.mark.parametrize("renderer", [render_text, _chapter], ids=["text", "chapter"])
@pytest.mark.parametrize(("source", "tags"), LEGITIMATE.values(), ids=LEGITIMATE.keys())
def test_legitimate_math_tables_and_code_still_render(renderer, source, tags):
    html = str(renderer(source))
    assert set(tags) <= element_tags(html), html
    assert active_content(html) == []


def test_text_inside_math_stays_words():
    html = str(render_text(r"$\text{peak compute} < \text{a <b>bold</b> claim}$"))
    assert "peak" in html and "compute" in html
    assert "<b>" not in html and "&lt;b&gt;" in html


def test_table_alignment_is_a_class_not_an_inline_style():
    html = str(render_text("| a | b |\n|:--|--:|\n| 1 | 2 |"))
    assert "style=" not in html
    assert 'class="align-right"' in html


def test_links_keep_https_and_lose_script_urls():
    html = str(render_text("[a](https://example.org/x) [b](javascript:alert(1))"))
    assert 'href="https://example.org/x"' in html
    assert 'href="javascript' not in html and active_content(html) == []


def test_math_href_style_and_class_are_dropped_but_the_math_stays():
    html = str(render_text(r"$\href{https://x.example}{a} + \style{color:red}{b} + \class{c}{d}$"))
    assert "<mi>a</mi>" in html and "<mi>b</mi>" in html and "<mi>d</mi>" in html
    assert "href" not in html and "style" not in html and 'class="c"' not in html
