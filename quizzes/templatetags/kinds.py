"""What the answer kinds' own templates (``quizzes/engine/kinds/<kind>/*.html``) may use besides
Django's built-ins: formulas as MathML, a kind's items picked by id, and the tag that renders
one of a kind's templates without the whitespace its file ends with (so "The correct answer is
{{ key }}." reads as a sentence).  The roofline chart has its own library (``charts``)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from courseware import caching
from quizzes.presenters.markup import render_inline

register = template.Library()


@register.filter
def inline_math(latex: str) -> SafeString | str:
    """LaTeX as inline MathML, through the site's renderer and sanitizer ("" for none)."""
    return _math(str(latex)) if latex else ""


@caching.memoize(
    "formula MathML (kinds tag)",
    max_bytes=8 * 1024 * 1024,
    why="a formula answer's MathML drawn once per text, not per page (with the feedback memo)",
)
def _math(latex: str) -> SafeString:
    return render_inline(f"${latex}$")


@register.filter
def among(ids, items) -> list:
    """The `items` (anything with an ``id``) whose id is in `ids`, in the items' order."""
    wanted = set(ids or ())
    return [item for item in items or () if item.id in wanted]


@register.filter
def pick(ids, items) -> list:
    """The `items` with the ids in `ids`, in the order of `ids` (unknown ids left out)."""
    by_id = {item.id: item for item in items or ()}
    return [by_id[i] for i in ids or () if i in by_id]


@register.filter
def item(items, ident):
    """The one item of `items` with id `ident`, or None."""
    return next((i for i in items or () if i.id == ident), None)


@register.filter
def get(mapping, key):
    """``mapping[key]`` (None when absent): a template cannot index by a variable itself."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


class _StripNode(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context) -> str:
        return self.nodelist.render(context).strip()


@register.tag
def strip(parser, token):
    """``{% strip %}...{% endstrip %}``: the content without leading and trailing whitespace."""
    nodelist = parser.parse(("endstrip",))
    parser.delete_first_token()
    return _StripNode(nodelist)
