"""A chapter from source to page: live figures, Markdown and math, sources list, roofline chart.

Rendering evaluates every live expression, so a page view reads the result from Django's cache.
The key is the chapter's content hash, the catalog's fingerprint (the hash of its figures, the
same one a question variant's snapshot is stamped with) and a hash of the code that turns
figures into a page: a change to any of them gives new keys, never stale figures.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.core.cache import cache
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from content.expressions import ExpressionError, render_live
from content.physics.catalog import snapshot as catalog_snapshot

from .frontmatter import ContentError, split_front_matter
from .markdown import TocEntry, render_book_markdown

# A directive stands alone on its line: {% sources %}, {% roofline_chart %}; the chapter figures
# {% allreduce_chart %}, {% serving_roofline %}, {% format_bits %} and the running examples'
# rooflines {% intro_roofline %}, {% block_roofline %}, {% precision_roofline %}, and chapter
# 01's {% gpu_anatomy %} and {% overhead_timeline %} (chapter 02's {% block_timeline %}), and
# chapter 03's {% pass_time %}, {% pass_batch %} and {% request_bill %}.
_DIRECTIVE_LINE = re.compile(r"^[ \t]*\{%\s*([A-Za-z_]+)\s*%\}[ \t]*$", re.MULTILINE)
_STRAY_TAG = re.compile(r"\{%.*?(%\}|$)", re.MULTILINE)
DIRECTIVES = (
    "sources",
    "roofline_chart",
    "allreduce_chart",
    "serving_roofline",
    "format_bits",
    "kv_memory",
    "bandwidth_staircase",
    "link_staircase",
    "link_ridge",
    "intro_roofline",
    "block_roofline",
    "precision_roofline",
    "gpu_anatomy",
    "overhead_timeline",
    "block_timeline",
    "pass_time",
    "pass_batch",
    "request_bill",
)
CACHE_SECONDS = 60 * 60 * 24

_ROOT = Path(__file__).resolve().parents[2]
# Code whose change alters what a rendered chapter shows.  The catalog's figures are not in
# this list: they enter the key as ``catalog_version()``, the hash of the data itself.
_CATALOG_DATA = "content/physics/catalog"
_CODE = (
    "content/physics",
    "content/expressions",
    "courseware/rendering",
    "courseware/charts.py",
    "courseware/allreduce_chart.py",
    "courseware/book_figures.py",
    "courseware/book_bars.py",
    "courseware/book_rooflines.py",
    "courseware/book_serving.py",
    "courseware/book_anatomy.py",
    "courseware/book_timeline.py",
    "templates/courseware/_overhead_timeline.html",
    "templates/courseware/_h100_anatomy.html",
    "templates/courseware/_roofline_widget.html",
    "templates/courseware/_roofline_chart.html",
    "templates/courseware/_allreduce_chart.html",
    "templates/courseware/_allreduce_figure.html",
    "templates/courseware/_book_figure.html",
    "templates/courseware/_bar_figure.html",
    "templates/courseware/_format_bits.html",
    "templates/courseware/_figure_sources.html",
    "templates/courseware/_roofline_figure.html",
)


@dataclass(frozen=True)
class Citation:
    """A catalog source that one of the chapter's live figures came from."""

    key: str
    title: str
    url: str


@dataclass(frozen=True)
class RenderedChapter:
    """A chapter ready for its page: body HTML, ``##`` contents, cited sources, lifted title."""

    html: SafeString
    toc: tuple[TocEntry, ...]
    citations: tuple[Citation, ...]
    title: str | None = None


def catalog_version() -> str:
    """The catalog's fingerprint: a hash of every figure of every catalog entry.

    The very value a variant snapshot records (``catalog.snapshot.fingerprint``), so a chapter
    and a question name one catalog state the same way; a corrected figure changes it at once,
    an edited comment does not."""
    return catalog_snapshot.fingerprint()


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the physics formulas, the expression language and the renderer (not the
    catalog's data files, whose figures ``catalog_version`` covers).

    Read once per process, from the files the process imported at start-up; a new deployment
    (or any edit followed by a restart) changes it.
    """
    digest = hashlib.sha256()
    data = _ROOT / _CATALOG_DATA
    for relative in _CODE:
        path = _ROOT / relative
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.is_relative_to(data):
                continue
            if file.is_file() and file.suffix in (".py", ".yaml", ".yml", ".json", ".html"):
                digest.update(str(file.relative_to(_ROOT)).encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line_of(text: str, offset: int, first_line: int) -> int:
    return first_line + text.count("\n", 0, offset)


def _mark_directives(text: str, *, source: str, first_line: int) -> str:
    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in DIRECTIVES:
            line = _line_of(text, match.start(), first_line)
            known = ", ".join("{% " + d + " %}" for d in DIRECTIVES)
            raise ContentError(source, line, f"unknown directive '{{% {name} %}}' (known: {known})")
        return _marker(name)

    marked = _DIRECTIVE_LINE.sub(replace, text)
    stray = _STRAY_TAG.search(marked)
    if stray:
        line = _line_of(marked, stray.start(), first_line)
        raise ContentError(source, line, "a '{% ... %}' directive must stand alone on its own line")
    return marked


def _marker(name: str) -> str:
    # Plain text, so it survives the sanitizer; replaced by the site's own HTML afterwards.
    return f"\n\nCOURSEWARE-DIRECTIVE-{name}\n\n"


def _rendered_marker(name: str) -> str:
    return f"<p>COURSEWARE-DIRECTIVE-{name}</p>"


def _citations(found) -> tuple[Citation, ...]:
    out: list[Citation] = []
    for item in found:
        title = getattr(item, "title", None) or str(item)
        entry = Citation(
            str(getattr(item, "key", title)), str(title), str(getattr(item, "url", ""))
        )
        if entry not in out:
            out.append(entry)
    return tuple(out)


def sources_html(citations: tuple[Citation, ...]) -> str:
    if not citations:
        return '<p class="muted">No catalog figures are quoted in this chapter.</p>'
    items = []
    for c in citations:
        title = escape(c.title)
        link = f'<a href="{escape(c.url)}" rel="noopener">{title}</a>' if c.url else title
        items.append(f"<li>{link}</li>")
    return (
        '<p class="sources-intro">The live figures and the charts in this chapter come from '
        'these catalog sources:</p>\n<ul class="catalog-sources">\n' + "\n".join(items) + "\n</ul>"
    )


def _chart_html() -> str:
    from courseware.charts import roofline_widget_html

    return roofline_widget_html()


def _figures() -> dict:
    """The chapter figures by directive, each a function returning the site's own markup."""
    from courseware.allreduce_chart import allreduce_figure_html
    from courseware.book_anatomy import h100_anatomy_html
    from courseware.book_bars import (
        bandwidth_staircase_html,
        kv_memory_html,
        link_ridge_html,
        link_staircase_html,
    )
    from courseware.book_figures import format_bits_html, serving_roofline_html
    from courseware.book_rooflines import (
        block_roofline_html,
        intro_roofline_html,
        precision_roofline_html,
    )
    from courseware.book_serving import pass_batch_html, pass_time_html, request_bill_html
    from courseware.book_timeline import block_timeline_html, overhead_timeline_html

    return {
        "allreduce_chart": allreduce_figure_html,
        "kv_memory": kv_memory_html,
        "bandwidth_staircase": bandwidth_staircase_html,
        "link_staircase": link_staircase_html,
        "link_ridge": link_ridge_html,
        "serving_roofline": serving_roofline_html,
        "format_bits": format_bits_html,
        "intro_roofline": intro_roofline_html,
        "block_roofline": block_roofline_html,
        "precision_roofline": precision_roofline_html,
        "gpu_anatomy": h100_anatomy_html,
        "overhead_timeline": overhead_timeline_html,
        "block_timeline": block_timeline_html,
        "pass_time": pass_time_html,
        "pass_batch": pass_batch_html,
        "request_bill": request_bill_html,
    }


def render_body(body: str, *, source: str = "<chapter>", first_line: int = 1) -> RenderedChapter:
    """Render a chapter body; ExpressionError or ContentError name the file and line."""
    live = render_live(body, source=source, math_aware=True, first_line=first_line)
    marked = _mark_directives(live.text, source=source, first_line=first_line)
    result = render_book_markdown(marked)
    html = result.html
    if _rendered_marker("roofline_chart") in html:
        html = html.replace(_rendered_marker("roofline_chart"), _chart_html())
    from courseware.book_figures import recording_figure_sources

    with recording_figure_sources() as drawn:
        for name, figure in _figures().items():
            if _rendered_marker(name) in html:
                html = html.replace(_rendered_marker(name), figure())
    # The sources of what the text printed, then of what its figures drew (F-10).
    citations = _citations([*live.citations, *drawn])
    html = html.replace(_rendered_marker("sources"), sources_html(citations))
    # result.html is sanitized; what the directives add is the site's own escaped markup.
    return RenderedChapter(mark_safe(html), tuple(result.toc), citations, result.title)  # noqa: S308


def render_chapter_text(text: str, *, source: str = "<chapter>") -> RenderedChapter:
    """Render a whole chapter file (front matter and body)."""
    parsed = split_front_matter(text, source=source)
    return render_body(parsed.body, source=source, first_line=parsed.body_line)


def rendered_chapter(chapter) -> RenderedChapter:
    """The rendered page of a Chapter row, from the cache when the same text was rendered."""
    digest = chapter.content_hash or content_hash(chapter.source)
    key = f"chapter-html:{digest}:{catalog_version()}:{code_version()}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    source = chapter.source_path or f"chapter '{chapter.slug}'"
    if chapter.source.lstrip().startswith("---"):
        rendered = render_chapter_text(chapter.source, source=source)
    else:
        rendered = render_body(chapter.source, source=source)
    cache.set(key, rendered, CACHE_SECONDS)
    return rendered


__all__ = [
    "Citation",
    "ContentError",
    "ExpressionError",
    "RenderedChapter",
    "catalog_version",
    "code_version",
    "content_hash",
    "render_body",
    "render_chapter_text",
    "rendered_chapter",
    "sources_html",
]
