"""Grades given by people: a staff grade of one answer to a part graded by staff, its audit
trail, and the comments graders save to apply to other students' answers.

A staff-graded part (a kind with ``graded_by_staff``) is stored as a Response with status
"pending" and score 0; grading it (`quizzes.services.manual_grading`) writes its
`ManualGrade`, sets the Response to "graded" with the rubric's share as its score, and logs a
`ManualGradeEvent`. `ManualGrade.version` grows with every change, so two graders who opened
the same answer cannot overwrite each other unseen: the second save names the version it read.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

# A grader's comment, and a saved one, is at most this long (characters).
MAX_COMMENT_LENGTH = 2000


class ManualGrade(models.Model):
    response = models.OneToOneField(
        "quizzes.Response", on_delete=models.CASCADE, related_name="manual_grade"
    )
    # The rubric item ids the grader ticked, in the rubric's order.
    met = models.JSONField(default=list)
    comment = models.TextField(blank=True)
    earned = models.FloatField()
    total = models.FloatField()
    version = models.PositiveIntegerField(default=1)
    graded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    graded_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(earned__gte=0) & models.Q(earned__lte=models.F("total")),
                name="manual_grade_within_rubric",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.response} · {self.earned:g} of {self.total:g}"


class ManualGradeEvent(models.Model):
    """One change of a staff grade (the first grade too): who, when, from what to what."""

    response = models.ForeignKey(
        "quizzes.Response", on_delete=models.CASCADE, related_name="manual_grade_events"
    )
    version = models.PositiveIntegerField()
    met = models.JSONField(default=list)
    comment = models.TextField(blank=True)
    earned = models.FloatField()
    total = models.FloatField()
    previous_earned = models.FloatField(null=True, blank=True)
    graded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    graded_at = models.DateTimeField()

    class Meta:
        ordering = ["response", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["response", "version"], name="one_manual_grade_event_per_version"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.response} · v{self.version}: {self.earned:g} of {self.total:g}"


class SavedComment(models.Model):
    """A grader's comment kept for one part of one quiz item, to apply to other answers."""

    item = models.ForeignKey(
        "quizzes.QuizItem", on_delete=models.CASCADE, related_name="saved_comments"
    )
    part_id = models.CharField(max_length=50)
    text = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "part_id", "created_at", "pk"]
        indexes = [models.Index(fields=["item", "part_id"])]

    def __str__(self) -> str:
        return f"{self.item} · part {self.part_id}: {self.text[:40]}"
