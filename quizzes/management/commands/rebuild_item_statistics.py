"""`manage.py rebuild_item_statistics`: compute every kept item statistic, and each offering's kept
item index and misconception map, again from the stored grades (after a restore, a bulk import,
or to check the kept figures)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from courseware.models import Offering
from quizzes.services.instructor import offering_statistics, statistics


class Command(BaseCommand):
    help = (
        "Recompute the item page's kept statistics (per template in each offering, and per "
        "template in each quiz), item index and misconception map from every stored response. "
        "The site keeps them current as "
        "grades arrive; run this after loading responses by other means."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--offering", help="only this offering (its slug); default: every offering"
        )

    def handle(self, *args, **options) -> None:
        offering = None
        if options["offering"]:
            offering = Offering.objects.filter(slug=options["offering"]).first()
            if offering is None:
                raise CommandError(f"No offering with the slug {options['offering']!r}.")
        n = statistics.rebuild(offering)
        self.stdout.write(f"computed {n} item statistic{'s' if n != 1 else ''}")
        pages = offering_statistics.rebuild(offering)
        self.stdout.write(f"computed {pages} offering page{'s' if pages != 1 else ''}")
