"""Time boxes for the steps of grading that may run long (simplify, sampling, sympy's equals).

Every step of the formula checker has its own box, so that grading in the calling process
(``GRADING_INLINE=1``, a small deployment, a test) is bounded by itself and the worker pool's
kill is a second line of defence.  On the main thread a box is a real-time interval timer
(SIGALRM); on any other thread (a threaded web server) it is a trace function that checks the
clock on every Python function call.  Either raises `TimeBoxExpired` inside the running
computation.  Neither can interrupt a single long C-level operation (one huge big-integer
power): that is what the size checks before any computation are for (`formula.growth`,
the parser's constant limits).

`TimeBoxExpired` derives from BaseException so that library code catching ``Exception`` (sympy
does, in places) cannot swallow it and run on.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time


class TimeBoxExpired(BaseException):
    """A time-boxed step ran out of time; the caller treats its result as undecided."""


def _expire(signum, frame):
    raise TimeBoxExpired


@contextlib.contextmanager
def time_box(seconds: float):
    on_main = threading.current_thread() is threading.main_thread()
    if on_main and hasattr(signal, "setitimer"):
        if signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            yield  # an enclosing box is running; it bounds this one too
            return
        previous = signal.signal(signal.SIGALRM, _expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    with _traced_box(seconds):
        yield


@contextlib.contextmanager
def _traced_box(seconds: float):
    previous = sys.gettrace()
    deadline = time.monotonic() + seconds

    def tracer(frame, event, arg):
        if time.monotonic() > deadline:
            raise TimeBoxExpired
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
