"""The one HTML sanitizer: every piece of HTML made from author or student text passes here.

Chapters, question prompts, parts, options, hints, solutions, feedback, the studio preview, the
instructor's views and the "read as" previews are all rendered by ``courseware.rendering``, and
each of its renderers ends in `sanitize_html`. It is an allow-list (Ammonia, through nh3) that
knows MathML: an element, attribute, class or URL scheme not listed below does not survive,
whatever the Markdown parser or the LaTeX converter let through.

Policy, and why:

- HTML: the structural and phrasing elements Markdown produces, ``details``/``summary`` for the
  book's collapsible answers, and images. Links may be http, https, mailto or relative.
- MathML: the presentation elements of MathML Core that the LaTeX converter emits, with their
  layout attributes. Not ``annotation-xml`` (an HTML integration point), ``mglyph`` or
  ``malignmark`` (both known mutation-XSS devices), nor ``maction`` or ``semantics``.
- No ``style`` attribute anywhere (the site's CSP has no ``'unsafe-inline'`` for styles), no
  event handler, no ``href`` outside ``<a>`` (MathML's ``href`` on any element is a link), and
  classes only from the short list the renderers themselves set, so text cannot borrow the
  site's own classes to pose as a message or a button.
- ``id`` only where the book sets one (headings and footnotes), never one of the ids the site's
  own pages use, so that text cannot clobber what the pages' scripts look up.
- Images only from the site itself (relative URLs): an outside image is a request elsewhere.
- ``script``, ``style``, ``iframe``, ``object``, ``embed``, ``svg`` and the like are removed with
  their content; links get ``rel="noopener noreferrer"``.
"""

from __future__ import annotations

import re

import nh3
from django.utils.safestring import SafeString, mark_safe

HTML_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s",
    "samp", "section", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "u", "ul", "var", "wbr",
}  # fmt: skip

MATHML_TAGS = {
    "math", "menclose", "merror", "mfrac", "mi", "mmultiscripts", "mn", "mo", "mover",
    "mpadded", "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle",
    "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover", "none",
}  # fmt: skip

# Removed together with everything inside them (the rest lose only their tags).
DROP_WITH_CONTENT = {
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "textarea",
    "select", "title", "xmp", "noembed", "noframes", "frameset", "applet",
}  # fmt: skip

_MATH_LAYOUT = {
    "accent", "accentunder", "columnalign", "columnlines", "columnspacing", "columnspan",
    "depth", "dir", "displaystyle", "fence", "form", "frame", "height", "largeop", "linethickness",
    "lspace", "mathbackground", "mathcolor", "mathsize", "mathvariant", "maxsize", "minsize",
    "movablelimits", "notation", "rowalign", "rowlines", "rowspacing", "rowspan", "rspace",
    "scriptlevel", "separator", "stretchy", "symmetric", "voffset", "width",
}  # fmt: skip

ATTRIBUTES: dict[str, set[str]] = {
    "*": {"title", "lang", "dir"},
    "a": {"href", "id", "aria-label", "hreflang"},
    "img": {"src", "alt", "width", "height"},
    "div": {"tabindex"},
    "ol": {"start"},
    "li": {"id"},
    "sup": {"id"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "details": {"open"},
    "blockquote": {"cite"},
    "q": {"cite"},
    "math": {"display", "xmlns"} | _MATH_LAYOUT,
    **{f"h{n}": {"id"} for n in range(1, 7)},
    **{tag: set(_MATH_LAYOUT) for tag in MATHML_TAGS - {"math"}},
}

ALIGN_CLASSES = {"align-left", "align-center", "align-right"}
CLASSES: dict[str, set[str]] = {
    "a": {"heading-anchor", "footnote-backref"},
    "blockquote": {"worked-example"},
    "code": {"math-source", "display", "language-text", "language-python", "language-yaml"},
    "div": {"math-display", "table-scroll", "math", "block"},
    "span": {"math", "inline"},
    "hr": {"footnotes-sep"},
    "li": {"footnote-item"},
    "ol": {"footnotes-list"},
    "section": {"footnotes"},
    "sup": {"footnote-ref"},
    "td": ALIGN_CLASSES,
    "th": ALIGN_CLASSES,
}

URL_SCHEMES = {"http", "https", "mailto"}
# Ids the site's own templates and scripts use; text may not take them over (DOM clobbering).
RESERVED_IDS = {"main", "source", "gutter", "content"}
_RESERVED_ID_PREFIXES = ("id_", "part-", "hx-", "csrf")
_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:")


def _filter_attribute(tag: str, name: str, value: str) -> str | None:
    if name == "src" and (_SCHEME.match(value) or value.lstrip().startswith("//")):
        # Images come from the site itself: an outside image would be a request to elsewhere
        # on every page view (a tracking pixel), whatever the CSP says.
        return None
    if name == "id" and (value in RESERVED_IDS or value.startswith(_RESERVED_ID_PREFIXES)):
        return None
    return value


_cleaner = nh3.Cleaner(
    tags=HTML_TAGS | MATHML_TAGS,
    clean_content_tags=DROP_WITH_CONTENT,
    attributes=ATTRIBUTES,
    allowed_classes=CLASSES,
    url_schemes=URL_SCHEMES,
    attribute_filter=_filter_attribute,
    link_rel="noopener noreferrer",
    strip_comments=True,
)


def sanitize_html(html: str) -> SafeString:
    """`html` with everything outside the allow-list removed, marked safe for templates."""
    return mark_safe(_cleaner.clean(html or ""))  # noqa: S308 - this is the sanitizer


__all__ = ["sanitize_html"]
