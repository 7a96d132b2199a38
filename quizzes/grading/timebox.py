"""Soft time boxes for the steps of grading that may run long (sympy's simplify and equals).

On the main thread of a process (a pool worker, a test run) a box is enforced with a real-time
interval timer that raises `TimeBoxExpired` inside the running computation.  Elsewhere (grading
inline in a web server thread) signals are unavailable and the box does nothing: the hard
limit of that path is the worker pool's kill, not this.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class TimeBoxExpired(Exception):
    """A time-boxed step ran out of time; the caller treats its result as undecided."""


def _expire(signum, frame):
    raise TimeBoxExpired


@contextlib.contextmanager
def time_box(seconds: float):
    usable = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
