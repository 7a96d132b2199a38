"""A graded attempt's results page, its score card and questions memoised per process.

A graded attempt's results change only when a row they show is written (a regrade, an
override, a staff grade) or when what the release policy allows moves, and the whole class
opens the page at the same moment (an exam's deadline). So the score card and the question
sections are drawn once and kept under a digest of:

- the attempt's row, every field: its `page_stamp`, which every write to a row the page shows
  raises from the ORM itself (responses, variants, overrides, the quiz's items, the question
  versions: `quizzes/stamps.py`), its score, status and dates;
- the quiz's row (the answer release policy, the release of results, the late penalty), the
  student's dates (`QuizWindow`: an extension moves them) and what the release gate allows at
  this moment (`AnswerGate`: past the due date or not, another attempt possible): an instructor
  who moves a date or changes the policy changes the key, so no answer outlives it;
- the offering (its links), the language, the time zone, the URL conf, the templates' own
  source, the render caches' versions, the figure drawers and the live catalog's fingerprint.

Only a graded attempt whose results are released is kept; the sections hold no form, token or
clock, so what is kept is what was sent. Kept beside them, for the page's score notices
(`presenters.score_notices`): the notices of the attempt's overrides (an override raises the
stamp) and whether a regrade touched any of its responses (a regrade's writes raise it too);
only then does the page read the offering's applied regrades, on every request, outside the
memo (a run is marked applied after its last batch, which may be after this attempt's).

The same store keeps the progress of an attempt being graded (`grading_progress`), under its
attempt's row alone.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation

from courseware import caching
from quizzes import engine
from quizzes.presenters import display, figures, fragments
from quizzes.presenters import progress as progress_data
from quizzes.presenters.results import override_notes, result_items
from quizzes.presenters.score_notices import override_notices
from quizzes.services import grading_run
from quizzes.services.attempt_rows import attempt_rows, overrides_by_attempt

RESULTS_VERSION = 2
PAGE = "quizzes/attempt_results.html"
# The templates the two sections draw beside the kinds' own (`fragments.templates_digest`).
_TEMPLATES = (
    PAGE,
    "quizzes/_result_block.html",
    "quizzes/_result.html",
    "quizzes/_override_note.html",
    "quizzes/_question_figure.html",
)
# An 8-question exam's sections are about 60 kB of text (MathML: 2 bytes a character).
_memo = caching.local_cache(
    "results pages (results_memo)",
    max_bytes=32 * 1024 * 1024,
    why="the graded results page within 5x the floor at an exam's deadline (docs/BENCHMARKS.md)",
)


@lru_cache(maxsize=1)
def _templates_digest() -> str:
    return fragments.source_digest(_TEMPLATES) + fragments.templates_digest()


def _row(instance) -> tuple:
    return tuple((f.attname, f.value_from_object(instance)) for f in instance._meta.concrete_fields)


def key(request, attempt, *, window, gate) -> str:
    offering = getattr(request, "offering", None)
    facts = (
        RESULTS_VERSION,
        display.RENDER_CACHE_VERSION,
        _templates_digest(),
        figures.drawing_digest(),
        engine.catalog_digest(None),
        translation.get_language(),
        timezone.get_current_timezone_name(),
        getattr(request, "account_zone", None),
        getattr(request, "urlconf", None) or settings.ROOT_URLCONF,
        settings.DEBUG,
        request.user.pk,
        _row(offering) if offering is not None else None,
        _row(attempt),
        _row(attempt.quiz),
        repr(window),
        repr(gate),
    )
    return "results:" + hashlib.sha256(repr(facts).encode()).hexdigest()


def graded_sections(request, attempt, *, window, gate) -> dict:
    """The score card's and the questions' HTML of a graded, released attempt (memoised),
    whether they hold a roofline chart (the page then loads the chart's style sheet), the
    notices of its overrides and whether a regrade touched it (`score_notices`)."""
    memo_key = key(request, attempt, window=window, gate=gate)
    kept = _memo.get(memo_key)
    if kept is not None:
        return kept
    rows = attempt_rows(attempt)
    overrides = overrides_by_attempt([attempt]).get(attempt.pk, [])
    notes = override_notes([attempt], {attempt.pk: overrides})[attempt.pk]
    items = result_items(attempt, notes, gate=gate, rows=rows)
    charts = progress_data.roofline_charts([item.block for item in items])
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "window": window,
        "items": items,
        "score": progress_data.attempt_score(attempt),
        "override": notes.attempt,
        "charts": charts,
    }
    drawn = {
        "score_card": render_to_string(f"{PAGE}#score_card", context, request),
        "questions": render_to_string(f"{PAGE}#questions", context, request),
        "charts": bool(charts),
        "override_notices": tuple(override_notices(attempt, overrides)),
        "regraded": any(
            response.regraded_at is not None
            for responses in rows.responses.values()
            for response in responses
        ),
    }
    _memo.set(memo_key, drawn)
    return drawn


def grading_progress(attempt) -> list[str]:
    """`grading_run.progress` of an attempt being graded, kept under its attempt's row.

    Its student's page polls it every 2 s while the task worker grades, and the states change
    only when a question's grades are stored: those responses raise the attempt's
    `page_stamp`, as do its variants and saved answers (`quizzes/stamps.py`), and the row's
    every field is in the key (the questions' order, whether it is still being graded)."""
    memo_key = "progress:" + hashlib.sha256(repr(_row(attempt)).encode()).hexdigest()
    kept = _memo.get(memo_key)
    if kept is None:
        kept = tuple(grading_run.progress(attempt))
        _memo.set(memo_key, kept)
    return list(kept)


def clear() -> None:
    _memo.clear()
