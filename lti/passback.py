"""Grade passback (LTI AGS): each student's counted score goes to the LMS, in the background.

The score sent is the one the gradebook counts: the best submitted attempt (its score already
holds any override and regrade). Sending is idempotent: a score the LMS already has is not
sent again, so a retry after an outage delivers it once. A platform that is down never touches
the local score: the failure is recorded on the GradeSync row, retried with backoff, and the
instructor sees it and can resend.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem

from courseware.tasks import backoff_seconds
from lti.claims import shown, web_address_problem
from lti.deep_linking import quiz_max_points
from lti.models import GradeSync, QuizLineItem, SyncStatus
from lti.network import PlatformURLRefused
from lti.refusals import printable
from lti.tool import PLATFORM_ERRORS, connector
from quizzes.models import Attempt, AttemptStatus

log = logging.getLogger(__name__)

# The first retry waits BACKOFF seconds, each next one twice as long up to MAX_BACKOFF; after
# RETRIES retries the row is FAILED until the instructor resends (or `lti_retry_passback`).
BACKOFF = 30
MAX_BACKOFF = 3600
RETRIES = 6
PENDING_MANUAL, FULLY_GRADED = "PendingManual", "FullyGraded"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
# Pages of a platform's line items read to find ours by tag (PyLTI1p3 reads them all, forever
# if the platform pages forever).
MAX_LINEITEM_PAGES = 50


class BoundedAgs(AssignmentsGradesService):
    """PyLTI1p3's grade service, looking for a line item in a bounded number of pages."""

    def find_lineitem(self, prop_name, prop_value):
        url, seen = self._service_data["lineitems"], set()
        while url:
            if len(seen) == MAX_LINEITEM_PAGES or url in seen:
                raise LtiException(
                    f"The LMS's line items went on past {len(seen)} pages; stopped there."
                )
            seen.add(url)
            lineitems, url = self.get_lineitems_page(url)
            for lineitem in lineitems:
                if isinstance(lineitem, dict) and lineitem.get(prop_name) == prop_value:
                    return LineItem(lineitem)
        return None


def counted_score(user_id: int, quiz_id: int):
    """(score, max score) of the student's best submitted attempt, or None."""
    best = _counted(user_id, quiz_id)
    return None if best is None else best[:2]


def _counted(user_id: int, quiz_id: int):
    """(score, max score, whether it is provisional) of the best submitted attempt, or None."""
    best = (
        Attempt.objects.filter(student_id=user_id, quiz_id=quiz_id, status=AttemptStatus.SUBMITTED)
        .exclude(score=None)
        .order_by("-score", "-submitted_at")
        .values_list("score", "max_score", "awaiting_grading")
        .first()
    )
    return None if best is None else (best[0], best[1], best[2] > 0)


def is_current(sync: GradeSync) -> bool:
    """Whether the LMS has the score we count now (and knows whether it is provisional)."""
    counted = _counted(sync.user_id, sync.line_item.quiz_id)
    if counted is None:
        return sync.sent_at is None
    score, maximum, provisional = counted
    return (
        sync.sent_at is not None
        and (sync.sent_score, sync.sent_max) == (score, maximum)
        and sync.sent_pending == provisional
    )


def scores_changed(user_id: int, quiz_id: int) -> None:
    """A counted score may have changed: queue a send for each LMS that has this quiz."""
    pending = list(
        GradeSync.objects.filter(user_id=user_id, line_item__quiz_id=quiz_id).values_list(
            "pk", flat=True
        )
    )
    if not pending:
        return
    GradeSync.objects.filter(pk__in=pending).update(
        status=SyncStatus.PENDING, tries=0, next_try_at=None
    )
    for pk in pending:
        schedule(pk)


def schedule(sync_id: int) -> None:
    """Enqueue the send once the current transaction commits (the score must be stored first).
    Retries are the task's own (courseware.tasks.retrying_task)."""
    from lti.tasks import push_score

    transaction.on_commit(lambda: push_score.enqueue(sync_id))


def _line_item(sync: GradeSync, ags: BoundedAgs) -> LineItem:
    line = sync.line_item
    if line.url:
        return LineItem({"id": line.url})
    quiz = line.quiz
    found = ags.find_or_create_lineitem(
        LineItem()
        .set_tag(f"quiz:{quiz.slug}")
        .set_label(quiz.title)
        .set_resource_id(f"quiz:{quiz.slug}")
        .set_score_maximum(float(quiz_max_points(quiz)))
    )
    url = found.get_id()
    # The id is the platform's word for its line item's URL: kept (in 500 characters) and
    # called with the token, so it must be one.
    problem = web_address_problem(url, {"http", "https"})
    if problem or len(url) > QuizLineItem._meta.get_field("url").max_length:
        raise LtiException(
            f"The LMS gave its line item an id that is no usable URL: {problem or shown(url)}"
        )
    line.url = url
    line.save(update_fields=["url"])
    return found


def push(sync_id: int, *, now=None) -> bool:
    """Send one student's counted score; True when no other try should follow (the LMS has
    it, now or before, or its URL is one we never call), False to try again later."""
    sync = (
        GradeSync.objects.select_related(
            "line_item__quiz", "line_item__context__deployment__registration", "lti_user"
        )
        .filter(pk=sync_id)
        .first()
    )
    if sync is None:
        return True
    counted = _counted(sync.user_id, sync.line_item.quiz_id)
    if counted is None:
        return True
    if is_current(sync):  # the LMS has it already: never the same score twice
        GradeSync.objects.filter(pk=sync.pk).update(status=SyncStatus.SENT, next_try_at=None)
        return True
    given, maximum, provisional = counted
    line = sync.line_item
    registration = line.context.deployment.registration
    now = now or timezone.now()
    try:
        ags = BoundedAgs(
            connector(registration),
            {
                "scope": line.scopes or [SCORE_SCOPE],
                "lineitems": line.lineitems_url,
                "lineitem": line.url or None,
            },
        )
        grade = (
            Grade()
            .set_user_id(sync.lti_user.sub)
            .set_score_given(float(given))
            .set_score_maximum(float(maximum))
            .set_activity_progress("Completed")
            # AGS: a score with parts still waiting for staff is "PendingManual"; the LMS
            # shows it as not final until the same line item hears "FullyGraded".
            .set_grading_progress(PENDING_MANUAL if provisional else FULLY_GRADED)
            .set_timestamp(now.isoformat())
        )
        ags.put_grade(grade, _line_item(sync, ags))
    except PLATFORM_ERRORS as error:
        return _failed(sync, error, now)
    GradeSync.objects.filter(pk=sync.pk).update(
        status=SyncStatus.SENT,
        sent_score=given,
        sent_max=maximum,
        sent_at=now,
        sent_pending=provisional,
        tries=0,
        next_try_at=None,
        last_error="",
    )
    return True


def _failed(sync: GradeSync, error: Exception, now) -> bool:
    tries = sync.tries + 1
    message = str(error)[:500]
    log.warning(
        "LTI passback to %s failed (try %d): %s",
        printable(sync.line_item.url),
        tries,
        printable(message),
    )
    if isinstance(error, PlatformURLRefused):
        # Not the platform's own host, or our own network (lti.network): another try would be
        # refused the same way, so the row waits for an administrator (and a resend).
        GradeSync.objects.filter(pk=sync.pk).update(
            status=SyncStatus.FAILED, tries=tries, next_try_at=None, last_error=message
        )
        return True
    if tries > RETRIES:
        status, at = SyncStatus.FAILED, None
    else:
        wait = backoff_seconds(tries, backoff=BACKOFF, max_backoff=MAX_BACKOFF)
        status, at = SyncStatus.RETRYING, now + timedelta(seconds=wait)
    GradeSync.objects.filter(pk=sync.pk).update(
        status=status, tries=tries, next_try_at=at, last_error=message
    )
    return False


def retry_due(*, now=None) -> int:
    """Send every row whose retry time has come (or that waits to be sent); how many went."""
    now = now or timezone.now()
    due = GradeSync.objects.filter(status__in=[SyncStatus.PENDING, SyncStatus.RETRYING]).exclude(
        next_try_at__gt=now
    )
    return sum(push(pk, now=now) for pk in due.order_by("pk").values_list("pk", flat=True))


def resend(sync: GradeSync) -> None:
    """The instructor's "resend": forget what was sent and send the counted score again."""
    GradeSync.objects.filter(pk=sync.pk).update(
        status=SyncStatus.PENDING, tries=0, next_try_at=None, sent_at=None
    )
    schedule(sync.pk)
