"""Grade passback hook: every write of an attempt's score queues a send to the LMS.

An attempt's score is computed in one place (`submission.score_attempt`, pure) and stored by
saving the Attempt: at submission (manual or automatic) and in `recompute_attempt_score`
(override, regrade). One post_save receiver therefore covers every write without the quiz
services importing this app (they must not: the layer contract in pyproject.toml).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from quizzes.models import Attempt, AttemptStatus


@receiver(post_save, sender=Attempt, dispatch_uid="lti-passback")
def attempt_saved(sender, instance: Attempt, update_fields=None, **kwargs):
    if instance.status != AttemptStatus.SUBMITTED or instance.grading_queued_at is not None:
        return  # an exam being graded has no score yet: it is sent when its grading ends
    if update_fields is not None and not {"score", "max_score", "status"} & set(update_fields):
        return
    from lti.passback import scores_changed

    # After the commit: the score is stored for good, and the lookup (one query) stays out of
    # the scoring transaction and its row lock.
    student_id, quiz_id = instance.student_id, instance.quiz_id
    transaction.on_commit(lambda: scores_changed(student_id, quiz_id))
