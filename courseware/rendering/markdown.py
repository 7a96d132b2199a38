"""Markdown to HTML for the book: MathML math, heading anchors, a table of contents, callouts.

One markdown-it parser with three small core rules of our own: heading ids (an explicit
``{#id}`` at the end of a heading, otherwise a slug of its text), worked-example blockquotes
marked as callouts, and a leading ``# Title`` lifted out of the body (the page prints the title
itself).  Math goes to MathML on the server, so no script or CDN is needed to read a formula.
Raw HTML is allowed in chapter files, and the result, like every HTML the site makes from text,
passes the one sanitizer (`sanitize.sanitize_html`) before anything else is added to it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from django.utils.html import escape
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from .math import math_to_mathml
from .sanitize import sanitize_html

_EXPLICIT_ID = re.compile(r"\s*\{#([A-Za-z][\w.:-]*)\}\s*$")
_WORKED_EXAMPLE = re.compile(r"^\s*worked example\b", re.IGNORECASE)
_ALIGN_STYLE = re.compile(r"^text-align:\s*(left|center|right)$")


@dataclass(frozen=True)
class TocEntry:
    """One ``##`` heading of a chapter: its anchor id and its text."""

    id: str
    text: str


@dataclass
class MarkdownResult:
    html: str
    toc: list[TocEntry] = field(default_factory=list)
    title: str | None = None


def slugify_heading(text: str) -> str:
    """The automatic id of a heading: 'The ring all-reduce' -> 'the-ring-all-reduce'."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.sub(r"[^\w\s-]", "", folded.lower()).strip()
    return re.sub(r"[\s_-]+", "-", words).strip("-") or "section"


def _render_math(content: str, options: dict) -> str:
    display = bool(options.get("display_mode"))
    mathml = math_to_mathml(content.strip(), display=display)
    return f'<div class="math-display">{mathml}</div>\n' if display else mathml


def _inline_text(inline) -> str:
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
    return "".join(parts).strip()


def _heading_ids(state: StateCore) -> None:
    tokens = state.tokens
    used: set[str] = set()
    toc: list[TocEntry] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        explicit = _EXPLICIT_ID.search(inline.content)
        if explicit:
            inline.content = inline.content[: explicit.start()]
            last = inline.children[-1] if inline.children else None
            if last is not None and last.type == "text":
                last.content = _EXPLICIT_ID.sub("", last.content).rstrip()
        text = _inline_text(inline)
        anchor = explicit.group(1) if explicit else slugify_heading(text)
        base, n = anchor, 2
        while anchor in used:
            anchor, n = f"{base}-{n}", n + 1
        used.add(anchor)
        token.attrSet("id", anchor)
        if token.tag == "h2":
            toc.append(TocEntry(anchor, text))
    state.env["toc"] = toc


def _lift_title(state: StateCore) -> None:
    tokens = state.tokens
    if len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        state.env["title"] = _inline_text(tokens[1])
        del tokens[0:3]


def _worked_examples(state: StateCore) -> None:
    tokens = state.tokens
    for index, token in enumerate(tokens[:-2]):
        if token.type != "blockquote_open" or tokens[index + 1].type != "paragraph_open":
            continue
        children = [c for c in tokens[index + 2].children or [] if c.content or c.type != "text"]
        if len(children) >= 2 and children[0].type == "strong_open":
            if _WORKED_EXAMPLE.match(children[1].content):
                token.attrJoin("class", "worked-example")


def table_alignment(state: StateCore) -> None:
    # Column alignment as a class: the site's CSP allows no inline style attributes.
    for token in state.tokens:
        if token.type in ("th_open", "td_open"):
            style = token.attrGet("style")
            if style is not None:
                del token.attrs["style"]
                match = _ALIGN_STYLE.match(str(style))
                if match:
                    token.attrJoin("class", f"align-{match.group(1)}")


def _heading_close(self, tokens, idx, options, env) -> str:
    anchor = tokens[idx - 2].attrGet("id")
    link = ""
    if anchor:
        link = (
            f' <a class="heading-anchor" href="#{escape(anchor)}" '
            f'aria-label="Link to this section">#</a>'
        )
    return f"{link}</{tokens[idx].tag}>\n"


def _table_open(self, tokens, idx, options, env) -> str:
    # Wide tables scroll inside their own box on small screens instead of widening the page.
    return '<div class="table-scroll" tabindex="0">\n' + self.renderToken(tokens, idx, options, env)


def _table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


@lru_cache(maxsize=1)
def book_parser() -> MarkdownIt:
    """The parser for chapter bodies (raw HTML allowed: chapters are the project's own files)."""
    md = (
        MarkdownIt("commonmark", {"html": True, "typographer": False})
        .enable("table")
        .use(footnote_plugin)
        .use(
            dollarmath_plugin,
            renderer=_render_math,
            allow_space=False,
            allow_labels=False,
            double_inline=True,
        )
    )
    md.core.ruler.push("heading_ids", _heading_ids)
    md.core.ruler.push("lift_title", _lift_title)
    md.core.ruler.push("worked_examples", _worked_examples)
    md.core.ruler.push("table_alignment", table_alignment)
    md.add_render_rule("heading_close", _heading_close)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


def render_book_markdown(text: str) -> MarkdownResult:
    """HTML (sanitized), table of contents and lifted title of a chapter body (live values
    already in)."""
    env: dict = {}
    html = sanitize_html(book_parser().render(text, env))
    return MarkdownResult(html, list(env.get("toc", [])), env.get("title"))


def heading_anchors(text: str) -> list[str]:
    """Every heading id the body will get, without evaluating live expressions."""
    env: dict = {}
    tokens = book_parser().parse(text, env)
    return [t.attrGet("id") for t in tokens if t.type == "heading_open" and t.attrGet("id")]
