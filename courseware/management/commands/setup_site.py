"""Everything `make run` needs after migrating: the demo course, the book, the question bank.

Each step is idempotent, so running it again duplicates and loses nothing.
"""

from __future__ import annotations

from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand

from .setup_demo import create_demo, print_summary


class Command(BaseCommand):
    help = "Create the demo course and accounts, load the book and question bank, seed a class."

    def add_arguments(self, parser):
        parser.add_argument("--port", default="8000", help="Port printed in the site's URL.")
        parser.add_argument(
            "--students", type=int, default=30, help="Synthetic students for the dashboards."
        )

    def handle(self, *args, port: str, students: int, **options):
        created = create_demo()
        commands = get_commands()
        # The book and bank loaders live in their own commands; each reports what changed.
        for name in ("sync_content", "sync_questions"):
            if name in commands:
                call_command(name, stdout=self.stdout)
        if "seed_demo" in commands and students > 0:
            call_command("seed_demo", students=students, stdout=self.stdout)
        print_summary(self, created, port)
