"""One thread at a time in sympy, because sympy's numeric fallbacks use mpmath's global context.

mpmath's working precision (`mpmath.mp`) is one setting for the whole process, and sympy
changes it in places: `Function._eval_evalf` wraps the mpmath call of every function without
an evalf of its own (asin, acos among ours) in ``mpmath.workprec``; `nsimplify`, which
`Expr.equals` calls, sets ``mpmath.mp.dps``; `Poly.nroots` and the algebraic-number code do the
same.  Two threads inside such code at once change each other's precision in the middle of a
computation, and one leaving its block can leave the other's value behind for good.

The grader's own numbers never touch that context (`evaluation` gives every comparison a
private one).  Every grader step that calls into sympy (building the expression, expanding,
simplifying, `equals`) holds `sympy_turn`, so no two of them overlap in a process, and it puts
mpmath's precision back as it found it, should an interrupted step have left it changed.  The
GIL never let two threads run sympy at once anyway, so this costs no throughput; in a pool
worker (one thread) the lock is never contended.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time

import mpmath

# How long a step waits for other threads' sympy steps (the longest is a 0.5 s time box).
WAIT = 5.0


class Busy(Exception):
    """Other threads held sympy for longer than the caller would wait."""


class _FairLock:
    """A re-entrant lock handed to waiting threads in the order they asked (a plain lock may
    go to the thread that just released it, again and again, and starve the others)."""

    def __init__(self):
        self._condition = threading.Condition(threading.Lock())
        self._queue: collections.deque[object] = collections.deque()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, timeout: float) -> bool:
        me = threading.get_ident()
        with self._condition:
            if self._owner == me:
                self._depth += 1
                return True
            ticket = object()
            self._queue.append(ticket)
            deadline = time.monotonic() + timeout
            acquired = False
            try:
                while self._owner is not None or self._queue[0] is not ticket:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._condition.wait(remaining)
                self._queue.popleft()
                self._owner, self._depth, acquired = me, 1, True
                return True
            finally:
                if not acquired:  # timed out (or interrupted): give the place in line up
                    self._queue.remove(ticket)
                    self._condition.notify_all()

    def release(self) -> None:
        with self._condition:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._condition.notify_all()


_lock = _FairLock()


@contextlib.contextmanager
def sympy_turn(wait: float = WAIT):
    """Hold sympy (and so mpmath's global context) for this thread; raise `Busy` after `wait`."""
    if not _lock.acquire(wait):
        raise Busy
    precision = mpmath.mp.prec
    try:
        yield
    finally:
        if mpmath.mp.prec != precision:
            mpmath.mp.prec = precision
        _lock.release()
