"""Item statistics kept for the instructor's item page, so it reads two small rows whatever the
class size, and the change counter per quiz that says when they are out of date.

Every grade writer bumps its quiz's `QuizActivity.changes` (`services.grades.statistics_changed`)
in the transaction that writes the grade; a kept `ItemStatistics` row records the counters it was
computed at (`seen`), so it is current exactly while those counters have not moved.
"""

from __future__ import annotations

from django.db import models


class QuizActivity(models.Model):
    """How many grade changes a quiz has had: responses, submissions, regrades, overrides."""

    quiz = models.OneToOneField(
        "quizzes.Quiz", on_delete=models.CASCADE, primary_key=True, related_name="activity"
    )
    changes = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "quiz activity"

    def __str__(self) -> str:
        return f"{self.quiz_id}: {self.changes} changes"


class ItemStatistics(models.Model):
    """One template's item analysis in one offering, over every quiz of the offering that asks
    it (quiz key 0) or in one quiz."""

    template = models.ForeignKey(
        "quizzes.QuestionTemplate", on_delete=models.CASCADE, related_name="statistics"
    )
    offering = models.ForeignKey("courseware.Offering", on_delete=models.CASCADE, related_name="+")
    # The quiz's id, or 0 for the template over every quiz that asks it. A plain number, not a
    # foreign key, so one unique pair lets a refresh write its row in one upsert.
    quiz_key = models.PositiveIntegerField(default=0)
    # `analytics.ItemStats` as plain JSON (`statistics.stats_to_json`).
    data = models.JSONField(default=dict)
    # {quiz id: QuizActivity.changes} of the quizzes it was computed over, when it was computed.
    seen = models.JSONField(default=dict)
    computed_at = models.DateTimeField()
    # Set while a refresh is queued, so many views of a stale page queue one refresh.
    refresh_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "item statistics"
        constraints = [
            models.UniqueConstraint(
                fields=["template", "offering", "quiz_key"],
                name="one_statistics_per_template_and_scope",
            ),
        ]

    def __str__(self) -> str:
        return f"statistics of {self.template_id} in {self.quiz_key or 'every quiz'}"


class OfferingStatistics(models.Model):
    """A whole-offering statistics page as kept: the item index's headline figures of every
    template, or the misconception map, over every quiz of the offering. The same rule as
    `ItemStatistics`: current exactly while the offering's quiz counters equal `seen`."""

    class Kind(models.TextChoices):
        ITEM_INDEX = "item-index", "item index"
        MISCONCEPTIONS = "misconceptions", "misconception map"

    offering = models.ForeignKey("courseware.Offering", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # The page's figures as plain JSON (`services.instructor.offering_statistics`).
    data = models.JSONField(default=dict)
    # {quiz id: QuizActivity.changes} of every counted quiz of the offering when computed.
    seen = models.JSONField(default=dict)
    computed_at = models.DateTimeField()
    # Set while a refresh is queued, so many views of a stale page queue one refresh.
    refresh_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "offering statistics"
        constraints = [
            models.UniqueConstraint(
                fields=["offering", "kind"], name="one_statistics_per_offering_and_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of offering {self.offering_id}"
