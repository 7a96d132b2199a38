"""A fresh question section drawn once per template version, its values put in per view.

A first view of an attempt drew every question section through Django's templates: the
section memo (`presenters.fragments`) is keyed on the attempt's own rows, so a new attempt finds
nothing there. But a *fresh* section (no result, hint, correct answer or worked solution shown
yet, nothing picked in its inputs) of one template version differs from another student's only
in a few values: the variant's texts (its prompt, the parts' prompts, the figure, the options'
opaque names, a kind's plain-text facts such as a unit hint), the ids and links made from the
attempt's and the variant's keys, the question's number, and what the student typed (saved
text and how it will be read). So such a section is drawn once with a slot in place of each of
those values and kept under everything else it reads (`_shape`: the template version, the
templates' own source, the language, and every other value the section shows); each view puts
its own values into the slots exactly as the template writes a value
(`render_value_in_context`: escaped unless it is HTML our renderers made safe), and the
request's CSRF token and form keys into `fragments`' placeholders.

Why this is the same page:

- A slot's value is one the section's templates write only as `{{ value }}`
  (`tests/quizzes/test_skeleton_slot_scan.py` reads the templates for it). An empty value is
  not slotted (the templates test some for emptiness), so emptiness is part of the key.
- The slot markers are `fragments.MARK` (random per process, never sent) with an upper-case
  letter, so a filter that changes case or a tag that parses them breaks the marker, and the
  check below refuses the skeleton.
- The first skeleton of every key is checked against the section it was drawn for: filled with
  that section's values it must give that section's HTML byte for byte, or the key is
  remembered as refused and its sections are drawn (and memoised) as before.
  `tests/quizzes/test_section_skeleton.py` draws every template of the bank, homework and exam,
  both ways at several seeds.

Why this shows no student another's work: a skeleton holds no student's text (their saved
text and its read-back are slots, filled per view from their own rows), a section whose input
shows picked options, an order or a point is not drawn from a skeleton, and a skeleton of a
section with a result, a hint, an answer or a solution is never made. What goes into a slot is
written after the skeleton was split at its markers, so nothing a student sends is read as a
marker, a template or markup.

The key follows the facility's one rule (`courseware.caching`): it names what the skeleton was
drawn from, so a new template version, a changed template file or another language looks
under another key and an old skeleton is only ever evicted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from django.template.base import render_value_in_context
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from quizzes.presenters import figures, fragments

# Bump when the shape below changes.
SKELETON_VERSION = 1
# Skeletons are kept in the section memo's store (`fragments`, shared between servers, 32 MB
# here) under keys of their own; these two markers stay in this process only.
_REFUSED = ("", "")  # its skeleton did not give back its own section: drawn as before
# Seen once: the skeleton is drawn (and checked) the second time, so a shape no other section
# shares (a roofline's numbers are part of its key) is not drawn twice for nothing.
_SEEN = ("", "seen")


def fresh(block) -> bool:
    """Whether `block`'s section shows nothing but the question, empty or typed inputs and
    the student's own saved text: no result, hint, correct answer, solution or error, no
    option picked, no new-numbers form."""
    if block.error or block.question is None or block.hints or block.solution:
        return False
    if block.can_ask_new_numbers:
        return False
    for p in block.parts:
        if p.answer_html or p.hints:
            return False
        if p.show_result and (p.result is not None or p.newer_invalid is not None):
            return False
        if p.current and not isinstance(p.current, str):
            return False  # picked options, an order, a point: drawn as before
    return True


class _Slots:
    """The values taken out of a section, in order; each leaves a marker in its place."""

    def __init__(self):
        self.values: list = []

    def put(self, value):
        if value is None or value == "":
            return value
        self.values.append(value)
        return f"{fragments.MARK}S{len(self.values) - 1}_"


@dataclass
class _VariantIn:
    """What the section reads of the variant row, its key a slot."""

    pk: str
    item: object
    index: int
    is_practice: bool
    attempt: object


def _view_in(view, number: int, slots: _Slots):
    return replace(
        view,
        prompt_html=slots.put(view.prompt_html),
        lists={
            name: [replace(option, token=slots.put(option.token)) for option in items]
            for name, items in view.lists.items()
        },
        facts={k: slots.put(v) if isinstance(v, str) else v for k, v in view.facts.items()},
        idempotency_key=f"{fragments.MARK}k{number}_",
    )


def _part_in(p, view, slots: _Slots):
    stand_in = replace(
        p,
        view=view,
        saved="",
        dom=slots.put(p.dom),
        check_url=slots.put(p.check_url),
        autosave_url=slots.put(p.autosave_url),
        preview_url=slots.put(p.preview_url),
        save_message=slots.put(p.save_message),
    )
    stand_in.__dict__["next_sequence"] = slots.put(p.next_sequence)
    current = p.current
    # What the input shows: typed text is a slot; nothing picked (fresh) stays as it is.
    stand_in.__dict__["current"] = slots.put(current) if isinstance(current, str) else current
    stand_in.__dict__["value"] = ""
    stand_in.__dict__["result"] = None
    stand_in.__dict__["newer_invalid"] = None
    return stand_in


def _block_in(block, slots: _Slots):
    variant = block.variant
    number = slots.put(block.number)
    views = [_view_in(p.view, n, slots) for n, p in enumerate(block.parts)]
    parts = [_part_in(p, view, slots) for p, view in zip(block.parts, views, strict=True)]
    question = replace(
        block.question,
        prompt_html=slots.put(block.question.prompt_html),
        figure_html=slots.put(block.question.figure_html),
        parts=views,
    )
    stand_in = _VariantIn(
        slots.put(variant.pk), variant.item, variant.index, variant.is_practice, variant.attempt
    )
    return replace(block, number=number, variant=stand_in, question=question, parts=parts)


def _option_shape(option) -> tuple:
    return (option.id, str(option.html), option.token)


def _part_shape(p) -> tuple:
    view = p.view
    return (
        view.id,
        view.kind,
        str(view.prompt_html),
        tuple((name, tuple(map(_option_shape, items))) for name, items in view.lists.items()),
        repr(sorted(view.facts.items())),
        p.number,
        p.label,
        p.dom,
        p.is_final,
        p.check_url,
        p.autosave_url,
        p.preview_url,
        p.save_state,
        p.save_message,
        p.next_sequence,
        p.state.tries_left,
        p.show_result,
        repr(p.current),
        p.input_name,
        p.max_length,
    )


def _shape(block, attempt, version) -> tuple:
    """Everything a fresh section reads, its slots as their markers (`block` is the stand-in)."""
    question = block.question
    return (
        SKELETON_VERSION,
        fragments.FRAGMENT_VERSION,
        fragments.templates_digest(),
        figures.drawing_digest(),
        translation.get_language(),
        version.pk,
        version.content_hash,
        attempt.quiz.is_exam,
        attempt.is_open,
        block.number,
        block.anchor,
        block.variant.pk,
        block.variant.index,
        block.variant.is_practice,
        str(block.variant.item.points),
        question.title,
        str(question.prompt_html),
        str(question.figure_html),
        block.can_ask_new_numbers,
        block.new_numbers_counts,
        tuple(_part_shape(p) for p in block.parts),
    )


def fill(entry: tuple[str, str], csrf: str, keys: list[str], values: list[str]) -> SafeString:
    """The skeleton's HTML with `<mark>c` as the CSRF token, `<mark>k<n>_` as part n's form key
    and `<mark>S<n>_` as slot n's value written out (a plain split: values are never read)."""
    mark, html = entry
    first, *rest = html.split(mark)
    out = [first]
    for piece in rest:
        tag = piece[:1]
        if tag == "c":
            out += (csrf, piece[1:])
            continue
        number, sep, tail = piece[1:].partition("_")
        if not sep or not number.isdigit():
            raise ValueError("not a marker this module writes")
        if tag == "k":
            out += (keys[int(number)], tail)
        elif tag == "S":
            out += (values[int(number)], tail)
        else:
            raise ValueError("not a marker this module writes")
    return mark_safe("".join(out))  # noqa: S308 - our templates' output and escaped values


def _key(stand_in, attempt, version) -> str:
    # The markers' stem is this process's: left out, so every server finds the same key.
    facts = repr(_shape(stand_in, attempt, version)).replace(fragments.MARK, "").encode()
    return f"quizzes:skeleton:{hashlib.sha256(facts).hexdigest()}"


def key_of(block, attempt) -> str:
    """The skeleton key of `block`'s fresh section on `attempt`'s page."""
    return _key(_block_in(block, _Slots()), attempt, block.variant.version)


def render(block, context, draw, csrf: str, keys: list[str]) -> SafeString | None:
    """The fresh section of `block` from its skeleton, or None: the caller draws it then (the
    first section of a key; a key whose skeleton was refused). The second section of a key
    draws the skeleton, checks it against its own drawing and returns that drawing."""
    attempt = context["attempt"]
    slots = _Slots()
    stand_in = _block_in(block, slots)
    key = _key(stand_in, attempt, block.variant.version)
    store = fragments.sections()
    entry = store.get(key)
    if entry is None:
        store.local.set(key, _SEEN)
        return None
    if entry == _REFUSED:
        return None
    values = [render_value_in_context(value, context) for value in slots.values]
    if entry != _SEEN:
        try:
            return fill(entry, csrf, keys, values)
        except (IndexError, ValueError):
            return None
    real = draw()
    try:
        with context.push(block=stand_in, csrf_token=f"{fragments.MARK}c"):
            entry = (fragments.MARK, str(draw()))
        same = fill(entry, csrf, keys, values) == str(real)
    except Exception:  # noqa: BLE001 - a tag that cannot draw a marker: no skeleton
        same = False
    if same:
        store.set(key, entry)
    else:
        store.local.set(key, _REFUSED)
    return real


def render_section(block, context, draw) -> SafeString | str:
    """`draw()` of one question section: a fresh one from its skeleton where it has one, any
    other as `fragments.render_section` draws or serves it."""
    tokens = fragments.plain_tokens(block, context)
    if tokens is not None:
        try:
            html = render(block, context, draw, *tokens) if fresh(block) else None
        except Exception:  # noqa: BLE001 - a section that cannot be slotted is simply drawn
            html = None
        if html is not None:
            return html
    return fragments.render_section(block, context, draw)
