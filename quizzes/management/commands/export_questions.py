"""Write the question bank and the quizzes to a folder, in the format of content/questions/."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.authoring import AuthoringError, export_to_dir


class Command(BaseCommand):
    help = (
        "Write every question template as DIR/<chapter>/<slug>.yaml (its latest published "
        "version, byte for byte) and every quiz as DIR/quizzes/<slug>.yaml. Templates never "
        "published are skipped unless --drafts is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("dir", help="A new or empty folder to write the files into.")
        parser.add_argument(
            "--drafts",
            action="store_true",
            help="Write each template's current draft instead of its latest published version.",
        )

    def handle(self, *args, dir: str, drafts: bool, **options):
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        try:
            written = export_to_dir(Path(dir), course=course, drafts=drafts)
        except AuthoringError as exc:
            raise CommandError(str(exc)) from None
        quizzes = sum(1 for path in written if path.startswith("quizzes/"))
        self.stdout.write(
            f"Wrote {len(written) - quizzes} template(s) and {quizzes} quiz file(s) to {dir}."
        )
