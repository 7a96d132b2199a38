"""Writing and reading the task worker's heartbeat.

A worker writes its row every `HEARTBEAT_SECONDS` from a thread of its own (so a long task
does not stop it); a row older than `stale_after()` (`WORKER_STALE_SECONDS`, 120 s) means that
worker is gone or cannot reach the database. The instructor dashboard and `/readyz` read
`latest()`.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

HEARTBEAT_SECONDS = 10.0
STALE_AFTER_SECONDS = 120.0
RUNNING, WAITING, STOPPED = "running", "waiting for the database", "stopped"


def stale_after() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "WORKER_STALE_SECONDS", STALE_AFTER_SECONDS)))


@dataclass(frozen=True)
class Seen:
    """What the site knows of its workers: the latest heartbeat, and whether it is fresh."""

    seen_at: datetime | None
    state: str
    fresh: bool
    last_error: str = ""

    @property
    def ago_seconds(self) -> float | None:
        if self.seen_at is None:
            return None
        return max(0.0, (timezone.now() - self.seen_at).total_seconds())

    @property
    def ago_text(self) -> str:
        """ "12 seconds ago", "7 minutes ago", "1 day, 2 hours ago" ("" if never seen)."""
        from django.utils.timesince import timesince

        seconds = self.ago_seconds
        if seconds is None:
            return ""
        if seconds < 60:
            whole = int(seconds)
            return f"{whole} second{'s' if whole != 1 else ''} ago"
        return f"{timesince(self.seen_at)} ago"


def latest() -> Seen:
    """The most recent heartbeat of any worker (one query)."""
    from health.models import WorkerHeartbeat

    row = WorkerHeartbeat.objects.order_by("-seen_at").first()
    if row is None:
        return Seen(None, "never seen", False)
    fresh = row.state != STOPPED and timezone.now() - row.seen_at <= stale_after()
    return Seen(row.seen_at, row.state, fresh, row.last_error)


def live_worker_ids() -> set[str]:
    """Workers whose heartbeat is fresh."""
    from health.models import WorkerHeartbeat

    since = timezone.now() - stale_after()
    rows = WorkerHeartbeat.objects.filter(seen_at__gte=since).exclude(state=STOPPED)
    return set(rows.values_list("worker_id", flat=True))


def write(worker_id: str, *, state: str, error: str = "", started_at: datetime) -> bool:
    """Record that `worker_id` is alive (and its state); False when the database refused."""
    from health.models import WorkerHeartbeat

    try:
        WorkerHeartbeat.objects.update_or_create(
            worker_id=worker_id,
            defaults={
                "hostname": socket.gethostname()[:255],
                "pid": os.getpid(),
                "started_at": started_at,
                "seen_at": timezone.now(),
                "state": state,
                "last_error": error[:2000],
            },
        )
        # Rows of workers gone for a day say nothing any more.
        WorkerHeartbeat.objects.filter(seen_at__lt=timezone.now() - timedelta(days=1)).delete()
    except DatabaseError:
        return False
    return True


class Heartbeat:
    """A daemon thread that writes a worker's heartbeat every `interval` seconds and, every
    `sweep_every` beats, hands orphaned tasks back to the queue (`recovery.requeue_orphans`)."""

    def __init__(self, worker_id: str, *, interval: float = HEARTBEAT_SECONDS, sweep_every=6):
        self.worker_id = worker_id
        self.interval = interval
        self.sweep_every = sweep_every
        self.started_at = timezone.now()
        self.state = RUNNING
        self.error = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)

    def start(self, *, thread: bool = True) -> None:
        """Beat now and, with `thread`, every `interval` seconds from here on (a worker that
        runs one batch and exits beats only at its start and end)."""
        self.beat()
        if thread:
            self._thread.start()

    def beat(self) -> bool:
        return write(self.worker_id, state=self.state, error=self.error, started_at=self.started_at)

    def set_state(self, state: str, error: str = "") -> None:
        self.state, self.error = state, error
        self.beat()

    def stop(self) -> None:
        self._stop.set()
        self.state = STOPPED
        self.beat()

    def _run(self) -> None:
        from health.recovery import requeue_orphans

        beats = 0
        try:
            while not self._stop.wait(self.interval):
                beats += 1
                if self.beat() and beats % self.sweep_every == 0:
                    try:
                        requeue_orphans()
                    except DatabaseError:
                        pass
        finally:
            connection.close()
