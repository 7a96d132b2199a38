"""The quizzes app's background tasks, and the functions views call to start them.

A task takes ids, never rows (its arguments are stored as JSON), and reads its rows afresh.
Each one keeps its progress in the site's own rows (a RegradeRun, a template's last
validation), so a page shows progress by reading those rows, whichever backend runs the task,
and a task run twice changes nothing more.

- `regrade_preview` / `regrade_apply`: a regrade completes with no browser open;
- `validate_draft_seeds`: a studio validation over more seeds than the publication gate uses;
- `publish_draft_run`: an author's Publish, the publication gate with its progress kept on the
  run (the page polls it and may cancel it), then the new version;
- `refresh_item_statistics`: an item page's kept statistics computed again after grades changed;
- `refresh_offering_statistics`: the same for an offering's item index or misconception map;
- `build_export`: a large export of an offering's responses written to a private file, its
  progress kept on its `ExportRun`;
- `grade_submission`: a submitted exam graded and scored, exactly once
  (`services.grading_run`; the submission only froze it and queued this);
- `close_expired_exams`: every open attempt past its deadline is submitted, exams whose
  grading waited too long are graded, and exports past their time are removed. It enqueues
  its own next run (`schedule_expiry_sweep`), and `manage.py worker` starts the chain.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from quizzes.models import PublishRun, QuestionTemplate, RegradeRun, RegradeStatus
from quizzes.services import authoring, grading_run, regrade
from quizzes.services.instructor import offering_statistics, response_export, statistics
from quizzes.services.submission import close_expired_attempts

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------- regrades


@task()
def regrade_preview(run_id: int) -> int:
    """Compute a queued run's preview; the number of score changes."""
    try:
        run = regrade.compute_preview(run_id=run_id)
    except Exception as exc:
        regrade.fail_run(run_id=run_id, error=f"The preview failed: {exc}")
        raise
    return run.changed


@task()
def regrade_apply(run_id: int) -> str:
    """Apply a running regrade to the end; its final status."""
    try:
        run = regrade.apply_regrade(run_id=run_id)
    except Exception as exc:
        regrade.fail_run(run_id=run_id, error=f"Applying stopped: {exc}")
        raise
    return run.status


def request_preview(
    *, offering, template, target_version, recompute_answers: bool, by
) -> RegradeRun:
    """Record a regrade of the offering's responses and enqueue its preview."""
    run = regrade.queue_preview(
        offering=offering,
        template=template,
        target_version=target_version,
        recompute_answers=recompute_answers,
        by=by,
    )
    _remember(run, regrade_preview.enqueue(run.pk))
    return run


def request_apply(*, run: RegradeRun) -> RegradeRun:
    """Mark a previewed (or stopped) run as running and enqueue the task that applies it."""
    run = regrade.start_regrade(run=run)
    if run.status == RegradeStatus.RUNNING:
        _remember(run, regrade_apply.enqueue(run.pk))
        run.refresh_from_db()
    return run


def _remember(run: RegradeRun, result) -> None:
    # update(), not save(): the immediate backend has already run the task and written the row.
    RegradeRun.objects.filter(pk=run.pk).update(task_id=str(result.id)[:64])


def task_failure(task_id: str) -> str:
    """Why the task `task_id` failed, when the backend can say (else "")."""
    backend = regrade_apply.get_backend()
    if not task_id or not backend.supports_get_result:
        return ""
    try:
        result = backend.get_result(task_id)
    except Exception:  # noqa: BLE001 - a pruned or foreign result says nothing
        return ""
    if result.status != "FAILED" or not result.errors:
        return ""
    return result.errors[0].exception_class_path.rsplit(".", 1)[-1]


# ---------------------------------------------------------------- studio validation


@task()
def validate_draft_seeds(template_id: int, seeds: int, requested_by: int | None = None) -> bool:
    """Validate a template's draft over `seeds` seeds and store the report; whether it passed.
    (`requested_by`: the author who asked, so the queue can be shared fairly.)"""
    template = QuestionTemplate.objects.get(pk=template_id)
    return authoring.validate_draft(template=template, seeds=seeds)["ok"]


# Long validations waiting for the worker: each holds it for up to the validation budget.
MAX_QUEUED_VALIDATIONS_PER_AUTHOR = 2
MAX_QUEUED_VALIDATIONS = 10


def request_validation(*, template: QuestionTemplate, seeds: int, by=None) -> None:
    """Validate now up to the publication gate's seed count; more seeds run as a task, at most
    one waiting per template, `MAX_QUEUED_VALIDATIONS_PER_AUTHOR` per author and
    `MAX_QUEUED_VALIDATIONS` in all (`authoring.AuthoringError` says which limit was met)."""
    if seeds <= authoring.DEFAULT_SEEDS:
        authoring.validate_draft(template=template, seeds=seeds)
        return
    _check_validation_queue(template, by)
    authoring.mark_validation_pending(template=template, seeds=seeds)
    validate_draft_seeds.enqueue(template.pk, seeds, requested_by=getattr(by, "pk", None))
    template.refresh_from_db()


def _check_validation_queue(template: QuestionTemplate, by) -> None:
    waiting = _waiting_validations()
    if any(_argument(kw, 0, "template_id") == template.pk for kw in waiting):
        raise authoring.AuthoringError(
            "A validation of this template is already waiting for the background worker; "
            "its report appears here when it has run."
        )
    mine = [kw for kw in waiting if by is not None and _argument(kw, 2, "requested_by") == by.pk]
    if len(mine) >= MAX_QUEUED_VALIDATIONS_PER_AUTHOR:
        raise authoring.AuthoringError(
            f"You have {len(mine)} long validations waiting for the background worker, the "
            "most one author may queue; wait for one to finish, or validate over fewer seeds "
            f"({authoring.DEFAULT_SEEDS} run at once)."
        )
    if len(waiting) >= MAX_QUEUED_VALIDATIONS:
        raise authoring.AuthoringError(
            f"{len(waiting)} long validations are waiting for the background worker, the most "
            "the site queues; try again in a few minutes, or validate over fewer seeds "
            f"({authoring.DEFAULT_SEEDS} run at once)."
        )


def _waiting_validations() -> list:
    """The arguments of every long validation queued or running (the database backend; a
    backend that runs tasks at once keeps none waiting)."""
    from django_tasks_db.models import DBTaskResult

    backend = validate_draft_seeds.get_backend()
    if not _keeps_chain(backend):
        return []
    rows = DBTaskResult.objects.filter(
        backend_name=backend.alias,
        task_path=validate_draft_seeds.module_path,
        status__in=["READY", "RUNNING"],
    )
    return list(rows.values_list("args_kwargs", flat=True))


def _argument(args_kwargs, position: int, name: str):
    args, kwargs = (args_kwargs or {}).get("args", []), (args_kwargs or {}).get("kwargs", {})
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else None


# ---------------------------------------------------------------- publishing


@task()
def publish_draft_run(run_id: int) -> str:
    """Check and publish a queued Publish; its final status."""
    try:
        run = authoring.run_publication(run_id=run_id)
    except Exception as exc:
        authoring.fail_publication(run_id=run_id, error=f"The check stopped: {exc}")
        raise
    return run.status


def request_publication(*, template: QuestionTemplate, revision: int, user, note: str = ""):
    """Queue an author's Publish and enqueue its task; AuthoringError when it cannot be."""
    run = authoring.queue_publication(template=template, revision=revision, user=user, note=note)
    result = publish_draft_run.enqueue(run.pk)
    # update(), not save(): the immediate backend has already run the task and written the row.
    PublishRun.objects.filter(pk=run.pk).update(task_id=str(result.id)[:64])
    run.refresh_from_db()
    return run


# ---------------------------------------------------------------- item statistics


@task()
def refresh_item_statistics(template_id: int, offering_id: int, quiz_id: int | None) -> None:
    """Compute a template's kept item statistics in an offering again (in one of its quizzes,
    or over all of them)."""
    statistics.refresh_by_ids(template_id, offering_id, quiz_id)


def request_statistics_refresh(*, template: QuestionTemplate, offering, quiz=None) -> bool:
    """Queue a refresh of stale kept statistics unless one is queued already; whether the
    refresh has finished by the time this returns (a backend that runs tasks at once)."""
    if not statistics.claim_refresh(template, offering, quiz=quiz):
        return False
    result = refresh_item_statistics.enqueue(template.pk, offering.pk, quiz.pk if quiz else None)
    return result.is_finished


@task()
def refresh_offering_statistics(offering_id: int, kind: str) -> None:
    """Compute an offering's kept item index or misconception map again."""
    offering_statistics.refresh_by_ids(offering_id, kind)


def request_offering_statistics_refresh(*, offering, kind: str) -> bool:
    """Queue a refresh of a stale kept page unless one is queued already; whether it has
    finished by the time this returns (a backend that runs tasks at once)."""
    if not offering_statistics.claim_refresh(offering, kind):
        return False
    return refresh_offering_statistics.enqueue(offering.pk, str(kind)).is_finished


# ---------------------------------------------------------------- large exports


@task()
def build_export(run_id: int) -> int:
    """Write a queued export's file; its size in bytes (0 when it was not queued)."""
    run = response_export.build(run_id=run_id)
    return run.size if run is not None else 0


def request_export(*, offering, kind: str, by):
    """Queue an export of the offering's responses (or find the one being prepared) and
    enqueue its task; the run."""
    run, new = response_export.queue(offering=offering, kind=kind, by=by)
    if new:
        build_export.enqueue(run.pk)
        run.refresh_from_db()
    return run


# ---------------------------------------------------------------- submitted exams


@task()
def grade_submission(attempt_id: int) -> bool:
    """Grade a submitted exam; whether this run finished it (False: graded already)."""
    return grading_run.grade_submitted(attempt_id=attempt_id)


def enqueue_grading(attempt_id: int) -> None:
    """Enqueue an exam's grading from inside its submission's transaction.

    The database backend writes the task's row in that transaction (they commit together); the
    immediate backend grades at once, inside it; any other backend gets the task after the
    commit, so its worker never finds the attempt not yet frozen. The task is enqueued with
    `robust` on_commit: a queue that is down loses no submission, the overdue grading
    (`grading_run.grade_overdue`, the results page) grades it instead.
    """
    from django.db import transaction
    from django_tasks.backends.immediate import ImmediateBackend

    backend = grade_submission.get_backend()
    if _keeps_chain(backend) or isinstance(backend, ImmediateBackend):
        grade_submission.enqueue(attempt_id)
    else:
        transaction.on_commit(lambda: grade_submission.enqueue(attempt_id), robust=True)


# ---------------------------------------------------------------- expired attempts


@task()
def close_expired_exams() -> int:
    """Submit every open attempt past its deadline, then schedule the next sweep."""
    closed = close_expired_attempts(now=timezone.now())
    grading_run.grade_overdue(now=timezone.now())
    response_export.remove_expired(now=timezone.now())
    schedule_expiry_sweep()
    return closed


def schedule_expiry_sweep(*, delay: float | None = None) -> bool:
    """Enqueue the next `close_expired_exams` unless one already waits; whether it enqueued.

    Only a backend that can defer and can be asked what waits (the database backend) keeps the
    chain; elsewhere run `manage.py close_expired_attempts` from the platform's scheduler.
    Two chains started at once merge: a sweep that finds another one waiting schedules none.
    """
    backend = close_expired_exams.get_backend()
    if not _keeps_chain(backend) or _sweep_waiting(backend):
        return False
    if delay is None:
        delay = settings.QUIZ_EXPIRY_SWEEP_SECONDS
    close_expired_exams.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue()
    return True


def _keeps_chain(backend) -> bool:
    from django_tasks_db import DatabaseBackend

    return isinstance(backend, DatabaseBackend)


def _sweep_waiting(backend) -> bool:
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(
        backend_name=backend.alias,
        task_path=close_expired_exams.module_path,
        status="READY",
    ).exists()
