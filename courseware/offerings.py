"""Writes on offerings that need nothing of the quizzes: create one, archive it, give a person a
role in it. Copying an offering (its quizzes) is `quizzes.services.offerings.copy_offering`.

Each write is one keyword-only function inside a transaction and raises ValidationError with a
message meant for the site administrator.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from .models import Course, Enrollment, EnrollmentSource, Offering, Role, validate_time_zone

SLUG_LENGTH = Offering._meta.get_field("slug").max_length


def check_new_slug(slug: str) -> str:
    slug = (slug or "").strip().lower()
    if not slug:
        raise ValidationError("Give the offering a short name for its address, like spring-2027.")
    if len(slug) > SLUG_LENGTH:
        raise ValidationError(f"The short name is at most {SLUG_LENGTH} characters.")
    try:
        validate_slug(slug)
    except ValidationError:
        raise ValidationError(
            "The short name may hold only letters, digits, hyphens and underscores."
        ) from None
    if Offering.objects.filter(slug=slug).exists():
        raise ValidationError(f"An offering named {slug!r} exists already: choose another name.")
    return slug


def free_slug(title: str, *, fallback: str = "offering") -> str:
    """An unused slug made from `title` ("Intro to ML (Fall)" -> intro-to-ml-fall, -2, ...)."""
    base = (slugify(title) or fallback)[: SLUG_LENGTH - 4].strip("-") or fallback
    taken = set(Offering.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _fields(title: str, term: str, section: str, time_zone: str) -> dict:
    title = (title or "").strip()
    if not title:
        raise ValidationError("Give the offering a title, like “The Hardware Reality, Fall 2027”.")
    validate_time_zone(time_zone)
    return {
        "title": title[:200],
        "term": (term or "").strip()[:100],
        "section": (section or "").strip()[:50],
        "time_zone": time_zone,
    }


def create_offering(
    *,
    course: Course,
    slug: str,
    title: str,
    term: str = "",
    section: str = "",
    time_zone: str = "UTC",
    by=None,
    copied_from: Offering | None = None,
) -> Offering:
    """A new, empty offering of `course` (no quizzes, no people)."""
    fields = _fields(title, term, section, time_zone)
    slug = check_new_slug(slug)
    try:
        with transaction.atomic():
            return Offering.objects.create(
                course=course, slug=slug, created_by=by, copied_from=copied_from, **fields
            )
    except IntegrityError:  # the same name, created a moment ago by someone else
        raise ValidationError(f"An offering named {slug!r} exists already.") from None


def update_offering(
    *, offering: Offering, title: str, term: str = "", section: str = "", time_zone: str = "UTC"
) -> Offering:
    """Change what an offering is called and its time zone (never its slug: it is in every
    address of the offering)."""
    for name, value in _fields(title, term, section, time_zone).items():
        setattr(offering, name, value)
    offering.save(update_fields=["title", "term", "section", "time_zone"])
    return offering


def set_archived(*, offering: Offering, archived: bool) -> Offering:
    """Archive (or restore) an offering: listed apart, and its students start no attempts. The
    default offering cannot be archived (quiz files and new LMS courses start from it)."""
    if archived and offering.is_default:
        raise ValidationError(
            "This is the site's default offering: make another one the default first."
        )
    Offering.objects.filter(pk=offering.pk).update(is_archived=archived)
    offering.is_archived = archived
    return offering


@transaction.atomic
def give_role(*, offering: Offering, user, role: str) -> Enrollment:
    """Give `user` the role in the offering (a site administrator's act: the enrolment is the
    site's own, so no LMS launch or roster changes it afterwards)."""
    if role not in Role.values:
        raise ValidationError("Choose instructor, teaching assistant or student.")
    enrollment, created = Enrollment.objects.select_for_update().get_or_create(
        user=user,
        offering=offering,
        defaults={"role": role, "source": EnrollmentSource.SITE},
    )
    if not created and (enrollment.role, enrollment.source) != (role, EnrollmentSource.SITE):
        enrollment.role, enrollment.source = role, EnrollmentSource.SITE
        enrollment.save(update_fields=["role", "source"])
    return enrollment


def remove_staff(*, enrollment: Enrollment) -> None:
    """Take a staff member out of the offering (a student's enrolment is not removed here: it
    holds their work)."""
    if enrollment.role == Role.STUDENT:
        raise ValidationError("Students are not removed here; their work stays with them.")
    enrollment.delete()
