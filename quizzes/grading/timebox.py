"""Time boxes for the steps of grading that may run long (simplify, sampling, sympy's equals).

Every step of the formula checker has its own box, so that grading in the calling process
(``GRADING_INLINE=1``, a small deployment, a test) is bounded by itself and the worker pool's
kill is a second line of defence.  On the main thread a box is a real-time interval timer
(SIGALRM); on any other thread (a threaded web server) it is a trace function that checks the
clock on every Python function call.  Either raises `TimeBoxExpired` inside the running
computation.  Neither can interrupt a single long C-level operation (one huge big-integer
power): that is what the size checks before any computation are for (`formula.growth`,
the parser's constant limits), nor code that calls nothing of sympy's, mpmath's or the
grader's own (a box raises only where that is safe; see `_safe_to_raise`).

The signal box fires every 5 ms until it closes; the trace box raises once (CPython unsets a
trace function that raised), so a grader step must not catch `TimeBoxExpired` and go on.

`TimeBoxExpired` derives from BaseException so that library code catching ``Exception`` (sympy
does, in places) cannot swallow it and run on.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import os
import signal
import sys
import threading
import time


class TimeBoxExpired(BaseException):
    """A time-boxed step ran out of time; the caller treats its result as undecided."""


_signal_box_running = False  # the main thread's interval timer belongs to a box


def _expire(signum, frame):
    if not _signal_box_running:
        return  # a late signal after the box closed: nothing to stop
    # Fire again until the box closes: in an unsafe frame this one waits for the next safe one,
    # and a raise that something caught (mpmath has bare excepts) does not end the bound.
    signal.setitimer(signal.ITIMER_REAL, RETRY_S)
    if _safe_to_raise(frame):
        raise TimeBoxExpired


@contextlib.contextmanager
def _restored_globals():
    """Put back the process's and thread's numeric settings an interrupted step may have left
    changed: mpmath's working precision (one for the process) and sympy's evaluate/distribute
    flags (one per thread), which the `finally:` blocks of a cut-short step would restore."""
    import mpmath
    from sympy.core.parameters import global_parameters

    precision, flags = mpmath.mp.prec, dict(vars(global_parameters))
    try:
        yield
    except TimeBoxExpired:
        mpmath.mp.prec = precision
        for name, value in flags.items():
            if getattr(global_parameters, name) != value:
                setattr(global_parameters, name, value)
        raise


@contextlib.contextmanager
def time_box(seconds: float):
    global _signal_box_running
    on_main = threading.current_thread() is threading.main_thread()
    if on_main and hasattr(signal, "setitimer"):
        if signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            yield  # an enclosing box is running; it bounds this one too
            return
        previous = signal.signal(signal.SIGALRM, _expire)
        _signal_box_running = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            with _restored_globals():
                yield
        finally:
            _signal_box_running = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    with _restored_globals(), _traced_box(seconds):
        yield


# An expired box raises asynchronously, in whatever frame runs next, and that frame may be one
# that must not be cut short. Raised inside the import system (between taking a module's lock
# and releasing it) the lock stays held and every other thread importing that module waits
# forever: load runs saw a web worker's threads hang on sympy's lazy imports this way. Raised
# in an `__exit__` the resource it releases stays taken. Raised in a finalizer (a generator's
# close, a `__del__`) Python prints "Exception ignored in", goes on, and unsets the trace
# function, which loses the box. So a box raises only in the code it bounds, sympy's, mpmath's
# and the grader's own (and sympy's generated functions), never on entering a generator frame,
# and never while an import, an `__enter__`, an `__exit__` or a `__del__` is under way; it
# raises at the next call that is safe, which always reaches the box's caller. What a cut-short
# `finally:` would have put back (mpmath's precision, sympy's flags) `_restored_globals` does.
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_NEVER_UNDER = frozenset({"__enter__", "__exit__", "__del__"})
_GENERATED = "<lambdifygenerated"
# Only the import system: `<frozen runpy>` is at the bottom of every `python -m` program.
_IMPORT_SYSTEM = ("<frozen importlib.", "<frozen zipimport")
RETRY_S = 0.005


@functools.cache
def _bounded_roots() -> tuple[str, ...]:
    roots = [os.path.dirname(os.path.abspath(__file__))]
    for name in ("sympy", "mpmath"):
        spec = importlib.util.find_spec(name)
        roots += list(spec.submodule_search_locations or []) if spec else []
    return tuple(os.path.join(root, "") for root in roots)


def _safe_to_raise(frame) -> bool:
    code = frame.f_code
    if code.co_flags & _RESUMABLE:
        return False
    if not (
        code.co_filename.startswith(_bounded_roots()) or code.co_filename.startswith(_GENERATED)
    ):
        return False
    while frame is not None:
        code = frame.f_code
        if code.co_name in _NEVER_UNDER or code.co_filename.startswith(_IMPORT_SYSTEM):
            return False
        frame = frame.f_back
    return True


@contextlib.contextmanager
def _traced_box(seconds: float):
    previous = sys.gettrace()
    deadline = time.monotonic() + seconds

    def tracer(frame, event, arg):
        if time.monotonic() > deadline and _safe_to_raise(frame):
            raise TimeBoxExpired
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
