"""Wall-clock budgets for the studio's work that runs inside a web request.

A draft's preview (parse, a few smoke draws, one variant) and its validation over many seeds
run in the request that asks for them. Each has a budget; when it runs out the author is told
how far the work got, and the worker is free again. Operators tune them in settings
(`QUIZ_PREVIEW_BUDGET_SECONDS`, `QUIZ_VALIDATION_BUDGET_SECONDS`).
"""

from __future__ import annotations

import time

from django.conf import settings

PREVIEW_BUDGET_SECONDS = 3.0
VALIDATION_BUDGET_SECONDS = 20.0


def preview_budget() -> float:
    return float(getattr(settings, "QUIZ_PREVIEW_BUDGET_SECONDS", PREVIEW_BUDGET_SECONDS))


def validation_budget() -> float:
    return float(getattr(settings, "QUIZ_VALIDATION_BUDGET_SECONDS", VALIDATION_BUDGET_SECONDS))


def deadline_after(seconds: float) -> float:
    """A `time.monotonic()` deadline `seconds` from now, as the engine takes it."""
    return time.monotonic() + seconds
