"""The attempt page's question sections as HTML, memoised on everything each one shows.

Django's template engine drawing about twenty parts (their inputs, results and forms) was most
of the page's time, and a student reloads the same page over and over with nothing changed. So
each question's section is rendered once and kept under a digest of every value the section's
templates read: the attempt and its student, the variant, its prompt, each part's state,
saved answer, last result with its feedback and "read as", tries left, the correct answer and
hints the release policy allows now, the worked solution, the language and the templates'
own source. Anything that changes what a section shows (a new try, a regrade, an override, a
release, a new template version, a catalog change) changes the digest, so a stale entry is
never found again, only evicted.

Two things differ on every request and are never kept: the CSRF token and each part's form key.
The section is rendered with unguessable placeholders in their place and the request's values
are put in on the way out. An entry that is not what this module wrote (a damaged or foreign
cache value) is ignored and the section is rendered afresh.

A fresh section (nothing shown yet but the question and the student's typed text, as on a first
view) comes from its template version's skeleton instead (`presenters.skeletons`), kept in this
module's store under keys of its own.

Keep `_block_facts` (and `skeletons._shape` with its slots) in step with the section in
`templates/quizzes/attempt_detail.html`: a value the section reads that is not in the digest
would be served stale.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from django.template import loader
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from courseware import caching
from quizzes.engine import kinds
from quizzes.presenters import display, figures

# Bump when the facts below change shape.
FRAGMENT_VERSION = 2
FRAGMENT_SECONDS = 24 * 3600

# The placeholders' stem: random per process and never sent (every occurrence is replaced), so
# no text a student types can imitate one.
MARK = secrets.token_hex(16)
# Context values only the htmx fragments set; a section rendered with them is never kept.
_FRAGMENT_ONLY = ("error", "closed", "oob", "save_status", "save_message")
_TEMPLATES = (
    "quizzes/attempt_detail.html",
    "quizzes/_answer_input.html",
    "quizzes/_result.html",
    "quizzes/_part_name.html",
    "quizzes/_question_figure.html",
)


def source_digest(names) -> str:
    """A digest of these templates' own source files (names in order)."""
    digest = hashlib.sha256()
    for name in names:
        origin = loader.get_template(name).origin.name
        digest.update(name.encode() + b"\0" + Path(origin).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def templates_digest() -> str:
    """The section's templates' own source, so a changed template is never served old HTML."""
    names = [
        name
        for kind in kinds.all_kinds()
        for name in (kind.input_template, kind.submitted_template, kind.answer_template)
    ]
    return source_digest(list(_TEMPLATES) + sorted(names))


def _result_facts(result) -> tuple:
    if result is None:
        return ()
    return (
        result.response.pk,
        result.status,
        result.try_number,
        result.raw,
        str(result.feedback_html),
        str(result.read_as_html),
        str(result.counterexample_html),
    )


def _part_facts(p) -> tuple:
    view = p.view
    return (
        view.id,
        view.kind,
        p.number,
        p.label,
        p.dom,
        p.is_final,
        p.check_url,
        p.autosave_url,
        p.preview_url,
        p.save_state,
        p.save_message,
        p.save_sequence,
        p.state.tries_left,
        p.show_result,
        _result_facts(p.result) if p.show_result else (),
        _result_facts(p.newer_invalid) if p.show_result else (),
        str(p.answer_html),
        tuple(str(hint) for hint in p.hints),
        p.value,
        repr(p.current),
        p.input_name,
        p.max_length,
    )


def _block_facts(block, attempt) -> tuple:
    variant = block.variant
    question = block.question
    return (
        FRAGMENT_VERSION,
        templates_digest(),
        translation.get_language(),
        attempt.pk,
        attempt.student_id,
        attempt.quiz.mode,
        attempt.is_open,
        block.number,
        block.anchor,
        block.error,
        variant.pk,
        variant.attempt_id,
        variant.index,
        variant.is_practice,
        str(variant.item.points),
        question.title if question else "",
        # The prompt, parts, options and unit hints: the question view's own cache key (it is
        # rendered from that and nothing else) rather than kilobytes of its HTML.
        display.RENDER_CACHE_VERSION,
        display.render_key(variant) if question else "",
        figures.drawing_digest(),
        tuple(str(hint) for hint in block.hints),
        str(block.solution),
        block.can_ask_new_numbers,
        block.new_numbers_counts,
        len(block.parts),
        tuple(_part_facts(p) for p in block.parts),
    )


def block_key(block, attempt) -> str | None:
    """The section's memo key, or None when something it shows holds this process's marker
    (text a student typed could, were the marker known): such a section is drawn, not kept."""
    facts = repr(_block_facts(block, attempt))
    if MARK in facts:
        return None
    return f"quizzes:section:{hashlib.sha256(facts.encode()).hexdigest()}"


def _valid(entry) -> bool:
    return (
        isinstance(entry, tuple)
        and len(entry) == 2
        and all(isinstance(x, str) for x in entry)
        and len(entry[0]) == len(MARK)
        and all(c in "0123456789abcdef" for c in entry[0])
    )


# Shared between servers (Django's cache) and kept here too; an entry is a few kB of HTML.
_sections = caching.Layered(
    "attempt page sections (fragments)",
    max_bytes=32 * 1024 * 1024,
    version=FRAGMENT_VERSION,
    seconds=FRAGMENT_SECONDS,
    why="an attempt page after a change (page memo missed) redraws only the changed question",
    valid=_valid,
)


_local = _sections.local  # this process's copies (the tests look at their keys)


def clear_local_cache() -> None:
    _local.clear()


# What may be put back into a memoised section: Django's CSRF tokens and the form keys are
# letters and digits, so the joined HTML is our templates' escaped output and nothing else.
_PLAIN = re.compile(r"[A-Za-z0-9]{1,128}")


def fill(entry: tuple[str, str], csrf: str, keys: list[str], now: str | None = None) -> SafeString:
    """The entry's HTML with each placeholder replaced: `<mark>c` by the CSRF token,
    `<mark>k<n>_` by part n's form key and (a whole page, `page_memo`) `<mark>t` by the
    server's clock in seconds (a plain split: a pattern search costs more)."""
    if not _PLAIN.fullmatch(csrf) or not all(_PLAIN.fullmatch(key) for key in keys):
        raise ValueError("only plain tokens are put back into a memoised section")
    if now is not None and not now.isdigit():
        raise ValueError("the clock is put back as digits only")
    mark, html = entry
    first, *rest = html.split(mark)
    out = [first]
    for piece in rest:
        if piece[:1] == "c":
            out += (csrf, piece[1:])
            continue
        if piece[:1] == "t" and now is not None:
            out += (now, piece[1:])
            continue
        number, sep, tail = piece[1:].partition("_")
        if piece[:1] != "k" or not sep or not number.isdigit():
            raise ValueError("not a placeholder this module writes")
        out += (keys[int(number)], tail)
    return mark_safe("".join(out))  # noqa: S308 - rendered by our own templates


def sections() -> caching.Layered:
    """The sections' store: `presenters.skeletons` keeps a fresh section's skeleton there too."""
    return _sections


def plain_tokens(block, context) -> tuple[str, list[str]] | None:
    """(the CSRF token, the parts' form keys) of a section that may come from a memo, or None:
    an htmx fragment's (never kept), a page without an attempt or token, or tokens that are not
    plain letters and digits (never with Django's; the template escapes them then)."""
    attempt = context.get("attempt")
    token = context.get("csrf_token")
    if attempt is None or not token or any(context.get(name) for name in _FRAGMENT_ONLY):
        return None
    csrf = str(token)
    keys = [p.view.idempotency_key for p in block.parts]
    if not _PLAIN.fullmatch(csrf) or not all(_PLAIN.fullmatch(k or "") for k in keys):
        return None
    return csrf, keys


def render_section(block, context, render: Callable[[], str]) -> SafeString | str:
    """`render()` of one question section, or its memoised HTML with this request's CSRF token
    and form keys."""
    try:
        tokens = plain_tokens(block, context)
        key = block_key(block, context["attempt"]) if tokens is not None else None
    except Exception:  # noqa: BLE001 - a section that cannot be keyed is simply drawn
        return render()
    if tokens is None or key is None:
        return render()
    csrf, keys = tokens
    entry = _sections.get(key)
    if entry is not None:
        try:
            return fill(entry, csrf, keys)
        except (IndexError, ValueError):
            pass  # an entry with placeholders this section does not have: draw it again
    for number, part in enumerate(block.parts):
        part.view.idempotency_key = f"{MARK}k{number}_"
    try:
        with context.push(csrf_token=f"{MARK}c"):
            html = str(render())
    finally:
        for part, real in zip(block.parts, keys, strict=True):
            part.view.idempotency_key = real
    entry = (MARK, html)
    _sections.set(key, entry)
    return fill(entry, csrf, keys)


# The names the attack tests were written against.
_MARK, _fill = MARK, fill
