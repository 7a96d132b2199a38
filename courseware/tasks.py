"""Conventions every app's background tasks share: a task that retries itself with backoff.

Django's tasks API runs a task once; a failed run stays failed. Work that talks to another
system (an LMS's grade service, say) fails for reasons that pass, so `retrying_task` wraps a
task function: when it raises one of `retry_on`, the next try is enqueued with `run_after` set
`backoff * 2**(try - 1)` seconds later (capped at `max_backoff`), and this try ends failed with
its own error and traceback. After `attempts` tries the error is final. Each try is an ordinary
task result; the try number travels as the `retry_try` keyword argument, so a worker restart
loses nothing.

The function must be idempotent: a try may have done part of its work before it failed.

    @retrying_task(attempts=5, backoff=30)
    def send_score(*, passback_id: int) -> None: ...

    send_score.enqueue(passback_id=row.pk)

On a backend that cannot defer (the immediate backend of the tests) the next try runs at once.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import timedelta

from django.utils import timezone
from django_tasks import task
from django_tasks.base import Task

logger = logging.getLogger(__name__)

TRY_ARGUMENT = "retry_try"


class RetryLater(Exception):
    """Raise from a retrying task to ask for another try after the backoff."""


def backoff_seconds(try_number: int, *, backoff: float, max_backoff: float) -> float:
    """The wait before try `try_number + 1`: doubling from `backoff`, capped at `max_backoff`."""
    return min(max_backoff, backoff * 2 ** (try_number - 1))


def retrying_task(
    *,
    attempts: int = 5,
    backoff: float = 30.0,
    max_backoff: float = 3600.0,
    retry_on: tuple[type[BaseException], ...] = (RetryLater, ConnectionError, TimeoutError),
    **task_options,
) -> Callable[[Callable], Task]:
    """A `django_tasks.task` decorator whose task enqueues its next try on a `retry_on` error.

    `task_options` (priority, queue_name, backend) go to `task()`.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")

    def decorate(func: Callable) -> Task:
        name = f"{func.__module__}.{func.__qualname__}"

        @functools.wraps(func)
        def run(*args, **kwargs):
            try_number = int(kwargs.pop(TRY_ARGUMENT, 1))
            try:
                return func(*args, **kwargs)
            except retry_on as error:
                if try_number >= attempts:
                    logger.error("%s failed for good after %d tries", name, try_number)
                    raise
                delay = backoff_seconds(try_number, backoff=backoff, max_backoff=max_backoff)
                _enqueue_next(bound, args, kwargs, try_number + 1, delay)
                logger.warning(
                    "%s try %d failed (%s); try %d in %.0f s",
                    name,
                    try_number,
                    error,
                    try_number + 1,
                    delay,
                )
                raise

        # `task()` names the task by the function's module path; `wraps` keeps the original's.
        del run.__wrapped__
        bound = task(**task_options)(run)
        return bound

    return decorate


def _enqueue_next(bound: Task, args: tuple, kwargs: dict, try_number: int, delay: float) -> None:
    kwargs = {**kwargs, TRY_ARGUMENT: try_number}
    if bound.get_backend().supports_defer:
        bound = bound.using(run_after=timezone.now() + timedelta(seconds=delay))
    bound.enqueue(*args, **kwargs)
