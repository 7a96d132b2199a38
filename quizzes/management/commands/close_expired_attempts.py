"""`manage.py close_expired_attempts`: auto-submit every open attempt past its deadline."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import timezone

from quizzes.services.attempts import close_expired_attempts


class Command(BaseCommand):
    help = (
        "Submit every open attempt whose deadline (time limit or close date) has passed, "
        "grading an exam's saved answers. Safe to run often, e.g. from cron every minute."
    )

    def handle(self, *args, **options) -> None:
        closed = close_expired_attempts(now=timezone.now())
        self.stdout.write(f"closed {closed} expired attempt{'s' if closed != 1 else ''}")
