"""Drawing one of an answer kind's own templates (its input, a graded answer, its answer key)
to HTML outside a page template: the answer key a presenter hands to several pages, a graded
answer's read-back.  Which template is the kind's business (``AnswerKind.*_template``)."""

from __future__ import annotations

from functools import lru_cache

from django.template import engines
from django.utils.safestring import SafeString

# `strip`: a template file ends with a newline, which would put a space before the full stop
# of "The correct answer is ...".
_WRAPPER = "{% load kinds %}{% strip %}{% include name %}{% endstrip %}"


@lru_cache(maxsize=1)
def _wrapper():
    return engines["django"].from_string(_WRAPPER)


def render_kind(name: str, **context) -> SafeString:
    """The kind template `name` drawn with `context`, as HTML without surrounding whitespace."""
    return _wrapper().render({"name": name, **context})
