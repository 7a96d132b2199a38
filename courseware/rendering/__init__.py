"""Rendering the book: front matter, live figures, Markdown with MathML, contents and sources.

``frontmatter`` splits a chapter file, ``markdown`` turns a body into HTML, ``chapter`` runs the
whole pipeline and caches it; ``text`` renders the short texts of questions and feedback, and
``math`` the formulas of both. Every one of them ends in ``sanitize.sanitize_html``, the one
place where HTML made from author or student text is made safe. Dependencies point to
``content`` only (never to ``quizzes``).
"""

from .chapter import (
    Citation,
    RenderedChapter,
    catalog_version,
    code_version,
    content_hash,
    render_body,
    render_chapter_text,
    rendered_chapter,
    sources_html,
)
from .frontmatter import ChapterSource, ContentError, split_front_matter
from .markdown import TocEntry, heading_anchors, render_book_markdown, slugify_heading
from .math import math_to_mathml
from .sanitize import sanitize_html
from .text import render_math, render_text, render_text_inline

__all__ = [
    "ChapterSource",
    "Citation",
    "ContentError",
    "RenderedChapter",
    "TocEntry",
    "catalog_version",
    "code_version",
    "content_hash",
    "heading_anchors",
    "math_to_mathml",
    "render_body",
    "render_book_markdown",
    "render_chapter_text",
    "render_math",
    "render_text",
    "render_text_inline",
    "rendered_chapter",
    "sanitize_html",
    "slugify_heading",
    "split_front_matter",
    "sources_html",
]
