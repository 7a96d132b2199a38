"""Publishing as a background task: an author's Publish is queued as a `PublishRun`, the
publication gate runs in the task worker with its progress kept on the run (the page polls
it), the author may cancel it, and the version is written only if the gate passes and the draft
is still the revision the author saw.

The gate may run in another process (the sandbox), so its progress travels through a small
file (`engine.validate.ProgressFile`): the task runs the gate in a thread and, every half
second, copies the file's count to the run and, once the author has pressed Cancel, leaves the
file's stop sign, which ends the gate at its next seed.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import threading

from django.db import IntegrityError, transaction
from django.utils import timezone

from quizzes.engine.validate import ProgressFile, ValidationCancelled
from quizzes.models import PublishRun, PublishStatus, QuestionTemplate, VersionOrigin
from quizzes.services.authoring.drafts import AuthoringError, read_draft
from quizzes.services.authoring.publishing import validation_summary
from quizzes.services.bank import content_hash, publication_seeds, publish_version

# How often the task copies the gate's progress to the run and looks for a Cancel.
POLL_SECONDS = 0.5


def queue_publication(*, template: QuestionTemplate, revision: int, user, note: str = ""):
    """Record a Publish of the draft revision the author saw; AuthoringError (nothing queued)
    when the draft has changed since, is the current version already, does not parse, or
    another Publish of this template is still running."""
    if template.draft_revision != revision:
        raise AuthoringError("The draft changed since you opened this page; review it first.")
    current = template.current_version
    if current is not None and current.content_hash == content_hash(template.draft_source):
        raise AuthoringError(f"The draft is the same as version {current.number}; nothing to do.")
    parsed, issues = read_draft(template.draft_source, slug=template.slug)
    if parsed is None:
        raise AuthoringError(
            "The draft has errors; fix them first: " + "; ".join(str(i) for i in issues)
        )
    try:
        with transaction.atomic():
            return PublishRun.objects.create(
                template=template,
                revision=revision,
                note=note[:300],
                seeds=publication_seeds(),
                requested_by=user,
            )
    except IntegrityError:
        raise AuthoringError(
            "This template is being published already; wait for that run, or cancel it."
        ) from None


def cancel_publication(*, run: PublishRun) -> PublishRun:
    """Stop a queued or running Publish: a queued one at once, a running one at the gate's
    next seed (its task sees the request). A finished run is left as it is."""
    with transaction.atomic():
        locked = PublishRun.objects.select_for_update().get(pk=run.pk)
        if locked.status == PublishStatus.QUEUED:
            locked.status = PublishStatus.CANCELLED
            locked.message = "Cancelled before the check started."
            locked.cancel_requested = True
            locked.save(update_fields=["status", "message", "cancel_requested", "updated_at"])
        elif locked.status == PublishStatus.RUNNING:
            locked.cancel_requested = True
            locked.save(update_fields=["cancel_requested", "updated_at"])
    return locked


def run_publication(*, run_id: int) -> PublishRun:
    """The task's work: gate the run's draft with progress, then publish, refuse or stop."""
    with transaction.atomic():
        run = PublishRun.objects.select_for_update().select_related("template").get(pk=run_id)
        if run.status != PublishStatus.QUEUED:
            return run  # cancelled while queued, or a second delivery of the task
        run.status = PublishStatus.RUNNING
        run.save(update_fields=["status", "updated_at"])
    template = run.template
    if template.draft_revision != run.revision:
        return _finish(run, PublishStatus.REFUSED, "The draft was saved again since; publish anew.")
    text = template.draft_source
    parsed, issues = read_draft(text, slug=template.slug)
    if parsed is None:
        return _finish(run, PublishStatus.REFUSED, "The draft has errors; fix them first.")
    try:
        summary = _gate_with_progress(run, text, parsed)
    except ValidationCancelled:
        return _finish(run, PublishStatus.CANCELLED, "Cancelled; nothing was published.")
    summary["revision"] = run.revision
    QuestionTemplate.objects.filter(pk=template.pk, draft_revision=run.revision).update(
        last_validation=summary, last_validated_at=timezone.now()
    )
    if not summary.get("publishable"):
        problems = len(summary["failures"])
        return _finish(
            run,
            PublishStatus.REFUSED,
            f"The draft fails validation over {run.seeds} seeds ({problems} problem(s)); see the "
            "validation report.",
        )
    return _publish(run, text, parsed)


def _gate_with_progress(run: PublishRun, text: str, parsed) -> dict:
    """The gate's summary, computed in a thread while this one reports its progress."""
    path = os.path.join(tempfile.gettempdir(), f"publish-{run.pk}-{secrets.token_hex(8)}")
    tracker = ProgressFile(path)
    outcome: dict = {}

    def gate() -> None:
        try:
            outcome["summary"] = validation_summary(
                text, run.seeds, parsed=parsed, progress=tracker
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the task's thread below
            outcome["error"] = exc

    worker = threading.Thread(target=gate, name=f"publish-{run.pk}", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_SECONDS)
            _report(run, tracker)
    finally:
        tracker.remove()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["summary"]


def _report(run: PublishRun, tracker: ProgressFile) -> None:
    """Copy the gate's count to the run; leave the stop sign once a Cancel was asked for."""
    seen = tracker.read()
    if seen is not None:
        done = min(seen[0], run.seeds)
        PublishRun.objects.filter(pk=run.pk, seeds_done__lt=done).update(
            seeds_done=done, updated_at=timezone.now()
        )
    if PublishRun.objects.filter(pk=run.pk, cancel_requested=True).exists():
        tracker.cancel()


def _publish(run: PublishRun, text: str, parsed) -> PublishRun:
    with transaction.atomic():
        locked = QuestionTemplate.objects.select_for_update().get(pk=run.template_id)
        if locked.draft_revision != run.revision or locked.draft_source != text:
            return _finish(run, PublishStatus.REFUSED, "The draft changed while it was checked.")
        if PublishRun.objects.filter(pk=run.pk, cancel_requested=True).exists():
            return _finish(run, PublishStatus.CANCELLED, "Cancelled; nothing was published.")
        version = publish_version(
            template=locked,
            text=text,
            title=parsed.title,
            user=run.requested_by,
            note=run.note,
            origin=VersionOrigin.STUDIO,
        )
        locked.title, locked.chapter_slug, locked.kind = parsed.title, parsed.chapter, parsed.kind
        locked.save(update_fields=["title", "chapter_slug", "kind"])
        run.version = version
        run.seeds_done = run.seeds
        return _finish(run, PublishStatus.PUBLISHED, "")


def fail_publication(*, run_id: int, error: str) -> None:
    """Mark a run that crashed as failed (the task's last word), unless it finished."""
    PublishRun.objects.filter(pk=run_id, status__in=PublishRun.ACTIVE).update(
        status=PublishStatus.FAILED, message=error[:500], updated_at=timezone.now()
    )


def _finish(run: PublishRun, status: str, message: str) -> PublishRun:
    run.status, run.message = status, message
    if status == PublishStatus.PUBLISHED:
        run.seeds_done = run.seeds
    else:  # as far as the gate got (the thread's last report)
        stored = PublishRun.objects.filter(pk=run.pk).values_list("seeds_done", flat=True)
        run.seeds_done = min(stored.first() or 0, run.seeds)
    run.save(update_fields=["status", "message", "version", "seeds_done", "updated_at"])
    return run
