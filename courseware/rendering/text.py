"""Markdown with math for short texts that are not chapters: question prompts, parts, options,
hints, solutions, feedback, the studio's previews and the "read as" of a student's formula.

Raw HTML in such text is escaped (authors write Markdown, not markup), math becomes MathML on
the server, and the result passes the one sanitizer, as chapters do.
"""

from __future__ import annotations

from functools import lru_cache

from django.utils.safestring import SafeString
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .markdown import table_alignment
from .math import math_to_mathml
from .sanitize import sanitize_html


def _math(latex: str, options: dict) -> str:
    return math_to_mathml(latex, display=bool(options.get("display_mode")))


@lru_cache(maxsize=1)
def _text_parser() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": False})
        .enable("table")
        .use(dollarmath_plugin, renderer=_math, allow_space=True, double_inline=True)
    )
    md.core.ruler.push("table_alignment", table_alignment)
    return md


def render_text(source: str) -> SafeString:
    """Sanitized HTML for Markdown with `$...$` and `$$...$$` math."""
    return sanitize_html(_text_parser().render(source or ""))


def render_text_inline(source: str) -> SafeString:
    """Like `render_text`, without the paragraph around a one-line text."""
    return sanitize_html(_text_parser().renderInline(source or ""))


def render_math(latex: str, *, display: bool = False) -> SafeString:
    """Sanitized MathML for one formula (or its escaped source when it cannot convert)."""
    return sanitize_html(math_to_mathml(latex or "", display=display))
