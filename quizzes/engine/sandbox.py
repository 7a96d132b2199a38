"""Run an author's template under hard limits: a separate process with a memory cap
(``RLIMIT_AS``) and a wall clock, as formulas are graded (``quizzes.grading.pool``).

The engine's own bounds (argument limits of every function, the expression policy, deadlines
between draws) keep honest templates cheap; they cannot stop one long computation that an
author strings together from cheap pieces. Everything the studio and the publication gate run
on author text (the preview and its "try", the smoke draws of the bank's reader, validation
and the gate) therefore runs here: past its clock the process is killed and replaced, past its
memory the computation fails with MemoryError, and the caller gets `Refused` with a message
for the author; the web process and the task worker never pay.

It is a pebble `ProcessPool` (per-task timeout that kills the worker, an initializer that sets
the limit) on a 'forkserver' context, never a plain fork of a threaded server. The pool is per
process (a gunicorn worker forked later builds its own) and starts on first use. Settings
(`configure`): ``workers`` (2), ``memory_mb`` (the grading pool's worker limit, 1024 MB, raised
to 256 MB above a worker's baseline if that needs more). The functions it runs must be
module-level and Django-free (the engine's), their arguments and results picklable.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from pebble import ProcessExpired, ProcessPool

# What the fork server imports for the sandbox's processes (the grader's modules too).
PRELOAD = ("content", "quizzes.engine", "quizzes.engine.jobs")
# How long a call may wait for a free sandbox process before it is refused as busy.
QUEUE_WAIT_S = 30.0
# Added to a soft deadline the work checks itself, for the hard clock that kills it: the work
# stops itself cleanly when it can, and is killed only when one step runs on past it.
GRACE_S = 2.0


@dataclass(frozen=True)
class Settings:
    workers: int = 2
    memory_mb: int | None = None

    def memory_limit_mb(self) -> int:
        if self.memory_mb:
            return self.memory_mb
        from quizzes.grading import pool

        return pool.current_settings().worker_memory_mb()


class Refused(Exception):
    """The work ran out of time or memory (or its process died); ``reason`` is "time",
    "memory", "crash" or "busy", and the message says so for an author."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message
        super().__init__(message)


_settings = Settings()
_lock = threading.Lock()
_pool: ProcessPool | None = None
_pool_pid: int | None = None


def configure(*, workers: int | None = None, memory_mb: int | None = None) -> None:
    """Set the sandbox's size and memory limit; a running pool is replaced on next use."""
    global _settings
    _settings = Settings(
        workers=max(1, workers or _settings.workers), memory_mb=memory_mb or _settings.memory_mb
    )
    shutdown()


def _baseline_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _start_worker(memory_mb: int) -> None:
    """In each sandbox process: grade "try" answers inline (this process is the bound), then
    cap the address space. What templates use was imported, and sympy warmed, by the fork
    server (`PRELOAD`); none of this counts against a call's clock, which starts with the call.
    """
    import resource

    import quizzes.grading as grading
    from quizzes.grading import pool

    pool.configure(inline=True)
    # The answer kinds send bounded graders to the grading pool whatever `inline` says; here
    # that pool would be a second one inside this process, its workers unable to set their own
    # memory limit above this one's. This process is the bound: grade in it.
    grading.grade_in_pool = _grade_here
    limit = max(memory_mb * 2**20, _baseline_bytes() + 256 * 2**20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _grade_here(name: str, /, *, timeout: float | None = None, **kwargs):
    from quizzes.grading import GRADERS

    return GRADERS[name](**kwargs)


def _get_pool() -> ProcessPool:
    global _pool, _pool_pid
    with _lock:
        if _pool is None or _pool_pid != os.getpid() or not _pool.active:
            context = multiprocessing.get_context("forkserver")
            # One fork server serves this pool and the grading pool: whichever starts it first
            # has it import (and warm) what both run, so their processes start warm.
            from quizzes.grading import warming

            context.set_forkserver_preload(["quizzes.grading.pool", *warming.PRELOAD, *PRELOAD])
            _pool = ProcessPool(
                max_workers=_settings.workers,
                initializer=_start_worker,
                initargs=(_settings.memory_limit_mb(),),
                context=context,
            )
            _pool_pid = os.getpid()
        return _pool


def run_limited(function: Callable, /, seconds: float, **kwargs):
    """``function(**kwargs)`` in a sandbox process, killed after ``seconds``; its result, or
    the exception it raised; `Refused` when it ran out of time or memory or its process died."""
    future = _get_pool().schedule(function, kwargs=kwargs, timeout=seconds)
    try:
        return future.result(timeout=seconds + QUEUE_WAIT_S)
    except FutureTimeout:
        if not future.done():
            future.cancel()
            raise Refused("busy", "the sandbox is busy; try again in a moment") from None
        raise Refused("time", f"it took longer than {seconds:.1f} s and was stopped") from None
    except MemoryError:
        mb = _settings.memory_limit_mb()
        raise Refused("memory", f"it needed more than the {mb:,} MB allowed") from None
    except ProcessExpired as exc:
        raise Refused(
            "crash", f"its process ended unexpectedly (exit code {exc.exitcode})"
        ) from None
    except BrokenProcessPool:
        shutdown()  # the next call starts new processes
        raise Refused("crash", "its process could not start; try again") from None


def shutdown() -> None:
    """Stop this process's sandbox processes (the next call starts new ones)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None and _pool_pid == os.getpid():
        pool.stop()
        pool.join(timeout=5)


atexit.register(shutdown)
