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
