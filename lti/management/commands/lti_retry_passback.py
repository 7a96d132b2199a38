"""Send the grade passbacks that are due (for a task backend that cannot defer, or by hand)."""

from django.core.management.base import BaseCommand

from lti.passback import retry_due


class Command(BaseCommand):
    help = "Send every LMS score waiting to be sent or whose retry time has come."

    def handle(self, *args, **options):
        sent = retry_due()
        self.stdout.write(self.style.SUCCESS(f"{sent} score(s) now current in the LMS."))
