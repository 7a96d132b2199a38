"""A student's whole attempt page, memoised per process on everything it shows.

A student reloads the same attempt page again and again with nothing changed, and drawing it
costs the attempt's variants and responses (two or three queries and their decoding) and the
page's templates. So a drawn page is kept under a digest of:

- the attempt's row, every field, its `page_stamp` among them: every write to a row the page
  shows (responses, saved answers, variants, overrides, the quiz's items, the question
  versions) raises that stamp in its own transaction, from the ORM itself (`quizzes/stamps.py`),
  and a full save of the row moves `last_activity_at`;
- the quiz's row, every field (titles, tries, modes, dates, the answer release policy);
- the student's dates (their extension applied), what the release policy allows at this
  moment (`AnswerGate`: past the due date or not, submitted, another attempt possible) and the
  quiz window's refusal now (closed, not open yet): the time-based facts, read on every request;
- the user (id, name, whether they have a password), the offering (and its course) and their
  role in it, and every offering of theirs with their role (the header's offering switcher);
- the language, the time zone, the URL conf, the debug flag, the templates' own source and the
  render caches' versions, the live catalog's fingerprint.

A page with flash messages queued is never served from the memo nor kept (it shows them once).
What differs on every request is never kept: the page is stored with placeholders in place of
its CSRF token, of each part's form key and of the exam timer's server clock, and the request's
own token, fresh keys and the clock now are put in on the way out (`fragments.fill`: only
plain letters and digits). The memo lives in this process only, bounded in bytes: a deploy
starts it empty, and no other process or user can read it. Nothing is kept that the page did
not show its own student.

The same store keeps the results page of an attempt being graded (`grading_page_key`), which
its student's browser reloads while the task worker grades.
"""

from __future__ import annotations

import hashlib
import uuid
from functools import lru_cache

from django.conf import settings
from django.contrib.messages import get_messages
from django.middleware.csrf import get_token
from django.utils import timezone, translation

from courseware import caching
from courseware.roles import enrollments_of
from quizzes import engine
from quizzes.presenters import display, fragments

PAGE_VERSION = 1
# A homework attempt page counts about 100 kB (60,000 characters; MathML's non-ASCII ones make
# Python keep the text at 2 bytes each): some 650 pages a worker (docs/BENCHMARKS.md).
_memo = caching.local_cache(
    "attempt pages (page_memo)",
    max_bytes=64 * 1024 * 1024,
    why="the warm attempt page at about 2x the floor instead of 6-7x (docs/BENCHMARKS.md)",
)
_PAGE_TEMPLATES = ("base.html", "quizzes/base.html")


@lru_cache(maxsize=1)
def _layout_digest() -> str:
    """The layouts around the sections (`fragments.templates_digest` has the sections')."""
    return fragments.source_digest(_PAGE_TEMPLATES)


def _row(instance) -> tuple:
    return tuple((f.attname, f.value_from_object(instance)) for f in instance._meta.concrete_fields)


def page_key(request, attempt, *, window, gate, refusal) -> str | None:
    """The memo key of this request's attempt page, or None when it must be drawn afresh."""
    user = request.user
    if request.method != "GET" or getattr(request, "htmx", False) or not user.is_authenticated:
        return None
    if len(get_messages(request)):
        return None  # a page with messages shows them once: drawn, never kept
    offering = getattr(request, "offering", None)
    course = getattr(request, "course", None)
    facts = (
        PAGE_VERSION,
        fragments.FRAGMENT_VERSION,
        display.RENDER_CACHE_VERSION,
        fragments.templates_digest(),
        _layout_digest(),
        engine.catalog_digest(None),
        translation.get_language(),
        timezone.get_current_timezone_name(),
        # The page's body says whose zone it is and whether the browser may change it.
        getattr(request, "account_zone", None),
        getattr(request, "zone_mode", None),
        getattr(request, "urlconf", None) or settings.ROOT_URLCONF,
        settings.DEBUG,
        request.get_full_path(),
        (user.pk, user.get_username(), user.get_full_name(), user.has_usable_password()),
        _row(offering) if offering is not None else None,
        _row(course) if course is not None else None,
        getattr(request, "offering_role", None),
        _switcher(user),
        _row(attempt),
        _row(attempt.quiz),
        repr(window),
        repr(gate),
        refusal,
    )
    return "page:" + hashlib.sha256(repr(facts).encode()).hexdigest()


@lru_cache(maxsize=1)
def _grading_page_digest() -> str:
    return fragments.source_digest(("quizzes/attempt_results.html", "quizzes/_grading_status.html"))


def grading_page_key(request, attempt, *, window, released: bool) -> str | None:
    """The memo key of the results page of an attempt being graded, or None when it must be
    drawn afresh. Its questions' progress is drawn from rows that raise the attempt's
    `page_stamp` (the stored grades), and it shows no score, answer or solution: the key is
    the attempt page's facts for this request (its address among them), whether results are
    released now, and the page's own templates."""
    key = page_key(request, attempt, window=window, gate=None, refusal=None)
    if key is None:
        return None
    facts = (key, released, _grading_page_digest())
    return "grading:" + hashlib.sha256(repr(facts).encode()).hexdigest()


def _switcher(user) -> tuple:
    """The offerings the header lists, as the page draws them (the enrolments the view's role
    check already read: no query)."""
    return tuple(
        (e.role, e.offering.slug, e.offering.title, e.offering.term, e.offering.is_archived)
        for e in enrollments_of(user)
    )


def served(request, key: str | None):
    """The memoised page's HTML for `key` with this request's CSRF token and fresh form keys,
    or None."""
    if key is None:
        return None
    entry = _memo.get(key)
    if entry is None:
        return None
    mark, html, count = entry
    try:
        return fragments.fill((mark, html), get_token(request), _keys(count), server_now())
    except (IndexError, ValueError):
        return None


def server_now() -> str:
    """The exam timer's server clock (seconds): put in on every request, never kept."""
    return str(int(timezone.now().timestamp()))


def _keys(count: int) -> list[str]:
    return [uuid.uuid4().hex for _ in range(count)]


def keep(key: str | None, html: str, csrf: str, keys: list[str], now: str) -> None:
    """Remember a page drawn for `key` with `csrf`, form `keys` and the server clock `now`
    (the timer's `data-server-now`), as placeholders."""
    mark = fragments.MARK
    if key is None or mark in html or len(set(keys)) != len(keys) or csrf in keys:
        return
    if csrf not in html:
        return  # a page drawn with another token than the one it would be served with
    clock = f'data-server-now="{now}"'
    stored = html.replace(clock, f'data-server-now="{mark}t"').replace(csrf, f"{mark}c")
    for number, form_key in enumerate(keys):
        stored = stored.replace(form_key, f"{mark}k{number}_")
    try:  # what is kept must give back exactly what was sent
        if fragments.fill((mark, stored), csrf, keys, now) != html:
            return
    except (IndexError, ValueError):
        return
    _memo.add(key, (mark, stored, len(keys)))


def clear() -> None:
    _memo.clear()
