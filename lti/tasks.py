"""Background work of the LTI app, on the project's retrying-task convention (courseware.tasks)."""

from __future__ import annotations

from courseware.tasks import RetryLater, retrying_task
from lti.passback import BACKOFF, MAX_BACKOFF, RETRIES, push


@retrying_task(attempts=RETRIES + 1, backoff=BACKOFF, max_backoff=MAX_BACKOFF)
def push_score(sync_id: int) -> bool:
    """Send one student's counted score to the LMS; a failure (recorded on the GradeSync row)
    asks for another try after the backoff."""
    if not push(sync_id):
        raise RetryLater("the LMS did not take the score")
    return True
