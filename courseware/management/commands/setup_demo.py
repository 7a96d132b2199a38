"""Create the demo course, its first offering and the demo accounts (development only; never
from a migration). `setup_site` adds the second offering, a copy of the first."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from courseware.models import Course, Enrollment, Offering, Part, Role, SiteRole, SiteRoleKind

COURSE_TITLE = "AI Efficiency, Part 1: The Hardware Reality"
COURSE_DESCRIPTION = (
    "What does a model cost to run, in latency, memory and dollars, and how do we make it "
    "cheaper? Part 1 answers from the hardware up."
)
PART_TITLE = "The Hardware Reality"
DEMO_PASSWORD = "learn-hardware"
TERM = "Spring 2027"
# (slug, title, section): the first follows the quiz files and is the site's default; the
# second is a copy of it (setup_site), so each section has its own quizzes, roster and grades.
SECTION_1 = (settings.COURSE_SLUG, "The Hardware Reality, Spring 2027, section 1", "1")
SECTION_2 = (f"{settings.COURSE_SLUG}-2", "The Hardware Reality, Spring 2027, section 2", "2")
S1, S2 = SECTION_1[0], SECTION_2[0]
# username, first and last name, {offering slug: role}, site roles.
DEMO_ACCOUNTS = [
    ("student1", "Ada", "Lovelace", {S1: Role.STUDENT, S2: Role.STUDENT}, ()),
    ("student2", "Grace", "Hopper", {S1: Role.STUDENT}, ()),
    ("student3", "Alan", "Turing", {S2: Role.STUDENT}, ()),
    ("instructor", "Iris", "Instructor", {S1: Role.INSTRUCTOR}, ()),
    ("instructor2", "Ines", "Instructor", {S2: Role.INSTRUCTOR}, ()),
    ("assistant", "Tomas", "Assistant", {S1: Role.TEACHING_ASSISTANT}, ()),
    ("author", "Arlo", "Author", {}, (SiteRoleKind.AUTHOR,)),
    ("siteadmin", "Sam", "Siteadmin", {}, (SiteRoleKind.ADMINISTRATOR,)),
]


class Command(BaseCommand):
    help = (
        "Create the demo course, Part 1, its first offering and the demo accounts (password "
        "'learn-hardware'). Running it again changes nothing that exists."
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
    """Create the course, Part 1, the first offering, the accounts, their site roles and
    their enrolments in the offerings that exist; return the usernames created now."""
    course, _ = Course.objects.get_or_create(
        slug=settings.COURSE_SLUG,
        defaults={"title": COURSE_TITLE, "description": COURSE_DESCRIPTION},
    )
    Part.objects.get_or_create(course=course, number=1, defaults={"title": PART_TITLE})
    slug, title, section = SECTION_1
    Offering.objects.get_or_create(
        slug=slug,
        defaults={
            "course": course,
            "title": title,
            "term": TERM,
            "section": section,
            "is_default": not Offering.objects.filter(is_default=True).exists(),
            "follows_files": True,
        },
    )
    user_model = get_user_model()
    created = []
    for username, first, last, _, site_roles in DEMO_ACCOUNTS:
        user, was_created = user_model.objects.get_or_create(
            username=username,
            defaults={"first_name": first, "last_name": last, "email": f"{username}@example.org"},
        )
        if was_created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
            created.append(username)
        for role in site_roles:
            SiteRole.objects.get_or_create(user=user, role=role)
    enroll_demo()
    return created


def enroll_demo() -> None:
    """Enrol the demo accounts in each demo offering that exists (an existing enrolment, of
    any role, is left as it is)."""
    offerings = {o.slug: o for o in Offering.objects.filter(slug__in=[S1, S2])}
    users = {
        u.username: u
        for u in get_user_model().objects.filter(username__in=[a[0] for a in DEMO_ACCOUNTS])
    }
    for username, _, _, roles, _ in DEMO_ACCOUNTS:
        for slug, role in roles.items():
            if slug in offerings and username in users:
                Enrollment.objects.get_or_create(
                    user=users[username], offering=offerings[slug], defaults={"role": role}
                )


def print_summary(command: BaseCommand, created: list[str], port: str) -> None:
    course = Course.objects.get(slug=settings.COURSE_SLUG)
    command.stdout.write(command.style.SUCCESS(f"Course: {course.title}"))
    for offering in Offering.objects.filter(slug__in=[S1, S2]).order_by("slug"):
        command.stdout.write(f"  offering {offering.title}: /o/{offering.slug}/")
    state = "created: " + ", ".join(created) if created else "already present"
    command.stdout.write(f"Demo accounts ({state}), password '{DEMO_PASSWORD}':")
    for username, _, _, roles, site_roles in DEMO_ACCOUNTS:
        held = [
            f"{Role(role).label.lower()} in section {slug_section(slug)}"
            for slug, role in roles.items()
        ]
        held += [SiteRoleKind(role).label.lower() for role in site_roles]
        command.stdout.write(f"  {username:<12} {', '.join(held)}")
    command.stdout.write(f"Site: http://127.0.0.1:{port}/")


def slug_section(slug: str) -> str:
    return SECTION_1[2] if slug == S1 else SECTION_2[2]
