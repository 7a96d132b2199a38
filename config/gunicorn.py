"""gunicorn settings for production: ``gunicorn -c config/gunicorn.py config.wsgi``.

Only what the application itself needs is fixed here; workers, binding and timeouts stay on
the command line or in ``GUNICORN_CMD_ARGS``.  Each worker starts its own formula-grading pool
as soon as it has loaded the application, in the background, so the first student answer it
serves never waits for the pool (see ``quizzes.grading.pool``), and draws the caches a first
attempt page needs before taking traffic (``quizzes.warmup.warm_before_traffic``).
"""


def post_worker_init(worker):
    """Start this worker's grading pool (after the fork: a pool is never shared across forks)
    and warm what the first pages need, before the worker takes its first request."""
    from quizzes.warmup import warm_before_traffic

    warm_before_traffic(alive=getattr(worker, "notify", lambda: None))
