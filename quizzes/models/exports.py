"""A large export prepared in the background: its progress, its file, and when it goes."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ExportRun(models.Model):
    """Every response of an offering as CSV or JSON, written to a private file by a task
    (`services.instructor.response_export`); downloadable by the offering's staff until
    `expires_at`, then removed."""

    class Kind(models.TextChoices):
        RESPONSES_CSV = "responses.csv", "all responses (CSV)"
        RESPONSES_JSON = "responses.json", "all responses (JSON)"

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the background worker"
        RUNNING = "running", "being written"
        DONE = "done", "ready"
        FAILED = "failed", "failed"

    offering = models.ForeignKey(
        "courseware.Offering", on_delete=models.CASCADE, related_name="export_runs"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    rows_total = models.PositiveIntegerField(null=True, blank=True)
    rows_done = models.PositiveIntegerField(default=0)
    # The file's name inside settings.EXPORTS_ROOT (never served by a URL of its own).
    file_name = models.CharField(max_length=200, blank=True)
    size = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} of offering {self.offering_id} ({self.status})"

    @property
    def percent(self) -> int:
        if not self.rows_total:
            return 100 if self.status == self.Status.DONE else 0
        return min(100, round(self.rows_done * 100 / self.rows_total))

    @property
    def working(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def ready(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def failed(self) -> bool:
        return self.status == self.Status.FAILED
