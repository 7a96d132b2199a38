"""Courses, their parts and chapters, who is enrolled with which role, and reading progress."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class Role(models.TextChoices):
    STUDENT = "student", "Student"
    INSTRUCTOR = "instructor", "Instructor"
    AUTHOR = "author", "Author"


class CourseQuerySet(models.QuerySet):
    def current(self) -> Course:
        """The course this site serves (settings.COURSE_SLUG)."""
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


class Enrollment(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="enrollments"
    )
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="enrollments")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.STUDENT)
    enrolled_at = models.DateTimeField(auto_now_add=True)

    objects = EnrollmentQuerySet.as_manager()

    class Meta:
        ordering = ["course", "role", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["user", "course"], name="one_enrollment_per_course"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.course} as {self.get_role_display().lower()}"


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
