"""Per-student limits on grading: a budget of answers that cost no try, and one formula at a
time.

An answer that cannot be read, that the grader refuses, or that is in the wrong dimension
costs no try, so without a limit a student could send such answers forever and keep the
formula-grading workers busy for everyone.  Two limits, both kept in Django's cache (shared
between processes and servers when the cache is; see docs/deploy.md):

- **Budget.** At most ``GRADING_FREE_BUDGET`` free outcomes per student per
  ``GRADING_FREE_WINDOW`` seconds (a fixed window).  Once it is spent, further answers are
  refused before grading with a "slow down" message saying when to try again; nothing is
  stored and no try is used.  Graded answers (correct or incorrect) never count.
- **One formula at a time.** A student has at most one formula answer being graded at any
  moment; a second one sent meanwhile (another tab, a script) is refused at once rather than
  queued, so one student holds at most one grading worker and cannot delay another student
  by more than the bound stated in docs/deploy.md.
"""

from __future__ import annotations

import contextlib
import math
import time

from django.conf import settings
from django.core.cache import cache

from quizzes.services.availability import QuizRuleError

IN_FLIGHT_SECONDS = 30  # a lock left by a crashed request expires on its own


def _budget() -> tuple[int, int]:
    return (
        int(getattr(settings, "GRADING_FREE_BUDGET", 30)),
        int(getattr(settings, "GRADING_FREE_WINDOW", 300)),
    )


def _window_key(student_id: int, now: float) -> tuple[str, float]:
    _, window = _budget()
    index = math.floor(now / window)
    return f"grading-free:{student_id}:{index}", (index + 1) * window - now


def check_budget(student_id: int, *, now: float | None = None) -> None:
    """Refuse (QuizRuleError) when the student's free outcomes for this window are spent."""
    limit, _ = _budget()
    key, remaining = _window_key(student_id, time.time() if now is None else now)
    used = cache.get(key, 0)
    if used >= limit:
        wait = max(1, math.ceil(remaining))
        raise QuizRuleError(
            f"Slow down: {used} of your recent answers could not be graded (they cost no try, "
            f"but they are limited to {limit} every {_budget()[1] // 60} minutes). "
            f"Check the format hints, then try again in {wait} seconds."
        )


def count_free(student_id: int, *, now: float | None = None) -> int:
    """Count one free outcome against the student's budget; the count in this window."""
    _, window = _budget()
    key, _ = _window_key(student_id, time.time() if now is None else now)
    cache.add(key, 0, timeout=window + 5)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        return 1


@contextlib.contextmanager
def one_formula_at_a_time(student_id: int):
    """Hold the student's single formula-grading slot, or refuse at once if it is taken."""
    key = f"grading-in-flight:{student_id}"
    if not cache.add(key, 1, timeout=IN_FLIGHT_SECONDS):
        raise QuizRuleError(
            "Your previous formula is still being checked; wait for its result, then send "
            "the next one."
        )
    try:
        yield
    finally:
        cache.delete(key)
