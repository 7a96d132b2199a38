"""Worker processes that give every grading call a hard time and memory limit: a pure executor.

It runs whatever module-level function it is given (`run_bounded`) and knows no grader: what
the fork server preloads and what a new worker runs before it reports ready come from
`configure` (the grading package configures its graders and warm-up corpus,
``quizzes.grading.warming``; the app's ready hook applies ``settings.GRADING_POOL``).  Which
answers go here is the answer kinds' decision (``quizzes.engine.kinds``), not the pool's.

Each worker is a separate process under ``resource.setrlimit(RLIMIT_AS)``; a call that runs
past its wall-clock timeout (default 2 s) has its worker killed and replaced, and the caller
gets an "invalid" Grade asking for a simpler answer, so a hostile formula costs at most one
timeout and never the web process.  Workers come from a 'forkserver' context, never a plain
fork of a possibly threaded server process.  The fork server imports the configured `preload`
modules (the graders, and one that warms sympy once), so every worker forked from it starts
with sympy's imports and caches filled; each worker then runs the configured `warm_up` before
it reports ready, and that start never counts against a call's timeout.

Starting.  `start_pool()` starts the pool in the background and returns at once; the web
process calls it when a worker starts serving (the app's ready hook and the gunicorn config),
so no student answer pays for the start.  Until the first worker is ready, a call made with
``inline_first=True`` (the graders' calls, never arbitrary functions) runs in the calling
process instead of waiting: the grader is bounded by itself (size checks, a time box on every
step), so this costs the hard memory limit for the first seconds after a start, and never a
student's wait.

Stopping.  A worker leaves when its pipe closes or its parent sends None; it never prints an
interrupt or a broken pipe: Ctrl-C reaches the whole process group, so SIGINT is held back from
the fork server and the workers from their start (`_interrupts_held`), and a parent that died
while a worker was warming up or answering just ends that worker.

The pool is per process and thread-safe (an idle worker is taken from a queue, so concurrent
calls use different workers); a process forked after the pool started (a gunicorn worker)
builds its own.  Settings (`configure`, each also read from the environment when not
configured): ``size`` / ``GRADING_POOL_SIZE`` (default 2), ``timeout`` / ``GRADING_TIMEOUT``
(seconds, default 2), ``memory_mb`` / ``GRADING_WORKER_MEMORY_MB`` (default 1024, raised if the
worker's baseline already needs more), ``inline`` / ``GRADING_INLINE=1`` to let the graders'
public functions run in the calling process instead (`runs_inline`; the grader's own tests).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing import resource_tracker, util

from .results import Grade, invalid

DEFAULT_TIMEOUT = 2.0
TOO_SLOW = "This answer took too long to check; simplify it."
TOO_BIG = "This answer needs too much memory to check; simplify it."
CRASHED = "This answer could not be checked; simplify it and try again."
BUSY = "The grader is busy; submit again in a moment."
# A new worker's warm-up runs in parallel with the web process; a call that finds it still
# warming waits up to this long before the worker counts as broken.
READY_TIMEOUT = 30.0


def _no_warm_up() -> None:
    """The default warm-up: nothing (the grading package configures its own)."""


@dataclass(frozen=True)
class PoolSettings:
    """What `configure` sets; None means "read the environment variable at call time"."""

    size: int | None = None
    timeout: float | None = None
    memory_mb: int | None = None
    inline: bool | None = None
    preload: tuple[str, ...] = ()
    warm_up: Callable[[], None] = _no_warm_up

    def pool_size(self) -> int:
        return max(self.size or int(os.environ.get("GRADING_POOL_SIZE", "2")), 1)

    def call_timeout(self) -> float:
        if self.timeout is not None:
            return float(self.timeout)
        return float(os.environ.get("GRADING_TIMEOUT", DEFAULT_TIMEOUT))

    def worker_memory_mb(self) -> int:
        return self.memory_mb or int(os.environ.get("GRADING_WORKER_MEMORY_MB", "1024"))


_settings = PoolSettings()


def configure(
    *,
    size: int | None = None,
    timeout: float | None = None,
    memory_mb: int | None = None,
    inline: bool | None = None,
    preload: Sequence[str] | None = None,
    warm_up: Callable[[], None] | None = None,
) -> PoolSettings:
    """Set the pool's settings (only those given); a pool already running keeps its workers
    until `shutdown_pool`.  `warm_up` must be a module-level function (workers import it)."""
    global _settings
    changes = {
        name: value
        for name, value in {
            "size": size,
            "timeout": timeout,
            "memory_mb": memory_mb,
            "inline": inline,
            "warm_up": warm_up,
        }.items()
        if value is not None
    }
    if preload is not None:
        changes["preload"] = tuple(preload)
    _settings = replace(_settings, **changes)
    return _settings


def current_settings() -> PoolSettings:
    return _settings


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


def _worker_main(connection, memory_mb: int, warm_up: Callable[[], None]) -> None:
    global _in_worker
    _in_worker = True
    # Ctrl-C in a terminal signals the whole process group; stopping a worker is its parent's
    # job (it closes the pipe, or kills the worker), so the worker never prints an interrupt.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import resource

    try:
        warm_up()
    except Exception:  # noqa: BLE001, S110 - warming is best effort; the calls report their own
        pass
    limit = max(memory_mb * 2**20, _baseline_memory() + 256 * 2**20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        connection.send(("ready", None))
        _serve(connection)
    except (EOFError, OSError):
        return  # the parent has gone (stopped or killed): nobody is left to answer


def _serve(connection) -> None:
    while True:
        request = connection.recv()
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


@contextlib.contextmanager
def _interrupts_held():
    """Hold SIGINT back from processes started in this block (this thread only).

    A new process inherits its parent thread's signal mask, through exec too: the fork server
    (started with the first worker) and every worker forked from it then never receive the
    SIGINT that Ctrl-C sends to the whole process group, not even while the fork server is still
    importing sympy, before any handler of ours could run.  The calling thread gets a held
    signal as soon as the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing starts its resource tracker before the fork server and unblocks SIGINT
    # after doing so, which would undo this block: start the tracker first.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Worker:
    def __init__(self, context, memory_mb: int, warm_up: Callable[[], None]):
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main,
            args=(child, memory_mb, warm_up),
            daemon=True,
            name="grading-worker",
        )
        with _interrupts_held():
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


class _Closing(Exception):
    """The pool is shutting down: a start in progress spawns no more workers."""


class _Pool:
    def __init__(self, size: int, memory_mb: int, preload=(), warm_up=_no_warm_up):
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload([__name__, *preload])
        self.memory_mb = memory_mb
        self.warm_up = warm_up
        self.pid = os.getpid()
        self.idle: queue.Queue[_Worker] = queue.Queue()
        self.workers: set[_Worker] = set()
        self.workers_lock = threading.Lock()
        self.warm = threading.Event()
        self.closing = threading.Event()
        self.starter = threading.Thread(
            target=self._start, args=(size,), daemon=True, name="grading-pool-start"
        )
        self.starter.start()

    def _start(self, size: int) -> None:
        """Spawn the workers and, meanwhile, warm this process for calls made before a worker
        is ready (spawning mostly waits on the fork server, so the two overlap)."""
        threading.Thread(target=self.warm_up, daemon=True, name="grading-warm-up").start()
        try:
            workers = [self._spawn() for _ in range(size)]
            for worker in workers:
                worker.wait_ready()
                self.idle.put(worker)
                self.warm.set()
        except _Closing:
            pass
        except Exception:
            # A start that `shutdown` cut short: at interpreter exit multiprocessing removes the
            # fork server's socket directory while this thread may still be spawning.  Nothing
            # waits for these workers any more, so the start just ends; any other failure is real.
            if not self.closing.is_set():
                raise

    def _spawn(self) -> _Worker:
        if self.closing.is_set():
            raise _Closing
        worker = _Worker(self.context, self.memory_mb, self.warm_up)
        with self.workers_lock:
            if not self.closing.is_set():
                self.workers.add(worker)
                return worker
        worker.stop(kill=True)  # spawned while shutting down: `shutdown` never saw it
        raise _Closing

    def _replace(self, worker: _Worker) -> _Worker:
        with self.workers_lock:
            self.workers.discard(worker)
        worker.stop(kill=True)
        try:
            return self._spawn()
        except _Closing:
            return worker  # a call racing the shutdown: the stopped worker reports a crash

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
        # Never wait for a start in progress (a fork server still importing sympy held a short
        # command's exit for up to READY_TIMEOUT): the starter stops the workers it makes later.
        with self.workers_lock:
            self.closing.set()
            workers, self.workers = list(self.workers), set()
        for worker in workers:
            worker.stop(kill=False)


def _get_pool() -> _Pool:
    global _pool
    with _lock:
        if _pool is None or _pool.pid != os.getpid():
            config = _settings
            _pool = _Pool(
                config.pool_size(), config.worker_memory_mb(), config.preload, config.warm_up
            )
        return _pool


def start_pool(*, wait: bool = False, timeout: float | None = None) -> None:
    """Start this process's pool in the background (idempotent); `wait` blocks until warm
    (at most `timeout` seconds, READY_TIMEOUT by default)."""
    pool = _get_pool()
    if wait:
        pool.warm.wait(READY_TIMEOUT if timeout is None else timeout)


def pool_status() -> dict:
    """What `/readyz` reports of this process's pool, without starting one.

    Ready when grading runs inline, when no pool was started here (it starts at the first
    formula: `GRADING_WARM_ON_START` off, or a process that never serves), or when the pool is
    warm with at least one live worker. Not ready while it starts (a formula would be graded
    in the web worker meanwhile, the slow first grade after a restart) or when every worker
    died, so a load balancer holds traffic until it can grade.
    """
    size = _settings.pool_size()
    if runs_inline():
        return {"ok": True, "state": "inline"}
    pool = _pool
    if pool is None or pool.pid != os.getpid():
        return {"ok": True, "state": "not started", "size": size}
    with pool.workers_lock:
        alive = sum(1 for worker in pool.workers if worker.process.is_alive())
    if pool.closing.is_set():
        state = "stopped"
    elif not pool.warm.is_set():
        state = "starting"
    else:
        state = "warm" if alive else "down"
    return {"ok": state == "warm", "state": state, "workers_alive": alive, "size": size}


def run_bounded(
    function: Callable, /, timeout: float | None = None, *, inline_first: bool = False, **kwargs
) -> Grade:
    """Run a module-level `function(**kwargs)` returning a Grade in a worker, under the limits.

    `inline_first` lets the call run in this process while no worker is ready yet (only for
    graders that bound themselves); a template mistake raised in the worker is raised here.
    """
    if timeout is None:
        timeout = _settings.call_timeout()
    return _get_pool().run(function, kwargs, timeout, inline_first=inline_first)


# The name the pool's tests and hooks know it by.
run_in_pool = run_bounded


def runs_inline() -> bool:
    """True when the graders' public functions should run in this process: inside a worker
    (already bounded), or when configured (``inline`` / ``GRADING_INLINE=1``, for tests)."""
    if _in_worker:
        return True
    if _settings.inline is not None:
        return _settings.inline
    return os.environ.get("GRADING_INLINE") == "1"


def shutdown_pool() -> None:
    """Stop every worker; the next call starts a fresh pool."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None and pool.pid == os.getpid():
        pool.shutdown()


# At exit, stop the pool before multiprocessing removes the fork server's socket directory: a
# multiprocessing finalizer with a positive priority runs first in its exit hook, whichever
# order the atexit hooks run in (multiprocessing re-registers its own when logging starts).
util.Finalize(None, shutdown_pool, exitpriority=100)
atexit.register(shutdown_pool)
