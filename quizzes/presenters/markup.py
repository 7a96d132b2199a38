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


def render_feedback(text: str) -> SafeString:
    """Grader or template feedback as HTML: Markdown with math, like a prompt, while the
    student's input that the feedback quotes stays literal text."""
    if not text:
        return render_text("")
    source = _QUOTED.sub(lambda m: "'" + _literal(m.group(1)) + "'", text)
    return render_markdown_math(source)
