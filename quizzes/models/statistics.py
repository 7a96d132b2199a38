"""Item statistics kept for the instructor's item page, so it reads two small rows whatever the
class size, and the change counter per quiz that says when they are out of date.

Every grade write raises its quiz's `QuizActivity.changes` (`quizzes/stamps.py`, from the ORM)
in the transaction that writes the grade; a kept `ItemStatistics` row records the counters it was
computed at (`seen`), so it is current exactly while those counters have not moved.
"""

from __future__ import annotations

from datetime import timedelta

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


class KeptFigures(models.Model):
    """A page's figures as kept, current exactly while the quiz counters they were computed at
    (`seen`) have not moved; a stale row is refreshed by one queued task at a time."""

    # A claim older than this is taken over, in case its task was lost.
    CLAIM_EXPIRES = timedelta(minutes=10)

    # The figures as plain JSON (each subclass says what they are).
    data = models.JSONField(default=dict)
    # {quiz id: QuizActivity.changes} of the quizzes it was computed over, when it was computed.
    seen = models.JSONField(default=dict)
    computed_at = models.DateTimeField()
    # Set while a refresh is queued, so many views of a stale page queue one refresh.
    refresh_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @classmethod
    def keep(cls, row, *, unique_fields: list[str]):
        """Write `row` over the kept one with the same `unique_fields` (one upsert), its claim
        released."""
        row.refresh_queued_at = None
        cls.objects.bulk_create(
            [row],
            update_conflicts=True,
            unique_fields=unique_fields,
            update_fields=["data", "seen", "computed_at", "refresh_queued_at"],
        )
        return row

    @classmethod
    def claim(cls, now, **where) -> bool:
        """Whether this caller should queue the refresh of the row `where` names: true for one
        caller until the refresh is kept or the claim expires."""
        unclaimed = models.Q(refresh_queued_at__isnull=True) | models.Q(
            refresh_queued_at__lt=now - cls.CLAIM_EXPIRES
        )
        return bool(cls.objects.filter(unclaimed, **where).update(refresh_queued_at=now))


class ItemStatistics(KeptFigures):
    """One template's item analysis in one offering, over every quiz of the offering that asks
    it (quiz key 0) or in one quiz."""

    template = models.ForeignKey(
        "quizzes.QuestionTemplate", on_delete=models.CASCADE, related_name="statistics"
    )
    offering = models.ForeignKey("courseware.Offering", on_delete=models.CASCADE, related_name="+")
    # The quiz's id, or 0 for the template over every quiz that asks it. A plain number, not a
    # foreign key, so one unique pair lets a refresh write its row in one upsert.
    quiz_key = models.PositiveIntegerField(default=0)
    # data: `analytics.ItemStats` as plain JSON (`statistics.stats_to_json`).

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


class OfferingStatistics(KeptFigures):
    """A whole-offering statistics page as kept: the item index's headline figures of every
    template, or the misconception map, over every quiz of the offering. The same rule as
    `ItemStatistics`: current exactly while the offering's quiz counters equal `seen`."""

    class Kind(models.TextChoices):
        ITEM_INDEX = "item-index", "item index"
        MISCONCEPTIONS = "misconceptions", "misconception map"

    offering = models.ForeignKey("courseware.Offering", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # data: the page's figures as plain JSON (`services.instructor.offering_statistics`);
    # seen: the counters of every counted quiz of the offering.

    class Meta:
        verbose_name_plural = "offering statistics"
        constraints = [
            models.UniqueConstraint(
                fields=["offering", "kind"], name="one_statistics_per_offering_and_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of offering {self.offering_id}"
