"""Second attack review: markup that is harmless to a plain sanitizer but active on this site,
because the pages run htmx (attributes such as `hx-get` make any element fetch and swap) and
look elements up by id."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from courseware.rendering import render_book_markdown, render_text, sanitize_html

HTMX = [
    '<div hx-get="/o/hardware-reality/instructor/export/responses.csv" hx-trigger="load">x</div>',
    '<a href="/" hx-post="/accounts/logout/" hx-trigger="mouseover">x</a>',
    '<p data-hx-get="/x" data-hx-trigger="load" data-hx-swap="outerHTML">x</p>',
    '<span hx-on:click="alert(1)" hx-on::load="alert(1)">x</span>',
    "<div hx-vals='js:{a: alert(1)}' hx-get=\"/\">x</div>",
    '<div hx-headers=\'{"X-CSRFToken": "x"}\' hx-post="/studio/import/">x</div>',
    '<img src="/static/favicon.svg" hx-get="/" hx-trigger="load">',
    '<details open hx-get="/" hx-trigger="toggle"><summary>x</summary></details>',
    '<div hx-boost="true"><a href="/accounts/logout/">x</a></div>',
    '<div hx-ext="debug" hx-select-oob="#main">x</div>',
    '<math><mi hx-get="/" hx-trigger="load">x</mi></math>',
    '<div data-hx-ext="json-enc" data-hx-disinherit="*">x</div>',
    '<div id="csrf_token">x</div><p id="id_answer">y</p><h2 id="hx-x">z</h2>',
    '<div tabindex="1" autofocus onfocus="alert(1)">x</div>',
    '<form id="main"><input name="csrfmiddlewaretoken"></form>',
]


def _attributes(html: str) -> list[tuple[str, str, str]]:
    tree = LexborHTMLParser(html)
    return [
        (node.tag, name.lower(), value or "")
        for node in tree.body.traverse(include_text=False)
        for name, value in (node.attributes or {}).items()
    ]


@pytest.mark.parametrize("payload", HTMX)
@pytest.mark.parametrize(
    "renderer",
    [sanitize_html, lambda s: render_book_markdown(s).html],
    ids=["sanitizer", "chapter-markdown"],
)
def test_no_htmx_attribute_or_site_id_survives(renderer, payload):
    html = str(renderer(payload))
    for tag, name, value in _attributes(html):
        assert not name.startswith(("hx-", "data-", "on")), (tag, name)
        assert name not in {"autofocus", "style"}, (tag, name)
        if name == "id":
            assert value not in {"main", "csrf_token"} and not value.startswith(("id_", "hx-"))
    assert "<form" not in html and "<input" not in html


@pytest.mark.parametrize("payload", HTMX)
def test_question_text_shows_raw_markup_as_text(payload):
    html = str(render_text(payload))
    assert _attributes(html) == [] or all(n != "hx-get" for _, n, _ in _attributes(html))
    assert "&lt;" in html  # authors write Markdown: raw markup is shown, not parsed
