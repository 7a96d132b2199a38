"""Question text to HTML: Markdown with LaTeX math, rendered to MathML on the server.

Raw HTML in a template's text is escaped (authors write Markdown, not markup), and a formula
that latex2mathml cannot read falls back to its source in a code span rather than failing the
page. Feedback goes through the same renderer, except for the student's own words that the
grader quotes back, which are shown literally.
"""

from __future__ import annotations

import re
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


# The grader quotes what it could not read between single quotes ("Unknown name 'x_1'"); an
# apostrophe inside a word ("the model's") is not a quote.
_QUOTED = re.compile(r"(?<![\w'])'([^'\n]+)'(?![\w])")
_ACTIVE = re.compile(r"([\\`*_\[\]{}()<>#+!|$~&-])")


def _literal(text: str) -> str:
    """`text` with every character Markdown or math could act on backslash-escaped."""
    return _ACTIVE.sub(r"\\\1", text)


def render_feedback(text: str) -> SafeString:
    """Grader or template feedback as HTML: Markdown with math, like a prompt, while the
    student's input that the feedback quotes stays literal text."""
    if not text:
        return mark_safe("")  # noqa: S308
    source = _QUOTED.sub(lambda m: "'" + _literal(m.group(1)) + "'", text)
    return render_markdown_math(source)
