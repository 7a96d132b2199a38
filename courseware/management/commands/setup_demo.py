"""Create the demo course and demo accounts (development only; never from a migration)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from courseware.models import Course, Enrollment, Part, Role

COURSE_TITLE = "AI Efficiency, Part 1: The Hardware Reality"
COURSE_DESCRIPTION = (
    "What does a model cost to run, in latency, memory and dollars, and how do we make it "
    "cheaper? Part 1 answers from the hardware up."
)
PART_TITLE = "The Hardware Reality"
DEMO_PASSWORD = "learn-hardware"
DEMO_ACCOUNTS = [
    ("student1", Role.STUDENT, "Ada", "Lovelace"),
    ("student2", Role.STUDENT, "Grace", "Hopper"),
    ("student3", Role.STUDENT, "Alan", "Turing"),
    ("instructor", Role.INSTRUCTOR, "Iris", "Instructor"),
    ("author", Role.AUTHOR, "Arlo", "Author"),
]


class Command(BaseCommand):
    help = (
        "Create the demo course, Part 1 and the demo accounts (password 'learn-hardware'). "
        "Running it again changes nothing that exists."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--port", default="8000", help="Port to print in the site's URL (default 8000)."
        )

    def handle(self, *args, port: str, **options):
        created = create_demo()
        if options.get("verbosity", 1) > 0:
            print_summary(self, created, port)


@transaction.atomic
def create_demo() -> list[str]:
    """Create the course, Part 1 and the accounts; return the usernames created now."""
    course, _ = Course.objects.get_or_create(
        slug=settings.COURSE_SLUG,
        defaults={"title": COURSE_TITLE, "description": COURSE_DESCRIPTION},
    )
    Part.objects.get_or_create(course=course, number=1, defaults={"title": PART_TITLE})
    user_model = get_user_model()
    created = []
    for username, role, first, last in DEMO_ACCOUNTS:
        user, was_created = user_model.objects.get_or_create(
            username=username,
            defaults={"first_name": first, "last_name": last, "email": f"{username}@example.org"},
        )
        if was_created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
            created.append(username)
        Enrollment.objects.get_or_create(user=user, course=course, defaults={"role": role})
    return created


def print_summary(command: BaseCommand, created: list[str], port: str) -> None:
    course = Course.objects.get(slug=settings.COURSE_SLUG)
    command.stdout.write(command.style.SUCCESS(f"Course: {course.title}"))
    state = "created: " + ", ".join(created) if created else "already present"
    command.stdout.write(f"Demo accounts ({state}), password '{DEMO_PASSWORD}':")
    for username, role, _, _ in DEMO_ACCOUNTS:
        command.stdout.write(f"  {username:<11} {role.label.lower()}")
    command.stdout.write(f"Site: http://127.0.0.1:{port}/")
