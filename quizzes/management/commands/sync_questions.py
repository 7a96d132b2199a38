"""Load the question bank and the quiz definitions (settings.QUESTIONS_DIR) into the database.

Every template it would create or change passes the publication gate first (`bank.gate`), as
the studio's Publish and the imports do; one refusal and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.bank import BankError, questions_dir, read_bank, sync_bank


class Command(BaseCommand):
    help = (
        "Read every template and quiz file of the bank, check all of them (every new or changed "
        "template through the publication gate), and only then write them to the database "
        "(all or nothing). Unchanged files change nothing. A template whose current version "
        "was made in the studio (or uploaded, or imported) and differs from its file keeps "
        "that version and is reported by slug, and so is a quiz edited in the browser, unless "
        "--prefer-files."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dir",
            default=None,
            help=(
                "Folder of template files, quiz definitions in its quizzes/ subfolder "
                "(default: the QUESTIONS_DIR setting)."
            ),
        )
        parser.add_argument(
            "--prefer-files",
            action="store_true",
            help=(
                "Publish each changed file even where the current version was made in the "
                "studio, by an upload or an import, and each quiz file even where the quiz was "
                "edited in the browser (by default those are kept and reported)."
            ),
        )

    def handle(self, *args, dir: str | None, prefer_files: bool = False, **options):
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        root = questions_dir() if dir is None else Path(dir)
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder.")
        try:
            bank = read_bank(root, gate_for=course)
        except BankError as exc:
            raise CommandError(
                f"The question bank has {len(exc.problems)} problem(s); nothing was changed:\n"
                + "\n".join(f"  {p}" for p in exc.problems)
            ) from None
        report = sync_bank(bank=bank, course=course, prefer_files=prefer_files)
        self.stdout.write(f"Question bank: {report.summary()}")
