"""Rare writes that change attempt pages without touching an attempt: raise their stamps.

A question's points live on its quiz item and its text on the template version a variant
uses; the studio, a bank sync and the admin change them through `save()` or `delete()`. Each
such change raises the page stamp (`services.page_stamp`) of every attempt that shows it, in
the writer's transaction, so no memoised page (`presenters.page_memo`) shows the old points or
text. These writes are rare (an author's, never a student's), so one UPDATE each costs nothing
that matters.

Deleting an attempt (the admin, a deleted student or quiz) takes its grades out of the class's
statistics: it counts as a grade change of its quiz (`grades.statistics_changed`), so the kept
item statistics and offering pages (`services.instructor.statistics`, `offering_statistics`) are
seen stale and computed again without it.
"""

from __future__ import annotations

from django.db.models.signals import post_save, pre_delete
from django.dispatch import receiver

from quizzes.models import Attempt, QuizItem, TemplateVersion
from quizzes.services.grades import statistics_changed
from quizzes.services.page_stamp import bump_attempts


@receiver(post_save, sender=QuizItem)
@receiver(pre_delete, sender=QuizItem)
def _item_changed(sender, instance, **kwargs):
    bump_attempts(Attempt.objects.filter(quiz_id=instance.quiz_id))


@receiver(post_save, sender=TemplateVersion)
@receiver(pre_delete, sender=TemplateVersion)
def _version_changed(sender, instance, created=False, **kwargs):
    if not created:  # a new version is used by no variant yet
        bump_attempts(Attempt.objects.filter(variants__version=instance))


@receiver(pre_delete, sender=Attempt)
def _attempt_deleted(sender, instance, **kwargs):
    statistics_changed(quiz_ids=[instance.quiz_id])
