"""Changes to a quiz's rules for some of its students: a group's extension on one quiz (a
section's other dates, extra minutes, extra attempts), and accommodations that hold for every
timed quiz of an offering (a time multiplier, for a student or a group).

A student's own `Extension` wins field by field over their groups'; among several groups the
most generous value counts, as in Moodle's group overrides (`services.availability`).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

MULTIPLIER_MIN = Decimal("1.00")
MULTIPLIER_MAX = Decimal("5.00")


class GroupExtension(models.Model):
    """A quiz's other dates, extra minutes and extra attempts for one group of students."""

    quiz = models.ForeignKey(
        "quizzes.Quiz", on_delete=models.CASCADE, related_name="group_extensions"
    )
    group = models.ForeignKey(
        "courseware.StudentGroup", on_delete=models.CASCADE, related_name="extensions"
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
        ordering = ["quiz", "group__name"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "group"], name="one_group_extension_per_quiz"),
        ]

    def __str__(self) -> str:
        return f"extension for {self.group} on {self.quiz.slug}"


class Accommodation(models.Model):
    """A time multiplier on every timed quiz of an offering, for one student or one group (the
    largest that applies counts). An exam of 40 minutes is 60 for a student at 1.5."""

    offering = models.ForeignKey(
        "courseware.Offering", on_delete=models.CASCADE, related_name="accommodations"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="accommodations",
    )
    group = models.ForeignKey(
        "courseware.StudentGroup",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="accommodations",
    )
    time_multiplier = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        validators=[MinValueValidator(MULTIPLIER_MIN), MaxValueValidator(MULTIPLIER_MAX)],
    )
    reason = models.CharField(max_length=300, blank=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["offering", "-time_multiplier"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(student__isnull=False) & Q(group__isnull=True))
                | (Q(student__isnull=True) & Q(group__isnull=False)),
                name="accommodation_for_a_student_or_a_group",
            ),
            models.CheckConstraint(
                condition=Q(time_multiplier__gte=MULTIPLIER_MIN)
                & Q(time_multiplier__lte=MULTIPLIER_MAX),
                name="time_multiplier_in_range",
            ),
            models.UniqueConstraint(
                fields=["offering", "student"],
                condition=Q(student__isnull=False),
                name="one_accommodation_per_student",
            ),
            models.UniqueConstraint(
                fields=["group"],
                condition=Q(group__isnull=False),
                name="one_accommodation_per_group",
            ),
        ]

    def __str__(self) -> str:
        who = self.student if self.student_id else self.group
        return f"×{self.time_multiplier} for {who}"
