"""Question templates (the editable draft) and their immutable published versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from courseware.caching import StampedQuerySet


class TemplateStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    RETIRED = "retired", "Retired"


class VersionOrigin(models.TextChoices):
    """Where a published version's text came from."""

    FILE = "file", "bank file"
    STUDIO = "studio", "studio"
    UPLOAD = "upload", "upload"
    IMPORT = "import", "import"


class QuestionTemplateQuerySet(models.QuerySet):
    def published(self) -> QuestionTemplateQuerySet:
        return self.filter(status=TemplateStatus.PUBLISHED)

    def for_course(self, course) -> QuestionTemplateQuerySet:
        return self.filter(course=course)


class QuestionTemplate(models.Model):
    """A question template: a stable slug, the draft source an author edits, and its versions.

    The slug never changes once students have answered the template: variants refer to versions,
    and analytics group by slug.
    """

    course = models.ForeignKey(
        "courseware.Course", on_delete=models.CASCADE, related_name="question_templates"
    )
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    chapter_slug = models.SlugField(max_length=100, blank=True)
    kind = models.CharField(
        max_length=20, blank=True, help_text="Its one part's answer kind, or multi-part."
    )
    status = models.CharField(
        max_length=20, choices=TemplateStatus.choices, default=TemplateStatus.DRAFT
    )
    draft_source = models.TextField(help_text="The declarative YAML source being edited.")
    # Optimistic lock: a save must name the revision it started from, so two authors editing the
    # same draft are warned instead of silently overwriting each other.
    draft_revision = models.PositiveIntegerField(default=1)
    draft_updated_at = models.DateTimeField(auto_now=True)
    draft_updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source_path = models.CharField(
        max_length=300, blank=True, help_text="File under content/questions/ it was loaded from."
    )
    # The hash of that file's text when `sync_questions` last read it: a file whose hash still
    # matches has not changed since, so a newer studio version is not in conflict with an edit.
    synced_hash = models.CharField(max_length=64, blank=True)
    current_version = models.ForeignKey(
        "TemplateVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_validation = models.JSONField(null=True, blank=True)
    last_validated_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = QuestionTemplateQuerySet.as_manager()

    class Meta:
        ordering = ["chapter_slug", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="unique_template_slug"),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def has_unpublished_changes(self) -> bool:
        """The draft differs from the current published version (False before any is)."""
        current = self.current_version
        return current is not None and current.source != self.draft_source


class TemplateVersion(models.Model):
    """An immutable published version: variants are generated from, and graded against, this."""

    template = models.ForeignKey(
        QuestionTemplate, on_delete=models.PROTECT, related_name="versions"
    )
    number = models.PositiveIntegerField()
    source = models.TextField()
    content_hash = models.CharField(max_length=64)
    title = models.CharField(max_length=200)
    published_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=300, blank=True)
    origin = models.CharField(max_length=10, choices=VersionOrigin.choices, blank=True)
    # The file it came from (a bank file, a file of an upload or import), when it came from one;
    # the file's hash is `content_hash`.
    origin_path = models.CharField(max_length=300, blank=True)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        ordering = ["template", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["template", "number"], name="unique_version_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="version_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.template.slug} v{self.number}"


class PublishStatus(models.TextChoices):
    QUEUED = "queued", "Waiting for the task worker"
    RUNNING = "running", "Checking"
    PUBLISHED = "published", "Published"
    REFUSED = "refused", "Not published"
    CANCELLED = "cancelled", "Cancelled"
    FAILED = "failed", "Failed"


class PublishRunQuerySet(models.QuerySet):
    def active(self) -> PublishRunQuerySet:
        return self.filter(status__in=PublishRun.ACTIVE)


class PublishRun(models.Model):
    """An author's Publish: the draft revision they saw, checked by the publication gate in a
    background task (its progress kept here for the page to poll), then published, refused,
    cancelled or failed."""

    ACTIVE = (PublishStatus.QUEUED, PublishStatus.RUNNING)

    template = models.ForeignKey(
        QuestionTemplate, on_delete=models.CASCADE, related_name="publish_runs"
    )
    revision = models.PositiveIntegerField()
    note = models.CharField(max_length=300, blank=True)
    status = models.CharField(
        max_length=20, choices=PublishStatus.choices, default=PublishStatus.QUEUED
    )
    seeds = models.PositiveIntegerField()
    seeds_done = models.PositiveIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    # Why it was refused, cancelled or failed, for the author.
    message = models.TextField(blank=True)
    version = models.ForeignKey(
        TemplateVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    task_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = PublishRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One Publish at a time per template: a second press waits for the first.
            models.UniqueConstraint(
                fields=["template"],
                condition=Q(status__in=["queued", "running"]),
                name="one_active_publish_per_template",
            ),
            models.CheckConstraint(
                condition=Q(seeds_done__lte=models.F("seeds")), name="publish_progress_bounded"
            ),
        ]

    def __str__(self) -> str:
        return f"publish {self.template.slug} revision {self.revision}: {self.status}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def percent(self) -> int:
        return int(100 * self.seeds_done / self.seeds) if self.seeds else 0
