"""`manage.py rebuild_item_statistics`: compute every kept item statistic again from the stored
grades (after a restore, a bulk import, or to check the kept figures)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.instructor import statistics


class Command(BaseCommand):
    help = (
        "Recompute the item page's kept statistics (per template, and per template in each "
        "quiz) from every stored response. The site keeps them current as grades arrive; run "
        "this after loading responses by other means."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--course", help="only this course (its slug); default: every course")

    def handle(self, *args, **options) -> None:
        course = None
        if options["course"]:
            course = Course.objects.filter(slug=options["course"]).first()
            if course is None:
                raise CommandError(f"No course with the slug {options['course']!r}.")
        n = statistics.rebuild(course)
        self.stdout.write(f"computed {n} item statistic{'s' if n != 1 else ''}")
