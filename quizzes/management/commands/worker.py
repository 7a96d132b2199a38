"""`manage.py worker`: run background tasks from the database queue (what `make run` starts).

It schedules the expired-attempt sweep (if none is waiting) and then runs django-tasks-db's
`db_worker` on every queue. Several workers may run at once against PostgreSQL; each claims a
task with a row lock (`docs/deploy.md`).
"""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand

from quizzes.tasks import schedule_expiry_sweep


class Command(BaseCommand):
    help = (
        "Run the background-task worker (database backend): regrades, long validations, "
        "closing expired attempts. Ctrl-C stops it after the task it is running."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--interval",
            type=float,
            default=1.0,
            help="Seconds to wait when the queue is empty (default 1).",
        )
        parser.add_argument(
            "--batch",
            action="store_true",
            help="Run the tasks that are due, then exit (for tests and one-off runs).",
        )

    def handle(self, *args, interval: float, batch: bool, **options) -> None:
        if not batch and schedule_expiry_sweep(delay=0):
            self.stdout.write("scheduled the expired-attempt sweep")
        worker_options = {"interval": interval, "reload": False, "startup_delay": False}
        if batch:
            worker_options["batch"] = True
        call_command("db_worker", queue_name="*", verbosity=options["verbosity"], **worker_options)
