"""Tasks whose worker died: back to the queue, so a regrade or a validation resumes.

A worker claims a task by marking it RUNNING with its id; killed (or cut off from the
database) mid-task, it leaves the row RUNNING forever, and the regrade page says "Running" for
good. Every task here is written to be run again (`quizzes.tasks`: each keeps its progress in
the site's own rows; a regrade applies in batches and picks up where it stopped), so a RUNNING
task whose worker's heartbeat is stale is made READY again and the next worker resumes it. A
task started by a worker that never wrote a heartbeat (an operator's plain `db_worker`) is
left alone for `UNKNOWN_WORKER_GRACE` first. A task that has now been claimed `MAX_CLAIMS`
times without finishing is failed instead: it may be what kills its workers.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from health.heartbeat import live_worker_ids

logger = logging.getLogger(__name__)

MAX_CLAIMS = 3
UNKNOWN_WORKER_GRACE = timedelta(hours=1)


class WorkerDied(Exception):
    """Recorded as the failure of a task whose workers kept dying while running it."""


def requeue_orphans(*, dead_worker: str | None = None) -> int:
    """Make every orphaned RUNNING task READY again (or FAILED after `MAX_CLAIMS` claims);
    `dead_worker`: a worker id to treat as dead even if its heartbeat is fresh (the calling
    worker, after a database error cut a task short). Returns how many were requeued."""
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    from health.models import WorkerHeartbeat

    live = live_worker_ids() - {dead_worker}
    known = set(WorkerHeartbeat.objects.values_list("worker_id", flat=True))
    requeued = 0
    now = timezone.now()
    with transaction.atomic():
        for row in DBTaskResult.objects.select_for_update().filter(status=TaskResultStatus.RUNNING):
            last = row.worker_ids[-1] if row.worker_ids else ""
            if last in live:
                continue
            if last not in known and last != dead_worker:
                started = row.started_at or row.enqueued_at
                if started and now - started < UNKNOWN_WORKER_GRACE:
                    continue
            if len(row.worker_ids) >= MAX_CLAIMS:
                row.set_failed(
                    WorkerDied(f"its worker stopped {len(row.worker_ids)} times while running it")
                )
                logger.error("task %s failed for good: its workers kept dying", row.pk)
                continue
            row.status = TaskResultStatus.READY
            row.save(update_fields=["status"])
            requeued += 1
            logger.warning("task %s (%s) requeued: its worker stopped", row.pk, row.task_path)
    return requeued
