"""Question text to HTML: Markdown with LaTeX math, rendered to MathML on the server.

Raw HTML in a template's text is escaped (authors write Markdown, not markup), and a formula
that latex2mathml cannot read falls back to its source in a code span rather than failing the
page.
"""

from __future__ import annotations

from functools import lru_cache

import latex2mathml.converter
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin


def _math(latex: str, options: dict) -> str:
    display = "block" if options.get("display_mode") else "inline"
    try:
        return latex2mathml.converter.convert(latex, display=display)
    except Exception:  # noqa: BLE001 - any converter failure degrades to the source text
        return f'<code class="math-source">{escape(latex)}</code>'


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return (
        MarkdownIt("commonmark", {"html": False})
        .enable("table")
        .use(dollarmath_plugin, renderer=_math, allow_space=True, double_inline=True)
    )


def render_markdown_math(source: str) -> SafeString:
    """HTML for Markdown with `$...$` and `$$...$$` math (MathML; no script needed)."""
    return mark_safe(_renderer().render(source or ""))  # noqa: S308 - html is disabled above


def render_inline(source: str) -> SafeString:
    """Like `render_markdown_math`, without the paragraph around a one-line text."""
    return mark_safe(_renderer().renderInline(source or ""))  # noqa: S308
