"""Test-only functions that pool workers import and run: slow, greedy and pid-reporting ones.

They live in the test suite so that no production code path contains a sleep or a hook.
"""

import os
import time

from quizzes.grading import Grade


def report_pid() -> Grade:
    return Grade("correct", 1.0, str(os.getpid()))


def sleep_then_report(seconds: float) -> Grade:
    time.sleep(seconds)
    return report_pid()


def allocate(gigabytes: int) -> Grade:
    block = bytearray(gigabytes * 2**30)
    return Grade("correct", 1.0, str(len(block)))


def exit_abruptly() -> Grade:
    os._exit(3)


def raise_template_error() -> Grade:
    raise ValueError("unknown unit in the template")


def warm_up_held() -> None:
    """A worker warm-up that touches ``HELD_WARM_UP_ENTERED`` and then waits (a minute at most)
    for the file ``HELD_WARM_UP_GATE``: a worker the test holds between start and ready. The
    process that starts the pool warms itself with the same function; it is not held."""
    from pathlib import Path

    from quizzes.grading import pool

    if not pool.in_worker():
        return
    Path(os.environ["HELD_WARM_UP_ENTERED"]).touch()
    for _ in range(3000):
        if os.path.exists(os.environ["HELD_WARM_UP_GATE"]):
            return
        time.sleep(0.02)
