"""Time boxes for the steps of grading that may run long (simplify, sampling, sympy's equals).

Every step of the formula checker has its own box, so that grading in the calling process
(``GRADING_INLINE=1``, a small deployment, a test) is bounded by itself and the worker pool's
kill is a second line of defence.  On the main thread a box is a real-time interval timer
(SIGALRM); on any other thread (a threaded web server) it is a trace function that checks the
clock on every Python function call.  Either raises `TimeBoxExpired` inside the running
computation.  Neither can interrupt a single long C-level operation (one huge big-integer
power): that is what the size checks before any computation are for (`formula.growth`,
the parser's constant limits), nor a generator driven by C that calls no Python function (the
trace box does not raise on entering a generator frame; see `_in_a_finalizer`).

`TimeBoxExpired` derives from BaseException so that library code catching ``Exception`` (sympy
does, in places) cannot swallow it and run on.
"""

from __future__ import annotations

import contextlib
import inspect
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


# Python calls finalizers in whatever frame is running: a generator's close when the last
# reference goes, a `__del__` when the garbage collector runs. An exception raised there is not
# the caller's: Python prints it as "Exception ignored in", goes on, and unsets the trace
# function, which would lose the box. So the box never raises in a generator frame's entry or
# under a `__del__`; it raises at the next ordinary call, which always reaches the caller.
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def _in_a_finalizer(frame) -> bool:
    if frame.f_code.co_flags & _RESUMABLE:
        return True
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def _traced_box(seconds: float):
    previous = sys.gettrace()
    deadline = time.monotonic() + seconds

    def tracer(frame, event, arg):
        if time.monotonic() > deadline and not _in_a_finalizer(frame):
            raise TimeBoxExpired
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
