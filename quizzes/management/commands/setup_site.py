"""Everything `make run` needs after migrating: the demo course, the book, the question bank.

Each step is idempotent, so running it again duplicates and loses nothing. It lives in the
quizzes app because it orchestrates both apps, and only quizzes may depend on courseware: the
commands it runs are imported, so the layer check sees every dependency.
"""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand

from courseware.management.commands import sync_content
from courseware.management.commands.setup_demo import create_demo, print_summary
from quizzes.management.commands import seed_demo, sync_questions


class Command(BaseCommand):
    help = "Create the demo course and accounts, load the book and question bank, seed a class."

    def add_arguments(self, parser):
        parser.add_argument("--port", default="8000", help="Port printed in the site's URL.")
        parser.add_argument(
            "--students", type=int, default=30, help="Synthetic students for the dashboards."
        )

    def handle(self, *args, port: str, students: int, **options):
        created = create_demo()
        # The book and bank loaders are their own commands; each reports what changed.
        call_command(sync_content.Command(), stdout=self.stdout)
        call_command(sync_questions.Command(), stdout=self.stdout)
        if students > 0:
            call_command(seed_demo.Command(), students=students, stdout=self.stdout)
        print_summary(self, created, port)
