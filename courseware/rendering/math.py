"""LaTeX to MathML, once for the whole site (the book, question text, feedback, previews).

latex2mathml builds an element tree and then *unescapes* its serialization, so that the
character references it writes into text (``&#x000A0;``) come out as references; that also
turns the ``&lt;`` of a ``\\text{<img ...>}`` back into a live tag. Here the tree is serialized
with ordinary XML escaping, and only numeric character references are given back: they are text
wherever they stand, so nothing an author types can become markup. The sanitizer then checks the
result like any other HTML.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import tostring

import latex2mathml.converter
from django.utils.html import escape

# latex2mathml passes an unknown command through as an identifier; treat that as a failure.
_UNKNOWN_COMMAND = re.compile(r"<mi>\\[A-Za-z]+</mi>")
_ESCAPED_CHAR_REF = re.compile(r"&amp;(#(?:x[0-9A-Fa-f]{1,6}|[0-9]{1,7});)")
# "81{,}559" (a thousands separator in TeX) comes out as three tokens, number, comma, number;
# one <mn> reads as one number, to the eye and to a screen reader.
_GROUPED_NUMBER = re.compile(
    r"<mn>(\d[\d,]*)</mn><mrow><mo>&#x0002C;</mo></mrow><mn>(\d{3}[\d,.]*)</mn>"
)


def _serialize(element) -> str:
    text = _ESCAPED_CHAR_REF.sub(r"&\1", tostring(element, encoding="unicode"))
    while _GROUPED_NUMBER.search(text):
        text = _GROUPED_NUMBER.sub(r"<mn>\1,\2</mn>", text)
    return text


def math_to_mathml(latex: str, *, display: bool) -> str:
    """MathML for ``latex``; a formula the converter cannot read shows as its source in a code.

    Not yet sanitized: callers hand it to a renderer that ends in `sanitize_html`.
    """
    try:
        element = latex2mathml.converter.convert_to_element(
            latex, display="block" if display else "inline"
        )
        mathml = _serialize(element)
    except Exception:  # noqa: BLE001 - any converter failure degrades to the source, never a 500
        mathml = None
    if mathml is None or _UNKNOWN_COMMAND.search(mathml):
        kind = "math-source display" if display else "math-source"
        return f'<code class="{kind}" title="formula shown as LaTeX">{escape(latex)}</code>'
    return mathml
