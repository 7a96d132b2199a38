"""`manage.py seed_demo --students N`: a synthetic class for the instructor dashboards."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Course
from quizzes.services.seed import seed_class


class Command(BaseCommand):
    help = (
        "Create N demo students (demo-student-0001, ...) with realistic attempts on every "
        "quiz and reading progress. Running it again adds only the students still missing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--students", type=int, default=30, help="How many demo students the class has."
        )

    def handle(self, *args, students: int, **options):
        if students < 0 or students > 100_000:
            raise CommandError("--students must be between 0 and 100000.")
        try:
            course = Course.objects.current()
        except Course.DoesNotExist:
            raise CommandError("No course yet: run `manage.py setup_demo` first.") from None
        started = time.perf_counter()
        report = seed_class(course=course, students=students)
        self.stdout.write(
            f"seed_demo: {students} demo students ({report.created_students} new, "
            f"{report.seeded_students} given work): {report.attempts} attempts, "
            f"{report.variants} variants, {report.responses} responses "
            f"in {time.perf_counter() - started:.1f} s"
        )
