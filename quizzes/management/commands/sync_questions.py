"""Load the question bank and the quiz definitions from content/questions/ into the database."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.bank import QUESTIONS_DIR, BankError, read_bank, sync_bank


class Command(BaseCommand):
    help = (
        "Read every template and quiz file under content/questions/, check all of them, and only "
        "then write them to the database (all or nothing). Unchanged files change nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dir",
            default=str(QUESTIONS_DIR),
            help="Folder of template files (quiz definitions in its quizzes/ subfolder).",
        )

    def handle(self, *args, dir: str, **options):
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        root = Path(dir)
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder.")
        try:
            bank = read_bank(root)
        except BankError as exc:
            raise CommandError(
                f"The question bank has {len(exc.problems)} problem(s); nothing was changed:\n"
                + "\n".join(f"  {p}" for p in exc.problems)
            ) from None
        report = sync_bank(bank=bank, course=course)
        self.stdout.write(f"Question bank: {report.summary()}")
