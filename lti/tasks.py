"""Background work of the LTI app (django-tasks)."""

from __future__ import annotations

from django_tasks import task


@task()
def push_score(sync_id: int) -> bool:
    """Send one student's counted score to the LMS; failures reschedule themselves with backoff
    (lti.passback)."""
    from lti.passback import push

    return push(sync_id)
