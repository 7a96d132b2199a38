"""Worker processes that give every grading call a hard time and memory limit.

Each worker is a separate process under ``resource.setrlimit(RLIMIT_AS)``; a call that runs
past its wall-clock timeout (default 2 s) has its worker killed and replaced, and the caller
gets an "invalid" Grade asking for a simpler answer, so a hostile formula costs at most one
timeout and never the web process.  Workers come from a 'forkserver' context, never a plain
fork of a possibly threaded server process.  The fork server preloads the grader and warms
sympy once (`quizzes.grading.forkserver_warm`), so every worker forked from it starts with
sympy's imports and caches filled; each worker then grades a few representative answers
(`WARM_UP`) before it reports ready, and that start never counts against a call's timeout.

Starting.  `start_pool()` starts the pool in the background and returns at once; the web
process calls it when a worker starts serving (the app's ready hook and the gunicorn config),
so no student answer pays for the start.  Until the first worker is ready, a grading call is
graded in the calling process instead of waiting (`grade_in_pool` only, never arbitrary
functions): the grader is bounded by itself (size checks, a time box on every step), so this
costs the hard memory limit for the first seconds after a start, and never a student's wait.

The pool is per process and thread-safe (an idle worker is taken from a queue, so concurrent
calls use different workers); a process forked after the pool started (a gunicorn worker)
builds its own.  Environment: ``GRADING_POOL_SIZE`` (default 2), ``GRADING_TIMEOUT``
(seconds, default 2), ``GRADING_WORKER_MEMORY_MB`` (default 1024, raised if the worker's
baseline already needs more), ``GRADING_INLINE=1`` to grade formulas in the calling process
instead (tests).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable

from .results import Grade, invalid

DEFAULT_TIMEOUT = 2.0
TOO_SLOW = "This answer took too long to check; simplify it."
TOO_BIG = "This answer needs too much memory to check; simplify it."
CRASHED = "This answer could not be checked; simplify it and try again."
BUSY = "The grader is busy; submit again in a moment."
# A new worker's warm-up runs in parallel with the web process; a call that finds it still
# warming waits up to this long before the worker counts as broken.
READY_TIMEOUT = 30.0

# (response, expected, variables): the book's usual shapes (products, quotients, powers, logs,
# roots, factorials, absolute values) and each variable domain, so the first real answer finds
# sympy's functions imported and its assumption and simplification caches primed.
WARM_UP = (
    ("2 n m k", "2*n*m*k", ["n", "m", "k"]),
    ("n(n+1)/2", "n^2/2 + n/2", ["n"]),
    ("P*b/B", "b P / (2 B)", ["P", "b", "B"]),
    ("log2(n) + sqrt(n^2)", "log(n)/log(2) + n", ["n"]),
    ("exp(2 log n)", "n^3", ["n"]),
    ("(n+1)!/n!", "n+1", {"n": "integer"}),
    ("|x| + sin(x)^2 + cos(x)^2", "|x| + 1", {"x": "real"}),
    ("0.5 s (m k + k n)", "s*(m k + n k)/2", ["m", "n", "k", "s"]),
    ("2^n", "n^2", ["n"]),
    ("1/2n", "n/2", ["n"]),
)

# What the fork server imports before it forks any worker: the graders, and a module whose
# import warms sympy once, so that every worker starts from warm caches.
PRELOAD = ["quizzes.grading.formula", "quizzes.grading.pool", "quizzes.grading.forkserver_warm"]

_in_worker = False
_lock = threading.Lock()
_pool: _Pool | None = None


def in_worker() -> bool:
    """True inside a pool worker, where grading runs inline."""
    return _in_worker


def _baseline_memory() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def warm_up() -> None:
    """Grade `WARM_UP` (and a few numbers with units) in this process; results are discarded."""
    from .formula.grade import grade_symbolic_inline
    from .numeric import grade_numeric

    for response, expected, variables in WARM_UP:
        try:
            grade_symbolic_inline(response, expected, variables=variables)
        except Exception:  # noqa: BLE001, S112 - warming is best effort; grading reports its own
            continue
    for response, unit in (("3.35 TB/s", "B/s"), ("80 GiB", "B"), ("2^10", None)):
        try:
            grade_numeric(response, 1.0, unit=unit)
        except Exception:  # noqa: BLE001, S112
            continue


def _worker_main(connection, memory_mb: int) -> None:
    global _in_worker
    _in_worker = True
    import resource

    warm_up()
    limit = max(memory_mb * 2**20, _baseline_memory() + 256 * 2**20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    connection.send(("ready", None))
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        function, kwargs = request
        try:
            reply = ("ok", function(**kwargs))
        except MemoryError:
            reply = ("memory", None)
        except Exception as error:  # a template mistake: re-raised in the caller
            reply = ("raise", error)
        try:
            connection.send(reply)
        except MemoryError:
            connection.send(("memory", None))


class _Worker:
    def __init__(self, context, memory_mb: int):
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, memory_mb), daemon=True, name="grading-worker"
        )
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> bool:
        """Wait for the worker's warm-up; False when it died or hung instead."""
        if not self.ready:
            try:
                if self.connection.poll(READY_TIMEOUT):
                    self.ready = self.connection.recv()[0] == "ready"
            except (EOFError, OSError):
                self.ready = False
        return self.ready

    def stop(self, *, kill: bool) -> None:
        if not kill:
            try:
                self.connection.send(None)
            except OSError:
                kill = True
        if kill and self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=2)
        self.connection.close()


class _Pool:
    def __init__(self, size: int, memory_mb: int):
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOAD)
        self.memory_mb = memory_mb
        self.pid = os.getpid()
        self.idle: queue.Queue[_Worker] = queue.Queue()
        self.workers: set[_Worker] = set()
        self.workers_lock = threading.Lock()
        self.warm = threading.Event()
        self.starter = threading.Thread(
            target=self._start, args=(size,), daemon=True, name="grading-pool-start"
        )
        self.starter.start()

    def _start(self, size: int) -> None:
        """Spawn the workers and, meanwhile, warm this process for calls made before a worker
        is ready (spawning mostly waits on the fork server, so the two overlap)."""
        threading.Thread(target=warm_up, daemon=True, name="grading-warm-up").start()
        workers = [self._spawn() for _ in range(size)]
        for worker in workers:
            worker.wait_ready()
            self.idle.put(worker)
            self.warm.set()

    def _spawn(self) -> _Worker:
        worker = _Worker(self.context, self.memory_mb)
        with self.workers_lock:
            self.workers.add(worker)
        return worker

    def _replace(self, worker: _Worker) -> _Worker:
        with self.workers_lock:
            self.workers.discard(worker)
        worker.stop(kill=True)
        return self._spawn()

    def run(self, function: Callable, kwargs: dict, timeout: float, inline_first=False) -> Grade:
        if inline_first and not self.warm.is_set():
            return function(**kwargs)
        try:
            worker = self.idle.get(timeout=READY_TIMEOUT + max(10.0, 4 * timeout))
        except queue.Empty:
            return invalid(BUSY)
        try:
            if not worker.wait_ready():
                worker = self._replace(worker)
                return invalid(CRASHED)
            worker.connection.send((function, kwargs))
            if not worker.connection.poll(timeout):
                worker = self._replace(worker)
                return invalid(TOO_SLOW)
            status, payload = worker.connection.recv()
        except (EOFError, OSError):
            worker = self._replace(worker)
            return invalid(CRASHED)
        finally:
            self.idle.put(worker)
        if status == "memory":
            self.idle.put(self._replace(self.idle.get()))
            return invalid(TOO_BIG)
        if status == "raise":
            raise payload
        return payload

    def shutdown(self) -> None:
        self.starter.join(timeout=READY_TIMEOUT)
        with self.workers_lock:
            workers, self.workers = list(self.workers), set()
        for worker in workers:
            worker.stop(kill=False)


def _get_pool() -> _Pool:
    global _pool
    with _lock:
        if _pool is None or _pool.pid != os.getpid():
            size = int(os.environ.get("GRADING_POOL_SIZE", "2"))
            memory = int(os.environ.get("GRADING_WORKER_MEMORY_MB", "1024"))
            _pool = _Pool(max(size, 1), memory)
        return _pool


def start_pool(*, wait: bool = False) -> None:
    """Start this process's pool in the background (idempotent); `wait` blocks until warm."""
    pool = _get_pool()
    if wait:
        pool.warm.wait(READY_TIMEOUT)


def run_in_pool(
    function: Callable, timeout: float | None = None, *, inline_first: bool = False, **kwargs
) -> Grade:
    """Run a module-level `function(**kwargs)` returning a Grade in a worker, under the limits.

    Internal: `grade_in_pool` is the public entry; tests pass their own slow or greedy hooks.
    """
    if timeout is None:
        timeout = float(os.environ.get("GRADING_TIMEOUT", DEFAULT_TIMEOUT))
    return _get_pool().run(function, kwargs, timeout, inline_first=inline_first)


def grade_in_pool(kind: str, /, *, timeout: float | None = None, **kwargs) -> Grade:
    """Grade in a worker process: `kind` is "numeric" or "symbolic", kwargs as for the grader."""
    from .formula.grade import grade_symbolic_inline
    from .numeric import grade_numeric

    graders = {"numeric": grade_numeric, "symbolic": grade_symbolic_inline}
    if kind not in graders:
        raise ValueError(f"kind must be 'numeric' or 'symbolic', not {kind!r}")
    return run_in_pool(graders[kind], timeout, inline_first=True, **kwargs)


def shutdown_pool() -> None:
    """Stop every worker; the next call starts a fresh pool."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None and pool.pid == os.getpid():
        pool.shutdown()


atexit.register(shutdown_pool)
