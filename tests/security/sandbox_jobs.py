"""Functions the sandbox tests run in a sandbox process: Django-free, so its processes can
import them."""

from __future__ import annotations

import time


def memory_hog() -> int:
    return len(bytearray(8 * 2**30))


def sleeper(duration: float) -> str:
    time.sleep(duration)
    return "woke"


def grading_pool_started() -> bool:
    """Whether this sandbox process started a grading pool of its own."""
    from quizzes.grading import pool

    return pool._pool is not None
