"""What each cache on the student's path buys: every page with one cache turned off, side by side.

`djangoside cachecost`: one process times the floor and the student's pages round after round in
a shuffled order, each page once with every cache on and once with each cache off in turn
(`OFF`: the cache's function replaced by what it memoises, for that one request only, so the
machine's other tenants slow the cache's "on" and "off" alike). A page's figure is its multiple
of the floor within a block (median over median), as `bench.ratios` takes it; the result is the
median and interquartile range over the blocks, per page and cache.

The pages: the warm homework attempt (the whole-page memo serves it), the homework and exam
attempts right after a change (the attempt's `page_stamp` raised before each request, untimed:
the whole-page memo misses, as after every answer, and the caches below it are what is left),
and a chapter page (the site's course).
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import F
from django.test import Client

from bench.ratios import _answer_some, _attempt, _once
from bench.stats import percentile

STUDENT = "bench-cache-student"
PAGES = ("homework attempt", "homework attempt, after a change", "exam attempt, after a change")
WARM_UP_ROUNDS = 3


def _swap(module, name: str, value) -> Callable[[], None]:
    old = getattr(module, name)
    setattr(module, name, value)
    return lambda: setattr(module, name, old)


def _unwrapped(module, *names: str) -> Callable[[], None]:
    undo = [_swap(module, name, getattr(module, name).__wrapped__) for name in names]
    return lambda: [u() for u in undo]


def _page_memo():
    from quizzes.presenters import page_memo

    undo = [_swap(page_memo, "served", lambda request, key: None)]
    undo.append(_swap(page_memo, "keep", lambda *args, **kwargs: None))
    return lambda: [u() for u in undo]


def _section_memo():
    from quizzes.presenters import fragments

    return _swap(fragments, "render_section", lambda block, context, render: render())


def _render_cache():
    from quizzes.presenters import display

    return _swap(display, "_cached", lambda what, row, build, *extra: build())


def _saved_states():
    from quizzes.presenters import attempt
    from quizzes.services import questions

    return _swap(attempt, "saved_state", questions.saved_state)


def _html_memos():
    from quizzes.engine.kinds import formula
    from quizzes.presenters import student_parts
    from quizzes.templatetags import kinds

    undo = [
        _unwrapped(student_parts, "_feedback_html"),
        _unwrapped(kinds, "_math"),
        _unwrapped(formula, "formula_latex", "simplified_latex"),
    ]
    return lambda: [u() for u in undo]


def _parsed_templates():
    from quizzes.services import questions

    return _unwrapped(questions, "_parsed")


def _course_cache():
    from courseware import roles

    return _swap(roles, "COURSE_TTL_SECONDS", -1.0)


# Each cache's "off": install, time one request, undo.
OFF: dict[str, Callable[[], Callable[[], None]]] = {
    "whole-page memo (page_memo)": _page_memo,
    "section memo (fragments)": _section_memo,
    "render cache (display)": _render_cache,
    "saved-state read-backs (student_parts)": _saved_states,
    "feedback, math and formula HTML lru_caches": _html_memos,
    "parsed templates lru_cache (questions)": _parsed_templates,
    "site course (roles)": _course_cache,
}


class Page:
    """A page to time: a client, its URL and, for "after a change", the attempt to touch."""

    def __init__(self, client: Client, url: str, attempt=None):
        self.client, self.url, self.attempt = client, url, attempt

    def next(self):
        if self.attempt is not None:
            type(self.attempt).objects.filter(pk=self.attempt.pk).update(
                page_stamp=F("page_stamp") + 1
            )
        return self.client, self.url


def _setup() -> dict[str, object]:
    from bench.djangoside import bench_offering, make_quiz
    from courseware.models import Chapter, Enrollment, Role

    offering = bench_offering()
    user, _ = get_user_model().objects.get_or_create(username=STUDENT)
    Enrollment.objects.get_or_create(user=user, offering=offering, defaults={"role": Role.STUDENT})
    homework = _attempt(make_quiz(offering, "bench-homework", mode="homework", tries=50), user)
    exam = _attempt(make_quiz(offering, "bench-exam-ratios", mode="exam"), user)
    for attempt in (homework, exam):
        if not attempt.variants.filter(responses__isnull=False).exists():
            _answer_some(attempt, user)
    chapter = Chapter.objects.for_course(offering.course).order_by("part__number", "order").first()
    client = Client()
    client.force_login(user)
    return {
        "floor": (client, "/bench-floor/"),
        "homework attempt": (client, homework.get_absolute_url()),
        "homework attempt, after a change": Page(client, homework.get_absolute_url(), homework),
        "exam attempt, after a change": Page(client, exam.get_absolute_url(), exam),
        "chapter page": (client, chapter.get_absolute_url()),
    }


def _timed(page, off: Callable[[], Callable[[], None]] | None) -> tuple[float, int]:
    if isinstance(page, Page):
        page = page.next()
    undo = off() if off is not None else None
    try:
        elapsed, count, _size = _once(page)
    finally:
        if undo is not None:
            undo()
    return elapsed * 1000, count


def run(args) -> dict:
    settings.ROOT_URLCONF = "bench.urls"
    pages = _setup()
    names = [*PAGES, "chapter page"]
    cases = [("floor", None)] + [(page, None) for page in names]
    cases += [(page, cache) for page in names for cache in OFF]
    for _ in range(WARM_UP_ROUNDS):
        for page, cache in cases:
            _timed(pages[page], OFF.get(cache))
    blocks, rounds = max(4, args.repeat), 5
    ratios: dict[tuple, list[float]] = {case: [] for case in cases}
    times: dict[tuple, list[float]] = {case: [] for case in cases}
    queries: dict[tuple, int] = {}
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S")
    for _ in range(blocks):
        block: dict[tuple, list[float]] = {case: [] for case in cases}
        for _ in range(rounds):
            random.shuffle(cases)
            for case in cases:
                elapsed, count = _timed(pages[case[0]], OFF.get(case[1]))
                block[case].append(elapsed)
                queries[case] = count
        floor = percentile(block[("floor", None)], 50)
        for case in cases:
            times[case] += block[case]
            ratios[case].append(percentile(block[case], 50) / floor)
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "commit": commit,
        "started": started,
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "blocks": blocks,
        "rounds": rounds,
        "cases": [
            {
                "page": page,
                "off": cache,
                "median_ms": percentile(times[(page, cache)], 50),
                "ratio": percentile(ratios[(page, cache)], 50),
                "ratio_p25": percentile(ratios[(page, cache)], 25),
                "ratio_p75": percentile(ratios[(page, cache)], 75),
                "queries": queries[(page, cache)],
            }
            for page, cache in sorted(cases, key=lambda c: (c[0], c[1] or ""))
        ],
    }
