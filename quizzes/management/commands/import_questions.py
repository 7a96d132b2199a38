"""Read an exported folder of templates and quizzes back: every file checked, all or nothing."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.authoring import MAX_SEEDS, import_dir
from quizzes.services.bank import BankError, publication_seeds


class Command(BaseCommand):
    help = (
        "Import templates (DIR/<chapter>/<slug>.yaml) and quizzes (DIR/quizzes/<slug>.yaml). "
        "Every file is parsed, cross-checked and validated first; one bad file refuses the "
        "whole import and nothing is changed. Files identical to what is stored change nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "dir", help="The folder to read (e.g. one written by export_questions)."
        )
        parser.add_argument(
            "--seeds",
            type=int,
            default=None,
            help=(
                "Validation seeds per template (default: QUIZ_PUBLICATION_SEEDS, the one "
                f"publication gate's count; at most {MAX_SEEDS}); min_variants and outcome "
                "balance are judged only from 200 seeds on."
            ),
        )

    def handle(self, *args, dir: str, seeds: int | None, **options):
        seeds = publication_seeds() if seeds is None else seeds
        if not 1 <= seeds <= MAX_SEEDS:
            raise CommandError(f"--seeds must be between 1 and {MAX_SEEDS}.")
        root = Path(dir)
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder.")
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        try:
            report = import_dir(root, course=course, seeds=seeds)
        except BankError as exc:
            raise CommandError(
                f"The import has {len(exc.problems)} problem(s); nothing was changed:\n"
                + "\n".join(f"  {p}" for p in exc.problems)
            ) from None
        self.stdout.write(f"Imported: {report.summary()}")
