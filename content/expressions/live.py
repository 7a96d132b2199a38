"""Live expressions in text: ``{{ expr | UNIT | option ... }}`` substituted at render time.

Shared by chapters, question prompts, options, hints and solutions.  The scanner knows where
``$...$`` and ``$$...$$`` math begins and ends, so a value inside math gets its unit wrapped in
``\\text{}`` and its symbols written the LaTeX way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from content.expressions.errors import ExpressionError
from content.expressions.evaluator import SafeEvaluator, evaluate_tracked
from content.expressions.formatting import LiveFormat, format_value, parse_options
from content.expressions.policy import check_expression


@dataclass(frozen=True)
class RenderResult:
    """Rendered text and every source cited by the catalog entries its values came from."""

    text: str
    citations: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class LiveSpan:
    """One ``{{ ... }}`` found in a text: where it is, what it says, whether it is in math."""

    start: int
    end: int
    line: int
    expr: str
    options: str
    in_math: bool

    @property
    def written(self) -> str:
        return "{{ " + (self.expr + (" | " + self.options if self.options else "")) + " }}"


_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


def scan_live(text: str, *, source: str = "<text>", first_line: int = 1) -> Iterator[LiveSpan]:
    """Yield every live expression of ``text`` in order; raise ExpressionError if unclosed.

    The spans of a text are found once per process (texts are the templates' and chapters',
    rendered again for every variant and every view); a text that does not scan is scanned
    anew each time, so its earlier spans still come before the error."""
    if len(text) > _CACHED_TEXT_CHARS or text.count("{{") > _CACHED_TEXT_SPANS:
        yield from _scan(text, source, first_line)
        return
    try:
        yield from _scanned(text, source, first_line)
    except ExpressionError:
        yield from _scan(text, source, first_line)


# Texts up to this length and this many expressions are cached (a question's prompt, solution or
# feedback; a chapter's paragraph is rendered once per view anyway). At most 2,048 of them (the
# whole bank is about 1,400 texts), so whatever authors preview the cache stays bounded: full
# entries (4,000 characters and 64 spans, the text kept as the key) measured about 40 MB per
# process for ASCII texts, up to about 90 MB for texts all of emoji.
_CACHED_TEXT_CHARS = 4000
_CACHED_TEXT_SPANS = 64


@functools.lru_cache(maxsize=2048)
def _scanned(text: str, source: str, first_line: int) -> tuple[LiveSpan, ...]:
    return tuple(_scan(text, source, first_line))


def _scan(text: str, source: str, first_line: int) -> Iterator[LiveSpan]:
    i, n = 0, len(text)
    math: str | None = None
    fence: str | None = None
    line = first_line
    at_line_start = True
    while i < n:
        if at_line_start:
            match = _FENCE.match(text, i)
            if match and (fence is None or match.group(1).startswith(fence)):
                fence = match.group(1)[:3] if fence is None else None
        char = text[i]
        at_line_start = char == "\n"
        if char == "\n":
            line += 1
            i += 1
            continue
        if char == "\\" and text.startswith("{{", i + 1):
            i += 3
            continue
        if char == "\\" and i + 1 < n:
            i += 2
            continue
        if text.startswith("{{", i):
            close = text.find("}}", i + 2)
            inner = text[i + 2 : close] if close >= 0 else text[i + 2 : i + 60]
            if close < 0:
                raise ExpressionError(source, line, "{{" + inner, "'{{' without a closing '}}'")
            expr, options = _split_options(inner)
            yield LiveSpan(i, close + 2, line, expr, options, math is not None)
            line += inner.count("\n")
            i = close + 2
            continue
        if char == "$" and fence is None:
            delimiter = "$$" if text.startswith("$$", i) else "$"
            i += len(delimiter)
            if math is None:
                # As in Markdown math plugins, "$ " does not open inline math.
                if delimiter == "$$" or (i < n and not text[i].isspace()):
                    math = delimiter
            elif math == delimiter:
                math = None
            continue
        i += 1


def _split_options(inner: str) -> tuple[str, str]:
    """Split ``expr | opt | opt`` at the first bar outside a string literal."""
    quote: str | None = None
    for index, char in enumerate(inner):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "|":
            return inner[:index].strip(), inner[index + 1 :].strip()
    return inner.strip(), ""


def render_live(
    text: str,
    names: Mapping[str, object] | None = None,
    *,
    source: str = "<text>",
    math_aware: bool = True,
    first_line: int = 1,
    citations: bool = True,
) -> RenderResult:
    """Substitute every live expression of ``text``; raise ExpressionError on the first failure.

    ``first_line`` is the line of ``text``'s first line within its file, for error messages;
    ``citations=False`` skips collecting sources (quicker, for question text).
    """
    literals, values, touched = _pieces(text, names, source, math_aware, first_line, citations)
    pieces = [literals[0]]
    for (value, _in_math), literal in zip(values, literals[1:], strict=True):
        pieces += (value, literal)
    return RenderResult("".join(pieces), collect_citations(touched))


@dataclass(frozen=True)
class LivePieces:
    """A rendered text taken apart: the author's own text between the live values
    (``literals``, one more than the values) and each value as written, with whether it stands
    in math. ``"".join`` of them interleaved is ``render_live(...).text``; the literals depend on
    the text alone, so a page can draw them once for every variant of a question."""

    literals: tuple[str, ...]
    values: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        pieces = [self.literals[0]]
        for (value, _in_math), literal in zip(self.values, self.literals[1:], strict=True):
            pieces += (value, literal)
        return "".join(pieces)


def render_live_pieces(
    text: str,
    names: Mapping[str, object] | None = None,
    *,
    source: str = "<text>",
    math_aware: bool = True,
    first_line: int = 1,
) -> LivePieces:
    """``render_live(..., citations=False)`` taken apart (``LivePieces``)."""
    literals, values, _ = _pieces(text, names, source, math_aware, first_line, False)
    return LivePieces(tuple(literals), tuple(values))


def _pieces(text, names, source, math_aware, first_line, citations):
    from content.expressions.namespace import default_namespace

    namespace = default_namespace() if names is None else names
    literals: list[str] = []
    values: list[tuple[str, bool]] = []
    touched: list[object] = []
    position = 0
    evaluator: SafeEvaluator | None = None  # one for all of the text's expressions
    for span in scan_live(text, source=source, first_line=first_line):
        literals.append(text[position : span.start].replace("\\{{", "{{"))
        in_math = span.in_math and math_aware
        if evaluator is None:
            evaluator = SafeEvaluator(namespace, track=citations)
        value = _render_span(span, namespace, source, in_math, touched, citations, evaluator)
        values.append((value, in_math))
        position = span.end
    literals.append(text[position:].replace("\\{{", "{{"))
    return literals, values, touched


def _render_span(
    span: LiveSpan,
    names: Mapping[str, object],
    source: str,
    in_math: bool,
    touched: list,
    track: bool = True,
    evaluator: SafeEvaluator | None = None,
) -> str:
    fmt = _options(span, source)
    value, seen = evaluate_tracked(
        span.expr,
        names,
        source=source,
        line=span.line,
        shown=span.written,
        track=track,
        evaluator=evaluator,
    )
    touched.extend(seen)
    try:
        return format_value(value, fmt, in_math=in_math, names=names)
    except (ValueError, TypeError, KeyError) as exc:
        message = exc.args[0] if exc.args else type(exc).__name__
        raise ExpressionError(source, span.line, span.written, str(message)) from None


def _options(span: LiveSpan, source: str) -> LiveFormat:
    try:
        return parse_options(span.options)
    except ValueError as exc:
        raise ExpressionError(source, span.line, span.written, str(exc)) from None


def check_live(
    text: str,
    names: Mapping[str, object] | set[str] | frozenset[str] | None = None,
    source: str = "<text>",
    *,
    first_line: int = 1,
) -> list[ExpressionError]:
    """Return every error in ``text`` at once (an empty list when all is well).

    With a mapping of values each expression is evaluated and formatted; with a set of names
    (values not known yet) each is only checked for syntax, options and unknown names.
    """
    from content.expressions.namespace import default_namespace

    namespace = default_namespace() if names is None else names
    errors: list[ExpressionError] = []
    try:
        spans = list(scan_live(text, source=source, first_line=first_line))
    except ExpressionError as exc:
        return [exc]
    for span in spans:
        try:
            fmt = _options(span, source)
            if isinstance(namespace, Mapping):
                _render_span(span, namespace, source, span.in_math, [], track=False)
            else:
                check_expression(
                    span.expr, namespace, source=source, line=span.line, shown=span.written
                )
                del fmt
        except ExpressionError as exc:
            errors.append(exc)
    return errors


def collect_citations(objects: list[object]) -> tuple[Any, ...]:
    """The sources of what the expressions used, in first-seen order, without duplicates: a
    field read (``FieldRead``) cites that field's source alone, an entry used whole all of its
    sources (tenth pass, F-10: a chapter lists the sources of the figures it prints, not every
    source of every entry it names)."""
    from content.expressions.evaluator import FieldRead

    found: list[Any] = []
    for obj in objects:
        if isinstance(obj, FieldRead):
            items = _field_citations(obj.entry, obj.field)
        elif callable(citations := getattr(obj, "citations", None)):
            items = citations()
        else:
            items = getattr(obj, "sources", ()) or ()
        if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
            items = (items,)
        for item in items:
            if not any(item == known for known in found):
                found.append(item)
    return tuple(found)


def _field_citations(entry: object, field: str) -> tuple[Any, ...]:
    """The source of one field of ``entry``: its own ("peak_flops.bf16"), else its head's
    ("peak_flops"); none for a field no source covers (a name, a key); every source of the
    entry for a derived property, which may read any of its fields."""
    import dataclasses

    if field in getattr(type(entry), "definitional_fields", ()):
        return ()  # a definition, such as a format's width, is not a sourced figure
    citations = getattr(entry, "citations", None)
    every = tuple(citations()) if callable(citations) else ()
    sources = getattr(entry, "sources", None)
    if not isinstance(sources, Mapping):
        return every  # an entry without per-field sources is cited whole
    head = field.split(".", 1)[0]
    key = sources.get(field) or sources.get(head)
    # A whole mapping read (``peak_flops``) is covered by its items' sources ("peak_flops.bf16").
    keys = (
        {key} if key is not None else {v for k, v in sources.items() if k.startswith(f"{field}.")}
    )
    if keys:
        return tuple(c for c in every if getattr(c, "key", c) in keys)
    if any(f.name == head for f in dataclasses.fields(entry)):
        return ()
    return every
