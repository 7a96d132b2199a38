"""Shared by the book's live-claim tests: chapters rendered as a reader sees them, as text.

A claim test renders the chapter with its live figures, drops the tags and looks for the
sentence with figures it recomputed itself from published inputs.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from content.physics import format_number, format_quantity
from courseware.rendering import render_chapter_text

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"


@cache
def chapter_text(name: str) -> str:
    """``name`` (a file of content/book) rendered with its live figures, as running text."""
    html = render_chapter_text((BOOK / name).read_text(), source=name).html
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&#x27;", "'").split())


def chapter_texts(names) -> dict[str, str]:
    return {name: chapter_text(name) for name in names}


def main_text(chapter: str) -> str:
    """A rendered chapter's argument: its text before the key takeaways."""
    return chapter.split("Key takeaways", 1)[0]


def takeaways(chapter: str) -> str:
    """A rendered chapter's key takeaways, up to its questions."""
    return chapter.split("Key takeaways", 1)[1].split("Check your understanding", 1)[0]


def section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from ``start`` up to ``end``."""
    return text[text.index(start) : text.index(end)]


def authored(value, sig):
    """A number as a chapter prints ``{{ value | sig=N }}``: the author's rounding, whole digits
    included, unless the value is an exact integer (9,500, but 1,024)."""
    return format_number(value, sig, approx=not float(value).is_integer())


def q(value, unit, **kw):
    """A quantity as the chapters print it."""
    return format_quantity(value, unit, **kw)
