"""The task worker that survives database errors, and the supervisor that restarts it.

django-tasks-db's worker exits for good on any database error but a SQLite lock (a lock held
over 20 s, a PostgreSQL restart, a read-only or stopped database): pages kept working while exam
expiry, regrades and grade passback stopped silently. `ResilientWorker` catches the error,
writes it to its heartbeat ("waiting for the database"), closes its connections and tries again
after a backoff (1 s doubling to `MAX_BACKOFF_S`), then hands back the task the error cut short
(`recovery.requeue_orphans`). `supervise` runs the worker as a child process and starts it
again when it dies anyway (killed, out of memory): what `make run` runs.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from django.db import DatabaseError, connections
from django_tasks_db.management.commands.db_worker import Worker

from health.heartbeat import RUNNING, WAITING, Heartbeat
from health.recovery import requeue_orphans

logger = logging.getLogger(__name__)

MAX_BACKOFF_S = 30.0
# The wait between tries (the tests replace it).
backoff_sleep = time.sleep


def close_connections() -> None:
    for conn in connections.all(initialized_only=True):
        try:
            conn.close()
        except DatabaseError:
            pass


class ResilientWorker(Worker):
    """django-tasks-db's `Worker` with a heartbeat, orphan recovery and database-error backoff."""

    def __init__(self, *, on_recover: Callable[[], object] | None = None, **options) -> None:
        super().__init__(**options)
        self.on_recover = on_recover
        self.heartbeat = Heartbeat(self.worker_id)
        self.database_errors = 0

    def run(self) -> None:
        self.heartbeat.start(thread=not self.batch)
        try:
            self._recover()
            self._run_until_stopped()
        finally:
            self.heartbeat.stop()

    def _run_until_stopped(self) -> None:
        while self.running:
            try:
                super().run()
                return  # batch done, or max_tasks reached
            except DatabaseError as error:
                self.database_errors += 1
                self.running_task = False
                self.heartbeat.set_state(WAITING, f"{type(error).__name__}: {error}")
                close_connections()
                self._wait_for_the_database(error)

    def _wait_for_the_database(self, error: DatabaseError) -> None:
        """Back off (1 s, doubling to `MAX_BACKOFF_S`) until the database answers again."""
        backoff = 1.0
        while self.running:
            logger.warning("database error; trying again in %.0f s: %s", backoff, error)
            backoff_sleep(backoff)
            if self._recover():
                return
            backoff = min(backoff * 2, MAX_BACKOFF_S)

    def _recover(self) -> bool:
        """Reconnected: say so, and requeue what a lost connection (or a dead worker) left
        running; False while the database still refuses."""
        try:
            requeue_orphans(dead_worker=self.worker_id)
            if self.on_recover is not None:
                self.on_recover()
        except DatabaseError as error:
            close_connections()
            self.heartbeat.error = f"{type(error).__name__}: {error}"
            return False
        self.heartbeat.set_state(RUNNING)
        return True


def supervise(
    command: Sequence[str],
    *,
    restart_delay: float = 2.0,
    max_restarts: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Run `command` and start it again whenever it exits, until SIGINT or SIGTERM or
    `max_restarts` restarts; the number of restarts. SIGTERM is passed on to the child; SIGINT
    is not (Ctrl-C in a terminal reaches the child itself, and a second one would make the
    worker drop the task it is running)."""
    stopping = False
    child: subprocess.Popen | None = None

    def stop(signum, frame):
        nonlocal stopping
        stopping = True
        if signum == signal.SIGTERM and child is not None and child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    restarts = 0
    try:
        while True:
            child = subprocess.Popen(list(command))
            code = child.wait()
            if stopping or (max_restarts is not None and restarts >= max_restarts):
                return restarts
            restarts += 1
            print(
                f"the task worker exited (code {code}); starting it again in {restart_delay:g} s",
                file=sys.stderr,
            )
            sleep(restart_delay)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
