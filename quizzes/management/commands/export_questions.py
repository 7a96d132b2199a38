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
        parser.add_argument(
            "--offering",
            default=None,
            help="Write this offering's quizzes (its slug; default: the site's default offering).",
        )

    def handle(self, *args, dir: str, drafts: bool, offering: str | None = None, **options):
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        chosen = None
        if offering is not None:
            chosen = course.offerings.filter(slug=offering).first()
            if chosen is None:
                raise CommandError(f"No offering with the slug {offering!r}.")
        try:
            written = export_to_dir(Path(dir), course=course, drafts=drafts, offering=chosen)
        except AuthoringError as exc:
            raise CommandError(str(exc)) from None
        quizzes = sum(1 for path in written if path.startswith("quizzes/"))
        self.stdout.write(
            f"Wrote {len(written) - quizzes} template(s) and {quizzes} quiz file(s) to {dir}."
        )
