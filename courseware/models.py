"""The book (a course: its parts and chapters), the offerings that teach it, who holds which
role in each offering, the site-wide roles, and reading progress.

A `Course` is site-wide content: the book's chapters and (in the quizzes app) the question bank.
An `Offering` is one teaching of it ("Spring 2027, section 2") with its own roster, quizzes,
dates and gradebook; every staff and student page names its offering in the URL. Authoring and
running the site are site-wide roles (`SiteRole`), never roles in an offering.
"""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse


class Role(models.TextChoices):
    """A role in one offering. A user may hold a different one in each offering."""

    STUDENT = "student", "Student"
    TEACHING_ASSISTANT = "ta", "Teaching assistant"
    INSTRUCTOR = "instructor", "Instructor"


class SiteRoleKind(models.TextChoices):
    """A role on the whole site, beside any offering: authors write the bank, administrators
    create, copy and archive offerings and name their instructors."""

    AUTHOR = "author", "Author"
    ADMINISTRATOR = "administrator", "Site administrator"


class EnrollmentSource(models.TextChoices):
    """Who made an enrolment: an LMS launch or roster may change only the ones an LMS made."""

    SITE = "site", "Made on this site"
    LMS = "lms", "Made by an LMS"


class CourseQuerySet(models.QuerySet):
    def current(self) -> Course:
        """The book and question bank this site serves (settings.COURSE_SLUG): site-wide
        content, read by the book's pages, the studio and the bank commands. Which offering a
        page is about comes from its URL, never from here."""
        return self.get(slug=settings.COURSE_SLUG)


class Course(models.Model):
    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CourseQuerySet.as_manager()

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("courseware:home")


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a time zone name (like Europe/Berlin).")


class OfferingQuerySet(models.QuerySet):
    def active(self) -> OfferingQuerySet:
        return self.filter(is_archived=False)

    def default(self) -> Offering | None:
        """The site's default offering: quiz files define its quizzes, the demo class and the
        benchmarks use it, and an LMS course is copied from it when its registration names no
        template offering."""
        return self.filter(is_default=True).select_related("course").first()

    def of_user(self, user) -> OfferingQuerySet:
        return self.filter(enrollments__user=user)


class Offering(models.Model):
    """One teaching of a course: its roster and roles, quizzes with their dates and settings,
    gradebook, regrades, extensions, overrides and LMS links. Copies share the book and the
    bank, never rows of students."""

    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="offerings")
    # In every URL of the offering (/o/<slug>/...): it never changes once created.
    slug = models.SlugField(max_length=60, unique=True)
    title = models.CharField(max_length=200)
    term = models.CharField(max_length=100, blank=True, help_text="Like Spring 2027.")
    section = models.CharField(max_length=50, blank=True, help_text="Like 2, or B.")
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="The offering's dates are set and shown in this zone.",
    )
    is_archived = models.BooleanField(
        default=False, help_text="A past offering: listed apart, and students start no attempts."
    )
    is_default = models.BooleanField(default=False)
    # sync_questions writes the quiz files of content/questions/quizzes/ into this offering's
    # quizzes; a copy keeps its own rows (each quiz keeps the file it came from as provenance).
    follows_files = models.BooleanField(default=False)
    copied_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = OfferingQuerySet.as_manager()

    class Meta:
        ordering = ["is_archived", "-created_at", "title"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"], condition=Q(is_default=True), name="one_default_offering"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("quizzes:offering_home", args=[self.slug])


class Part(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="parts")
    number = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=200)

    class Meta:
        ordering = ["course", "number"]
        constraints = [
            models.UniqueConstraint(fields=["course", "number"], name="unique_part_number"),
        ]

    def __str__(self) -> str:
        return f"Part {self.number}: {self.title}"


class ChapterQuerySet(models.QuerySet):
    def for_course(self, course: Course) -> ChapterQuerySet:
        return self.filter(part__course=course).select_related("part")


class Chapter(models.Model):
    """One page of the book, loaded from a file under content/book/ by sync_content."""

    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="chapters")
    slug = models.SlugField()
    title = models.CharField(max_length=200)
    order = models.PositiveSmallIntegerField()
    summary = models.TextField(blank=True)
    source = models.TextField(help_text="Markdown with LaTeX math and live expressions.")
    source_path = models.CharField(max_length=300, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ChapterQuerySet.as_manager()

    class Meta:
        ordering = ["part__number", "order"]
        constraints = [
            models.UniqueConstraint(fields=["part", "slug"], name="unique_chapter_slug"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("courseware:chapter_detail", args=[self.slug])


class EnrollmentQuerySet(models.QuerySet):
    def with_role(self, role: str) -> EnrollmentQuerySet:
        return self.filter(role=role)

    def students(self) -> EnrollmentQuerySet:
        return self.filter(role=Role.STUDENT)

    def active(self) -> EnrollmentQuerySet:
        return self.filter(is_active=True)


class Enrollment(models.Model):
    """A user's one role in one offering."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="enrollments"
    )
    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="enrollments")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.STUDENT)
    source = models.CharField(
        max_length=10, choices=EnrollmentSource.choices, default=EnrollmentSource.SITE
    )
    enrolled_at = models.DateTimeField(auto_now_add=True)
    # A deactivated student keeps every attempt and grade but no longer opens the offering's
    # pages; the gradebook lists them apart and can leave them out (courseware.roster).
    is_active = models.BooleanField(default=True)

    objects = EnrollmentQuerySet.as_manager()

    class Meta:
        ordering = ["offering", "role", "user__username"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "offering"], name="one_enrollment_per_offering"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.offering} as {self.get_role_display().lower()}"


class SiteRole(models.Model):
    """A site-wide role: author (the question bank) or site administrator (offerings)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="site_roles"
    )
    role = models.CharField(max_length=20, choices=SiteRoleKind.choices)
    granted_at = models.DateTimeField(auto_now_add=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["role", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["user", "role"], name="one_site_role_each"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.get_role_display().lower()}"


class ReadingProgress(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reading"
    )
    chapter = models.ForeignKey(Chapter, on_delete=models.CASCADE, related_name="readers")
    read_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "reading progress"
        constraints = [
            models.UniqueConstraint(fields=["user", "chapter"], name="read_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} read {self.chapter}"


# Groups, account preferences, set-password links and the audit trail (issue 27).
from .people import (  # noqa: E402, F401
    AccountPreferences,
    AuditAction,
    AuditEvent,
    GroupKind,
    GroupMembership,
    PasswordLink,
    StudentGroup,
)
