"""A question's text drawn once per template, with each variant's values put in afterwards.

Markdown and MathML of a prompt were most of a first view's cost, and every variant of a
template says the same words around different numbers. So the text is drawn once with a slot
in place of each live value (``LivePieces``: the author's literals, then the values), kept
under the literals themselves (the key names what it was drawn from), and each variant's page
gets its values put into the slots as text.

That is the same HTML as drawing the variant's own Markdown only when a value is inert where it
stands, so a text is drawn the slow way (``render_markdown_math`` of the whole text) unless:

- outside math, the value is words of letters, digits and ``space , . / ( ) % + -`` with no
  space at its end or two together; an edge that is not a letter or digit touches no character
  that emphasis, escapes, entities or links act on (so the text around reads it as it reads
  the slot's letters and digits); it does not stand in a link's address; and at a line's start
  it begins with a letter or digit and does not read as an ordered list's number ("3. ");
- inside math, the value is one number (its MathML alone is one ``<mn>``: digits, a point,
  grouping commas), with no digit, point or comma next to it (the math slot is a run of
  digits, read as one number in the same place);
- the drawn skeleton holds each slot exactly once and nothing else looks like one.

The skeleton passed the sanitizer when it was drawn, and what goes into a slot is letters,
digits and the few characters above, which cannot make markup, so the result is as safe as the
sanitizer's own output. `tests/quizzes/test_slotted.py` checks that every template of the bank
draws the same HTML either way over many seeds.
"""

from __future__ import annotations

import re
import secrets

from django.utils.safestring import SafeString, mark_safe

from content.expressions import LivePieces
from courseware import caching
from courseware.rendering import render_math
from quizzes.presenters.markup import render_markdown_math

# Random per process, so no author's text can hold a slot: letters for text, digits for math.
_TEXT_STEM = "zq" + secrets.token_hex(6).replace("0", "g") + "s"
_MATH_STEM = "".join(secrets.choice("123456789") for _ in range(9))
_INERT_TEXT = re.compile(r"[A-Za-z0-9 ,./()%+-]*[A-Za-z0-9.)%]")
# Next to a value that begins or ends with other than a letter or digit, these could read it
# differently from the slot's letters (emphasis runs, a backslash escape, an entity, a link).
_TOUCHY_BEFORE = "*_\\`&~<[]!("
_TOUCHY_AFTER = "*_`~(["
_DOUBLE_SPACE = re.compile(r"  ")
_ONE_NUMBER = re.compile(r"<math[^>]*>(?:<mrow>)?<mn>([0-9][0-9.,]*)</mn>(?:</mrow>)?</math>")
_NUMBER_LIKE = re.compile(r"[0-9][0-9.,]*")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# A line's start up to the value: blank or Markdown's block markers (a value there could be read
# as a list's number).
_LINE_START = re.compile(r"(?:^|\n)[ \t>*+#0-9.)-]*$")
_NEXT_TO_NUMBER = "0123456789.,"
_ENTITY_OPEN = re.compile(r"&#?[A-Za-z0-9]*$")
# What a value at a line's start must not begin with: an ordered list's number.
_LIST_NUMBER = re.compile(r"[0-9]+[.)](?:\s|$)")


def _text_slot(index: int) -> str:
    return f"{_TEXT_STEM}{index:03d}q"


def _math_slot(index: int) -> str:
    return f"{_MATH_STEM}{index:03d}"


def render(pieces: LivePieces) -> SafeString:
    """The HTML of ``pieces.text`` (``render_markdown_math``), from the template's skeleton
    when every value is inert where it stands."""
    fills = _fills(pieces)
    if fills is None:
        return render_markdown_math(pieces.text)
    flags = tuple(in_math for _value, in_math in pieces.values)
    skeleton = _skeleton(pieces.literals, flags)
    if skeleton is None or any(
        not fills[i][0].isalnum() or _LIST_NUMBER.match(fills[i] + pieces.literals[i + 1][:2])
        for i in skeleton[1]
    ):
        return render_markdown_math(pieces.text)
    parts = skeleton[0].split("\x00")
    out = [parts[0]]
    for index, tail in enumerate(parts[1:]):
        out += (fills[index], tail)
    # The skeleton is sanitized HTML and each fill is letters, digits and , . / ( ) % + - and
    # space (checked in _fills): nothing that can open or close markup.
    return mark_safe("".join(out))  # noqa: S308


def _fills(pieces: LivePieces) -> list[str] | None:
    """What goes into each slot, or None when a value is not inert where it stands."""
    fills = []
    for index, (value, in_math) in enumerate(pieces.values):
        before, after = pieces.literals[index], pieces.literals[index + 1]
        if in_math:
            number = _math_number(value)
            if number is None or not _apart_in_math(before, after):
                return None
            fills.append(number)
            continue
        if not _INERT_TEXT.fullmatch(value) or _DOUBLE_SPACE.search(value):
            return None
        if not value[0].isalnum() and before[-1:] and before[-1] in _TOUCHY_BEFORE:
            return None
        if not value[-1].isalnum() and after[:1] and after[0] in _TOUCHY_AFTER:
            return None
        fills.append(value)
    return fills


def _math_number(value: str) -> str | None:
    """The number a math value shows when its MathML is one ``<mn>``, else None."""
    if _DECIMAL.fullmatch(value):
        return value  # MathML reads a decimal as one <mn> (tests/quizzes/test_slotted.py)
    if not _NUMBER_LIKE.fullmatch(value.replace("{,}", ",")):
        return None
    match = _ONE_NUMBER.fullmatch(str(render_math(value)))
    return match.group(1) if match else None


def _apart_in_math(before: str, after: str) -> bool:
    """No digit, point or comma (nor a TeX ``{,}``) touches the value on either side."""
    if before.endswith("{,}") or after.startswith("{,}"):
        return False
    return (not before or before[-1] not in _NEXT_TO_NUMBER) and (
        not after or after[0] not in _NEXT_TO_NUMBER
    )


def _in_link_address(before: str) -> bool:
    line = before.rsplit("\n", 1)[-1]
    opened = max(line.rfind("]("), line.rfind("<"))
    return opened >= 0 and ")" not in line[opened:] and ">" not in line[opened:]


@caching.memoize(
    "question text skeletons (slotted)",
    max_bytes=8 * 1024 * 1024,
    why="a question's Markdown and MathML drawn once per template text, not once per variant",
)
def _skeleton(literals: tuple[str, ...], flags: tuple[bool, ...]) -> tuple[str, tuple] | None:
    """The HTML of the literals with a slot for each value, the slots marked by NUL (which
    sanitized HTML never holds), and which values begin a line; or None when the slots do not
    come through whole."""
    slots = [_math_slot(i) if in_math else _text_slot(i) for i, in_math in enumerate(flags)]
    source = [literals[0]]
    line_starts = []
    for index, (slot, literal, in_math) in enumerate(zip(slots, literals[1:], flags, strict=True)):
        written = "".join(source)
        if not in_math and (_in_link_address(written) or _ENTITY_OPEN.search(written)):
            return None  # a value in a link's address or a character reference is drawn whole
        if not in_math and _LINE_START.search(written):
            line_starts.append(index)  # could read as a list's number: checked per value
        source += (slot, literal)
    joined = "".join(literals)
    if _TEXT_STEM in joined or _MATH_STEM in joined or "\x00" in joined:
        return None
    html = str(render_markdown_math("".join(source)))
    if "\x00" in html:
        return None
    positions = [html.find(slot) for slot in slots]
    if any(html.count(slot) != 1 for slot in slots) or positions != sorted(positions):
        return None
    for slot in slots:
        html = html.replace(slot, "\x00")
    if _TEXT_STEM in html or _MATH_STEM in html:
        return None
    # In math the slot must be read as one number, alone in its <mn>.
    marks = html.split("\x00")
    for index, in_math in enumerate(flags):
        if in_math and not (marks[index].endswith("<mn>") and marks[index + 1].startswith("</mn>")):
            return None
    return html, tuple(line_starts)
