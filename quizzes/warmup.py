"""Starting the formula-grading pool when a process starts serving requests.

The pool (``quizzes.grading.pool``) starts in the background and grades in the calling
process until its first worker is ready, so starting it early only ever saves time.  It is
started from two places: the gunicorn config's ``post_worker_init`` hook (each worker, after
the fork) and the app's ``ready`` for ``manage.py runserver`` (in the process that serves, not
the autoreloader's watcher).  Other management commands (migrate, sync_questions, shell,
tests) never start it: they may not grade at all, and a pool started by the autoreloader's
parent would be orphaned work.  ``GRADING_WARM_ON_START=False`` (a setting) turns it off.
"""

from __future__ import annotations

import os
import sys

from django.conf import settings


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
