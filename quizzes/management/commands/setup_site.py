"""Everything `make run` needs after migrating: the demo course and its two offerings, the
accounts, the book, the question bank, a synthetic class split between the offerings.

Each step is idempotent, so running it again duplicates and loses nothing. It lives in the
quizzes app because it orchestrates both apps, and only quizzes may depend on courseware: the
commands it runs are imported, so the layer check sees every dependency.
"""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand

from courseware.management.commands import sync_content
from courseware.management.commands.setup_demo import (
    SECTION_1,
    SECTION_2,
    TERM,
    create_demo,
    enroll_demo,
    print_summary,
)
from courseware.models import Offering
from quizzes.management.commands import seed_demo, sync_questions
from quizzes.services.offerings import copy_offering


class Command(BaseCommand):
    help = (
        "Create the demo course, its two offerings and the accounts, load the book and question "
        "bank, seed a class split between the offerings."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", default="8000", help="Port printed in the site's URL.")
        parser.add_argument(
            "--students",
            type=int,
            default=30,
            help="Synthetic students for the dashboards, split between the two offerings.",
        )

    def handle(self, *args, port: str, students: int, **options):
        created = create_demo()
        # The book and bank loaders are their own commands; each reports what changed.
        call_command(sync_content.Command(), stdout=self.stdout)
        call_command(sync_questions.Command(), stdout=self.stdout)
        second = ensure_second_offering()
        enroll_demo()
        if students > 0:
            first_half = (students + 1) // 2
            call_command(
                seed_demo.Command(), students=first_half, offering=SECTION_1[0], stdout=self.stdout
            )
            call_command(
                seed_demo.Command(),
                students=students - first_half,
                offering=second.slug,
                first=first_half + 1,
                stdout=self.stdout,
            )
        print_summary(self, created, port)


def ensure_second_offering() -> Offering:
    """The demo's section 2: a copy of section 1 (its own quiz rows), made once."""
    slug, title, section = SECTION_2
    existing = Offering.objects.filter(slug=slug).first()
    if existing is not None:
        return existing
    return copy_offering(
        source=Offering.objects.get(slug=SECTION_1[0]),
        slug=slug,
        title=title,
        term=TERM,
        section=section,
    )
