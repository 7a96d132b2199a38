"""Grade passback hook: every write of an attempt's score queues a send to the LMS.

Scores are written in one of a few places (submission, automatic exam submission, an
override's recompute, a regrade's recompute); each saves the Attempt with its score, so one
post_save receiver covers them all without touching the quiz services.
"""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from quizzes.models import Attempt, AttemptStatus


@receiver(post_save, sender=Attempt, dispatch_uid="lti-passback")
def attempt_saved(sender, instance: Attempt, update_fields=None, **kwargs):
    if instance.status != AttemptStatus.SUBMITTED:
        return
    if update_fields is not None and not {"score", "max_score", "status"} & set(update_fields):
        return
    from lti.passback import scores_changed

    scores_changed(instance.student_id, instance.quiz_id)
