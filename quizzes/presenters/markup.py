"""Question text to HTML: Markdown with LaTeX math, rendered to MathML on the server.

Raw HTML in a template's text is escaped (authors write Markdown, not markup), a formula that
cannot be read falls back to its source in a code span rather than failing the page, and the
result passes the site's one sanitizer (`courseware.rendering.sanitize`). Feedback goes through
the same renderer, except for the student's own words that the grader quotes back, which are
shown literally.
"""

from __future__ import annotations

import re

from django.utils.safestring import SafeString

from courseware.rendering import render_text, render_text_inline

# The renderers live in courseware.rendering, where every HTML made from text is sanitized.
render_markdown_math = render_text
render_inline = render_text_inline


# The grader quotes what it could not read between single quotes ("Unknown name 'x_1'"); an
# apostrophe inside a word ("the model's") is not a quote.
_QUOTED = re.compile(r"(?<![\w'])'([^'\n]+)'(?![\w])")
_ACTIVE = re.compile(r"([\\`*_\[\]{}()<>#+!|$~&-])")


def _literal(text: str) -> str:
    """`text` with every character Markdown or math could act on backslash-escaped."""
    return _ACTIVE.sub(r"\\\1", text)


def render_feedback(text: str, *, quoting: str = "") -> SafeString:
    """Grader or template feedback as HTML: Markdown with math, like a prompt, while the
    student's input that the feedback quotes stays literal text.

    `quoting` is the student's answer the feedback may quote: every piece of it that Markdown
    could act on, or that holds a quote, is set aside before the grader's quotes are paired and
    put back literal, so a quote typed inside the answer ("5 G'B *x* [y](z) '") cannot close
    the grader's quotes early and leave the rest of it live."""
    if not text:
        return render_text("")
    kept: list[str] = []
    pattern = _pieces_pattern(quoting)
    if pattern is not None:
        text = pattern.sub(lambda m: kept.append(m.group(0)) or f"\x00{len(kept) - 1}\x00", text)
    source = _QUOTED.sub(lambda m: "'" + _literal(m.group(1)) + "'", text)
    if kept:
        source = _KEPT.sub(lambda m: _literal(kept[int(m.group(1))]), source)
    return render_markdown_math(source)


_KEPT = re.compile(r"\x00(\d+)\x00")


def _pieces_pattern(quoting: str) -> re.Pattern | None:
    """The whitespace-separated pieces of `quoting` (and of its NFKC form, as the grader
    normalises it) that hold a Markdown-active character or a quote, longest first."""
    import unicodedata

    quoting = quoting.replace("\x00", "")
    pieces = set(quoting.split()) | set(unicodedata.normalize("NFKC", quoting).split())
    active = sorted((p for p in pieces if _ACTIVE.search(p) or "'" in p), key=len, reverse=True)
    if not active:
        return None
    return re.compile("|".join(re.escape(p) for p in active))
