"""A worker's memory with every cache of `courseware.caching` full: RSS before and after.

`djangoside cachefill`: one process draws the bench's real pages and values once (an attempt
page, its sections, a question view, a parsed template, feedback, formula MathML, an exam
read-back), then stores distinct copies of each under new keys, the way a term of students
fills a worker, until every cache has evicted its whole bound twice over. It reports the
process's resident memory (VmRSS) before and after, each cache's bytes as counted and its
bound, so the docs can state what a worker holds at most.
"""

from __future__ import annotations

import copy
import gc
import time

from django.conf import settings


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _fill(store, make, passes: int = 2) -> int:
    """Store `make(n)` under new keys until `passes` times the bound has gone through."""
    number, stored = 0, 0
    while stored < passes * store.bound.max_bytes:
        key, value = make(number)
        store.set(key, value)
        stored += max(1, store._sizeof(value))  # noqa: SLF001 - what the cache counts
        number += 1
    return number


def _results_sections() -> str:
    """A graded exam's results page as the ratios bench draws it (what the results memo
    keeps: its score card and questions are most of it)."""
    from django.test import Client

    from bench.djangoside import bench_offering, make_quiz
    from bench.ratios import _student, _submitted

    offering = bench_offering()
    user = _student(offering, "bench-fill-results")
    attempt = _submitted(make_quiz(offering, "bench-exam-fill", mode="exam"), user, graded=True)
    client = Client()
    client.force_login(user)
    return client.get(attempt.get_absolute_url() + "results/").content.decode()


def run(args) -> dict:
    from bench.cachecost import _setup
    from courseware import caching
    from quizzes.presenters import display, fragments, page_memo, student_parts
    from quizzes.services import questions
    from quizzes.templatetags import kinds

    settings.ROOT_URLCONF = "bench.urls"
    pages = _setup()
    client, url = pages["homework attempt"]
    html = client.get(url).content.decode()
    exam_client, exam_url = pages["exam attempt, after a change"].next()
    exam_client.get(exam_url)
    from quizzes.models import Variant

    variant = Variant.objects.select_related("version").filter(responses__isnull=False).first()
    view = display.question_view(variant)
    source = variant.version.source
    gc.collect()
    before = _rss_mb()
    started = time.perf_counter()
    counts = {
        "attempt pages (page_memo)": _fill(
            page_memo._memo,  # noqa: SLF001
            lambda n: (f"page:{n}", (fragments.MARK, html + f"<!-- {n} -->", 20)),
        ),
        "attempt page sections (fragments)": _fill(
            fragments._local,  # noqa: SLF001
            lambda n: (f"quizzes:section:{n}", (fragments.MARK, html[:6000] + str(n))),
        ),
        "question views, hints, solutions (display)": _fill(
            display._local,  # noqa: SLF001
            lambda n: (f"quizzes:question:{n}", copy.deepcopy(view)),
        ),
        "parsed templates (questions)": _fill(
            questions._parsed.cache,  # noqa: SLF001
            lambda n: (
                (f"{source}\n# {n}\n", "fill"),
                questions._parsed.__wrapped__(f"{source}\n# {n}\n", "fill"),
            ),  # noqa: SLF001
            passes=1,
        ),
        "feedback HTML (student_parts)": _fill(
            student_parts._feedback_html.cache,  # noqa: SLF001
            lambda n: (
                (f"Check the unit of **{n}** GB/s.", "x"),
                student_parts._feedback_html.__wrapped__(f"Check the unit of **{n}** GB/s.", "x"),
            ),  # noqa: SLF001
        ),
        "formula MathML (kinds tag)": _fill(
            kinds._math.cache,  # noqa: SLF001
            lambda n: (
                (f"\\frac{{{n} b}}{{2}}",),
                kinds._math.__wrapped__(f"\\frac{{{n} b}}{{2}}"),
            ),  # noqa: SLF001
        ),
        "exam read-backs (student_parts)": _fill(
            student_parts._saved_states,  # noqa: SLF001
            lambda n: ((variant.version.pk, "h", "a", f"{n} ms"), ("saved", f"Read as {n} ms")),
        ),
    }
    # The caches made since this list was written (and any made later) are filled too, with
    # text of the size of what they keep: every cache the facility made is full at the end.
    results_html = _results_sections()
    for held in caching.caches():
        if held.bound.name not in counts:
            sample = results_html if "results" in held.bound.name else html[:4000]
            counts[held.bound.name] = _fill(
                held, lambda n, sample=sample: (f"fill:{n}", {"html": sample + str(n)})
            )
    gc.collect()
    after = _rss_mb()
    return {
        "rss_before_mb": before,
        "rss_after_mb": after,
        "seconds": time.perf_counter() - started,
        "caches": [
            {
                "name": held.bound.name,
                "bound_mb": held.bound.max_bytes / 2**20,
                "held_mb": held.current_bytes / 2**20,
                "entries": len(held),
                "stored": counts.get(held.bound.name, 0),
            }
            for held in caching.caches()
        ],
        "bound_total_mb": sum(b.max_bytes for b in caching.bounds()) / 2**20,
    }
