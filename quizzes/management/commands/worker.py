"""`manage.py worker`: run background tasks from the database queue (what `make run` starts).

It schedules the expired-attempt sweep (if none is waiting) and then runs django-tasks-db's
worker on every queue, made resilient (`health.worker`): a database error makes it back off
and reconnect, never exit; its heartbeat shows on the instructor dashboard and `/readyz`; tasks
a dead worker left running are resumed. `--supervise` runs it as a child process and restarts
it if it dies anyway. Several workers may run at once against PostgreSQL; each claims a task
with a row lock (`docs/deploy.md`).
"""

from __future__ import annotations

import logging
import sys

from django.core.management.base import BaseCommand
from django.db import DatabaseError
from django.utils.crypto import get_random_string

from health.worker import ResilientWorker
from health.worker import supervise as supervise_command
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
        parser.add_argument(
            "--supervise",
            action="store_true",
            help="Run the worker as a child process and start it again whenever it exits.",
        )

    def handle(self, *args, interval: float, batch: bool, supervise: bool, **options) -> None:
        verbosity = options["verbosity"]
        if supervise:
            command = [sys.executable, sys.argv[0], "worker", f"--interval={interval}"]
            command.append(f"--verbosity={verbosity}")
            supervise_command(command)
            return
        if verbosity == 0:
            logging.getLogger("django_tasks_db").setLevel(logging.CRITICAL)
            logging.getLogger("django_tasks").setLevel(logging.CRITICAL)
        if not batch:
            try:
                if schedule_expiry_sweep(delay=0):
                    self.stdout.write("scheduled the expired-attempt sweep")
            except DatabaseError as error:  # the worker waits for the database below
                self.stderr.write(f"could not schedule the expiry sweep yet: {error}")
        worker = ResilientWorker(
            # After a database error the sweep's chain may have broken: start it again (it
            # never doubles; a waiting sweep is kept).
            on_recover=None if batch else (lambda: schedule_expiry_sweep(delay=0)),
            queue_names=["*"],
            interval=interval,
            batch=batch,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=get_random_string(32),
            excluded_queue_names=[],
        )
        worker.configure_signals()
        worker.run()
