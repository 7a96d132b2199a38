"""Markdown to HTML for the book's pages."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": True}).enable("table")


def render_markdown(source: str) -> SafeString:
    # Chapter sources are the project's own files, so raw HTML in them is trusted.
    return mark_safe(_md.render(source))  # noqa: S308
