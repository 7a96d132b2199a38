"""Starting the formula-grading pool when a process starts serving requests.

The pool (``quizzes.grading.pool``) starts in the background and grades in the calling
process until its first worker is ready, so starting it early only ever saves time.  It is
started from two places: the gunicorn config's ``post_worker_init`` hook (each worker, after
the fork) and the app's ``ready`` for ``manage.py runserver`` (in the process that serves, not
the autoreloader's watcher).  Other management commands (migrate, sync_questions, shell,
tests) never start it: they may not grade at all, and a pool started by the autoreloader's
parent would be orphaned work.  ``GRADING_WARM_ON_START=False`` (a setting) turns it off.

``warm_before_traffic`` (the gunicorn hook) also draws, in the worker and before it takes its
first request, what a first attempt page needs and a fresh process does not have: the URL
resolver, the attempt page's compiled templates, and the question texts of the templates
students were last given (parsed templates, each text's slotted skeleton, the Markdown and
MathML converters' first use). Then it waits, within the same budget, for the grading pool to
be warm, so the first formula is graded by the pool. A restart measured without it served the
first attempt page in about 1.3 s and the first formula grade in 0.6 s (the December 2026
load review). ``WARM_CACHES_ON_START=False`` turns the drawing off.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable

from django.conf import settings

logger = logging.getLogger(__name__)

# How long a worker may spend warming before it takes traffic (gunicorn's own worker timeout
# is 30 s in docs/deploy.md; the hook tells the arbiter it is alive between steps).
WARM_SECONDS = 12.0
# The templates whose question texts are drawn: those of the latest variants handed out.
WARM_VARIANTS = 400
WARM_TEMPLATES = 80


def serving_command(argv: list[str], environ) -> bool:
    """True when this process is ``manage.py runserver``'s serving process."""
    if len(argv) < 2 or os.path.basename(argv[0]) not in ("manage.py", "django-admin"):
        return False
    if argv[1] != "runserver":
        return False
    return environ.get("RUN_MAIN") == "true" or "--noreload" in argv


def start_grading_pool() -> bool:
    """Start the pool unless turned off or grading runs inline; True when it was started."""
    if not getattr(settings, "GRADING_WARM_ON_START", True):
        return False
    if os.environ.get("GRADING_INLINE") == "1":
        return False
    from quizzes.grading import start_pool

    start_pool()
    return True


def on_ready(argv: list[str] | None = None, environ=None) -> bool:
    """The app's ready hook: start the pool for runserver's serving process only."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    if not serving_command(argv, environ):
        return False
    return start_grading_pool()


def warm_caches(
    *, seconds: float = WARM_SECONDS, alive: Callable[[], None] = lambda: None
) -> dict[str, int]:
    """Draw in this process what a first attempt page needs (no request, nothing written);
    what was drawn. Stops at `seconds`; `alive` is called between steps (gunicorn's notify)."""
    if not getattr(settings, "WARM_CACHES_ON_START", True):
        return {}
    deadline = time.monotonic() + seconds
    done = {"templates": 0, "questions": 0}
    try:
        _warm_templates()
        done["templates"] = 1
        alive()
        for row in _latest_variant_per_version():
            if time.monotonic() > deadline:
                break
            _warm_question(row)
            done["questions"] += 1
            alive()
    except Exception:  # noqa: BLE001 - warming is an optimisation: the worker serves anyway
        logger.exception("warming the caches before traffic failed")
    return done


def _warm_templates() -> None:
    from django.template import loader
    from django.urls import get_resolver

    from quizzes.presenters import fragments

    get_resolver().url_patterns  # noqa: B018 - imports every view module and compiles the routes
    for name in ("quizzes/attempt_detail.html", *fragments._TEMPLATES):
        loader.get_template(name)
    fragments.templates_digest()


def _latest_variant_per_version():
    from quizzes.models import Variant

    seen: set[int] = set()
    rows = Variant.objects.select_related("version").order_by("-pk")[:WARM_VARIANTS]
    for row in rows.iterator():
        if row.version_id in seen:
            continue
        seen.add(row.version_id)
        yield row
        if len(seen) >= WARM_TEMPLATES:
            return


def _warm_question(row) -> None:
    from quizzes.presenters import display
    from quizzes.services.questions import QuestionUnavailable

    try:
        display.question_view(row)
    except QuestionUnavailable:
        pass  # a broken version shows its own message on the page


def warm_before_traffic(
    *, seconds: float = WARM_SECONDS, alive: Callable[[], None] = lambda: None
) -> dict[str, int]:
    """A server worker's start (gunicorn's ``post_worker_init``): start the grading pool,
    draw the first page's caches meanwhile, then wait for the pool, all within `seconds`."""
    from django.db import connections

    started = time.monotonic()
    pool = start_grading_pool()
    try:
        done = warm_caches(seconds=seconds, alive=alive)
    finally:
        connections.close_all()  # this thread serves nothing: the serving threads open their own
    if pool:
        from quizzes.grading import start_pool

        start_pool(wait=True, timeout=max(0.0, seconds - (time.monotonic() - started)))
    done["seconds_ms"] = int((time.monotonic() - started) * 1000)
    logger.info("worker warmed before traffic: %s", done)
    return done
