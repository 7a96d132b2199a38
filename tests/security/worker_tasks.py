"""A task the worker tests enqueue: it needs no table of the site's own, so a worker against a
database that holds only the task queue can run it."""

from django_tasks import task


@task()
def ping() -> str:
    return "pong"
