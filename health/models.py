"""The task worker's heartbeat: one row per worker process, written every few seconds."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """A worker's last sign of life: when, what it was doing, and its last database error."""

    worker_id = models.CharField(max_length=64, unique=True)
    hostname = models.CharField(max_length=255, blank=True)
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)
    # "running", "waiting for the database", "stopped"
    state = models.CharField(max_length=40, default="running")
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"worker {self.worker_id[:8]} on {self.hostname} ({self.state})"
