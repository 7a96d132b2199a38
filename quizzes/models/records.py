"""What instructors record: score overrides, extensions and regrades, each with who and when."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from courseware.caching import StampedQuerySet


class ScoreOverride(models.Model):
    """A manual score for an attempt (or one item of it), with the reason. The latest one counts."""

    attempt = models.ForeignKey(
        "quizzes.Attempt", on_delete=models.CASCADE, related_name="overrides"
    )
    item = models.ForeignKey(
        "quizzes.QuizItem", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    score = models.DecimalField(max_digits=8, decimal_places=3)
    previous_score = models.DecimalField(max_digits=8, decimal_places=3, null=True, blank=True)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        ordering = ["attempt", "-created_at"]

    def __str__(self) -> str:
        return f"override {self.score} on {self.attempt}"


class Extension(models.Model):
    """A per-student change to a quiz's dates, time limit or attempts (a Moodle "user
    override"); it wins field by field over the student's groups' (`GroupExtension`)."""

    quiz = models.ForeignKey("quizzes.Quiz", on_delete=models.CASCADE, related_name="extensions")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions"
    )
    opens_at = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    extra_minutes = models.PositiveIntegerField(default=0)
    extra_attempts = models.PositiveSmallIntegerField(default=0)
    reason = models.CharField(max_length=300, blank=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["quiz", "student"], name="one_extension_per_quiz"),
        ]

    def __str__(self) -> str:
        return f"extension for {self.student} on {self.quiz.slug}"


class RegradeStatus(models.TextChoices):
    PREVIEWING = "previewing", "Previewing"
    PREVIEWED = "previewed", "Previewed"
    RUNNING = "running", "Running"
    APPLIED = "applied", "Applied"
    FAILED = "failed", "Failed"


class RegradeRun(models.Model):
    """An audited regrade of a template's responses in one offering, previewed before it is
    applied. The template and its versions are the site's; the responses are the offering's."""

    offering = models.ForeignKey(
        "courseware.Offering", on_delete=models.CASCADE, related_name="regrades"
    )
    template = models.ForeignKey(
        "quizzes.QuestionTemplate", on_delete=models.CASCADE, related_name="regrades"
    )
    target_version = models.ForeignKey(
        "quizzes.TemplateVersion", on_delete=models.PROTECT, related_name="+"
    )
    recompute_answers = models.BooleanField(
        default=True, help_text="Recompute correct answers from stored parameters."
    )
    status = models.CharField(
        max_length=20, choices=RegradeStatus.choices, default=RegradeStatus.PREVIEWED
    )
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    preview = models.JSONField(default=list, blank=True)
    # With recompute_answers: each correct answer the regrade moves (variant, part, old, new,
    # and the catalog fingerprints it moves between).
    answer_changes = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    # The background task that previews or applies the run, and why it stopped, if it did.
    task_id = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"regrade of {self.template.slug} to v{self.target_version.number}"
