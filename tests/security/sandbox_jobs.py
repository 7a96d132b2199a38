"""Functions the sandbox tests run in a sandbox process: Django-free, so its processes can
import them."""

from __future__ import annotations

import time


def memory_hog() -> int:
    return len(bytearray(8 * 2**30))


def sleeper(duration: float) -> str:
    time.sleep(duration)
    return "woke"


def formula_graded_here() -> tuple[str, bool]:
    """Grade a formula as the preview's "try" does; its verdict, and whether this sandbox
    process then holds a grading pool of its own."""
    from quizzes.engine import kinds
    from quizzes.grading import pool

    grade = kinds.run_grader("symbolic", response="m n", expected="2 m n", variables=["m", "n"])
    return grade.status, pool._pool is not None
