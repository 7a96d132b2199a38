"""Time boxes for the steps of grading that may run long (simplify, sampling, sympy's equals).

Every step of the formula checker has its own box, so that grading in the calling process
(``GRADING_INLINE=1``, a small deployment, a test) is bounded by itself and the worker pool's
kill is a second line of defence. A box measures work, not waiting: on the main thread it is an
interval timer on the process's CPU time (ITIMER_PROF, SIGPROF); on any other thread (a threaded
web server) it is a trace function that checks the thread's own CPU time on every Python
function call, so that neither a loaded machine nor other threads grading at the same time
(sharing the interpreter) shorten it, and a verdict never depends on them. Either raises
`TimeBoxExpired` inside the running computation. Neither can interrupt a single long C-level
operation (one huge big-integer power): that is what the size checks before any computation are
for (`formula.growth`, the parser's constant limits), nor code that calls nothing of sympy's,
mpmath's or the grader's own (a box raises only where that is safe; see `_safe_to_raise`).

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
# The process's CPU time (user and system), not the wall clock: on a loaded machine a step's
# budget must not shrink while the process waits for a core, or the same answer would be
# decided or not with the load.  The pool's hard limit stays a wall-clock one.
_TIMER = getattr(signal, "ITIMER_PROF", None)
_SIGNAL = getattr(signal, "SIGPROF", None)


def _expire(signum, frame):
    if not _signal_box_running:
        return  # a late signal after the box closed: nothing to stop
    # Fire again until the box closes: in an unsafe frame this one waits for the next safe one,
    # and a raise that something caught (mpmath has bare excepts) does not end the bound.
    signal.setitimer(_TIMER, RETRY_S)
    if _safe_to_raise(frame):
        raise TimeBoxExpired


@contextlib.contextmanager
def _restored_globals():
    """Put back sympy's evaluate/distribute flags (one set per thread), which the `finally:`
    blocks of a cut-short step would restore.  mpmath's working precision is one for the whole
    process and belongs to whichever thread holds sympy (`formula.serial`), which puts it back;
    restoring it here, from a thread that may not hold sympy, would change it under another."""
    from sympy.core.parameters import global_parameters

    flags = dict(vars(global_parameters))
    try:
        yield
    except TimeBoxExpired:
        for name, value in flags.items():
            if getattr(global_parameters, name) != value:
                setattr(global_parameters, name, value)
        raise


@contextlib.contextmanager
def time_box(seconds: float):
    global _signal_box_running
    on_main = threading.current_thread() is threading.main_thread()
    if on_main and _TIMER is not None:
        if signal.getitimer(_TIMER)[0] > 0:
            yield  # an enclosing box is running; it bounds this one too
            return
        previous = signal.signal(_SIGNAL, _expire)
        _signal_box_running = True
        signal.setitimer(_TIMER, seconds)
        try:
            with _restored_globals():
                yield
        finally:
            _signal_box_running = False
            signal.setitimer(_TIMER, 0)
            signal.signal(_SIGNAL, previous)
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
# `finally:` would have put back, sympy's flags `_restored_globals` does, mpmath's precision
# `formula.serial.sympy_turn`.
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
    # This thread's own CPU time, not the wall clock: threads share one interpreter (the GIL),
    # so on a wall clock a step's budget would shrink with every other thread grading at the
    # same time, and the same answer would be decided or not depending on the load.
    previous = sys.gettrace()
    deadline = time.thread_time() + seconds

    def tracer(frame, event, arg):
        if time.thread_time() > deadline and _safe_to_raise(frame):
            raise TimeBoxExpired
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
