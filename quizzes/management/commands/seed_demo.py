"""`manage.py seed_demo --students N`: a synthetic class for the instructor dashboards."""

from __future__ import annotations

import os
import time

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Offering
from quizzes.services.seed import seed_class


class Command(BaseCommand):
    help = (
        "Create N demo students (demo-student-0001, ...) in an offering, with realistic attempts "
        "on every quiz and reading progress. Running it again adds only the students still "
        "missing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--students", type=int, default=30, help="How many demo students the class has."
        )
        parser.add_argument(
            "--offering", default=None, help="The offering's slug (default: the site's default)."
        )
        parser.add_argument(
            "--first", type=int, default=1, help="Number of the first demo student (default 1)."
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=min(4, os.cpu_count() or 1),
            help="Processes drawing the students' variants (default: the cores, at most 4).",
        )

    def handle(
        self, *args, students: int, offering: str | None, first: int, workers: int, **options
    ):
        if students < 0 or students > 100_000:
            raise CommandError("--students must be between 0 and 100000.")
        if first < 1 or first > 900_000:
            raise CommandError("--first must be between 1 and 900000.")
        found = (
            Offering.objects.default()
            if offering is None
            else Offering.objects.filter(slug=offering).select_related("course").first()
        )
        if found is None:
            raise CommandError(
                "No such offering yet: run `manage.py setup_demo` first."
                if offering is None
                else f"No offering with the slug {offering!r}."
            )
        started = time.perf_counter()
        report = seed_class(offering=found, students=students, first=first, workers=workers)
        self.stdout.write(
            f"seed_demo: {students} demo students in {found.slug} ({report.created_students} "
            f"new, {report.seeded_students} given work): {report.attempts} attempts, "
            f"{report.variants} variants, {report.responses} responses "
            f"in {time.perf_counter() - started:.1f} s"
        )
