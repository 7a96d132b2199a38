"""Load the book's chapter files into the current course, all or nothing."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from courseware.services import BOOK_DIR, BookError, read_chapter_files, sync_chapters


class Command(BaseCommand):
    help = (
        "Load content/book/*.md into the current course's chapters. Every file is checked first "
        "(front matter, live figures, directives); one bad file and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dir", default=str(BOOK_DIR), help="Folder of chapter files (default content/book)."
        )
        parser.add_argument(
            "--check", action="store_true", help="Only check the files; write nothing."
        )

    def handle(self, *args, dir: str, check: bool, **options):
        try:
            files = read_chapter_files(Path(dir))
        except BookError as exc:
            count = len(exc.problems)
            raise CommandError(
                f"The book was not loaded ({count} problem{'s' if count != 1 else ''}; "
                "nothing was changed):\n  " + "\n  ".join(exc.problems)
            ) from None
        if check:
            self.stdout.write(f"Book: {len(files)} chapter files are valid.")
            return
        course = Course.objects.filter(slug=_course_slug()).first()
        if course is None:
            raise CommandError(
                f"There is no course '{_course_slug()}' yet: run manage.py setup_demo first."
            )
        report = sync_chapters(course=course, files=files)
        self.stdout.write(self.style.SUCCESS(f"Book: {report.summary()}."))


def _course_slug() -> str:
    from django.conf import settings

    return settings.COURSE_SLUG
