"""Quizzes, their rules (mode, attempts, dates, release) and their items."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q, TextChoices
from django.urls import reverse

from courseware.caching import StampedQuerySet


class QuizMode(models.TextChoices):
    HOMEWORK = "homework", "Homework"
    EXAM = "exam", "Exam"


class LatePolicy(models.TextChoices):
    REFUSE = "refuse", "Refused after the due date"
    PENALTY = "penalty", "Accepted with a penalty until the close date"


class ReleasePolicy(models.TextChoices):
    IMMEDIATE = "immediate", "Immediately after submission"
    AFTER_DUE = "after_due", "After the due date"


class AnswerRelease(TextChoices):
    """When a student sees a part's correct answer and the question's worked solution.

    Whatever the choice, an answer is never shown while the student can still answer that part,
    and a part the student never tried is not shown while they could start another attempt.
    """

    AFTER_FINAL = "after_final", "After the part is final"
    AFTER_SUBMISSION = "after_submission", "After the attempt is submitted"
    AFTER_DUE = "after_due", "After the due date"
    NEVER = "never", "Never"


class QuizQuerySet(models.QuerySet):
    def for_offering(self, offering) -> QuizQuerySet:
        return self.filter(offering=offering)

    def visible(self) -> QuizQuerySet:
        return self.filter(is_published=True)


class Quiz(models.Model):
    """A quiz of one offering: its own dates and settings; its items draw from the site's bank."""

    offering = models.ForeignKey(
        "courseware.Offering", on_delete=models.CASCADE, related_name="quizzes"
    )
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    chapter = models.ForeignKey(
        "courseware.Chapter",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quizzes",
    )
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)
    mode = models.CharField(max_length=20, choices=QuizMode.choices, default=QuizMode.HOMEWORK)
    max_attempts = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Empty for unlimited attempts."
    )
    tries_per_variant = models.PositiveSmallIntegerField(
        default=3, help_text="Homework: counted tries per part before a fresh variant."
    )
    opens_at = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(
        null=True, blank=True, help_text="Late submissions end here (with the penalty policy)."
    )
    late_policy = models.CharField(
        max_length=20, choices=LatePolicy.choices, default=LatePolicy.PENALTY
    )
    late_penalty = models.DecimalField(
        max_digits=4, decimal_places=3, default=0, help_text="Fraction taken off a late score."
    )
    time_limit_minutes = models.PositiveIntegerField(null=True, blank=True)
    release = models.CharField(
        max_length=20, choices=ReleasePolicy.choices, default=ReleasePolicy.IMMEDIATE
    )
    show_answers = models.CharField(
        max_length=20,
        choices=AnswerRelease.choices,
        default=AnswerRelease.AFTER_FINAL,
        help_text="When students see correct answers and worked solutions (an exam's parts are "
        "final when it is submitted).",
    )
    # Pools: {"pool name": how many of its items each attempt draws}.
    pools = models.JSONField(default=dict, blank=True)
    is_published = models.BooleanField(default=True)
    # Provenance: the quiz file it was loaded from (kept by a copy) and that file's hash when
    # it was last written here, so a browser edit and a file edit can be told apart.
    source_path = models.CharField(max_length=300, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    copied_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set by a change made in the browser (settings or items): from then on a changed quiz file
    # no longer overwrites the quiz; sync_questions reports the conflict by slug instead, and
    # --prefer-files takes the file (which clears it).
    edited_in_browser_at = models.DateTimeField(null=True, blank=True)
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = QuizQuerySet.as_manager()

    class Meta:
        ordering = ["offering", "position", "slug"]
        verbose_name_plural = "quizzes"
        constraints = [
            models.UniqueConstraint(fields=["offering", "slug"], name="unique_quiz_slug"),
            models.CheckConstraint(
                condition=Q(late_penalty__gte=0) & Q(late_penalty__lte=1),
                name="late_penalty_is_a_fraction",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        # The offering's slug: loaded with the quiz (select_related) or set by the view.
        return reverse("quizzes:quiz_detail", args=[self.offering.slug, self.slug])

    @property
    def is_exam(self) -> bool:
        return self.mode == QuizMode.EXAM

    @property
    def is_homework(self) -> bool:
        return self.mode == QuizMode.HOMEWORK

    @property
    def release_after_due(self) -> bool:
        """An exam's results wait for the due date (homework shows them as the student works)."""
        return self.release == ReleasePolicy.AFTER_DUE

    @property
    def tries_allowed(self) -> int:
        """Counted tries per part of one variant: an exam grades each part once, at the end."""
        return self.tries_per_variant if self.is_homework else 1


class QuizItem(models.Model):
    """One question slot of a quiz: a template, its points, and optionally a pool it belongs to."""

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="items")
    template = models.ForeignKey(
        "quizzes.QuestionTemplate", on_delete=models.PROTECT, related_name="quiz_items"
    )
    # Empty: new variants use the template's current published version.
    pinned_version = models.ForeignKey(
        "quizzes.TemplateVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    position = models.PositiveSmallIntegerField()
    points = models.DecimalField(max_digits=6, decimal_places=2, default=1)
    pool = models.CharField(max_length=50, blank=True)

    # Writes raise the stamps of the caches they feed (quizzes/stamps.py).
    objects = StampedQuerySet.as_manager()

    class Meta:
        ordering = ["quiz", "position"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "position"], name="unique_item_position"),
            models.UniqueConstraint(fields=["quiz", "template"], name="template_once_per_quiz"),
        ]

    def __str__(self) -> str:
        return f"{self.quiz.slug} #{self.position}: {self.template.slug}"

    @property
    def version_for_new_variants(self):
        """The version a new variant of this item uses: the pinned one, else the template's
        current published one (None when the template was never published)."""
        return self.pinned_version or self.template.current_version
