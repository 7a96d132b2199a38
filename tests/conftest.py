"""Suite-wide fixtures and the CI rule that a skipped browser or PostgreSQL test is a failure."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings as hypothesis_settings

# Speed is measured by benchmarks, never asserted in tests: Hypothesis's per-example deadline
# (200 ms) is a timed assertion that failed on a loaded machine, so it is off for every test.
hypothesis_settings.register_profile("suite", deadline=None)
hypothesis_settings.load_profile("suite")

IN_CI = os.environ.get("CI", "").lower() == "true"
ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}


def uses_database(item) -> bool:
    return bool(item.get_closest_marker("django_db")) or bool(
        DB_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def pytest_collection_modifyitems(config, items):
    # PostgreSQL-only tests are not run (nor reported as skipped) on the SQLite pass. The
    # PostgreSQL pass of .ci/run runs every test that touches the database; the pure ones
    # (physics, grading, engine) behave the same on any database and ran on the first pass.
    keep, drop = [], []
    for item in items:
        if ON_POSTGRES:
            (keep if uses_database(item) else drop).append(item)
        else:
            (drop if item.get_closest_marker("postgres") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if (
        IN_CI
        and report.skipped
        and any(item.get_closest_marker(name) for name in ("browser", "postgres", "redis"))
    ):
        report.outcome = "failed"
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped in CI, where it must run: {reason}"


# RSA keys that an LMS launch test generates (the tool's signing key, the test platform's key):
# each 2048-bit key costs a noticeable fraction of a second, several per test. A ring of keys
# made once per session is handed out in turn, so keys asked for one after another still
# differ (a rotation test sees a new key), and no test depends on how a key was made.
_KEY_RING_SIZE = 8


@pytest.fixture(scope="session", autouse=True)
def _rsa_key_ring():
    from jwcrypto import jwk

    generate = jwk.JWK.generate.__func__
    ring: list = []
    handed = iter(range(10**9))

    def ring_generate(cls, **params):
        if params != {"kty": "RSA", "size": 2048}:
            return generate(cls, **params)
        slot = next(handed) % _KEY_RING_SIZE
        if slot == len(ring):
            ring.append(generate(cls, **params).export())
        return cls.from_json(ring[slot])

    jwk.JWK.generate = classmethod(ring_generate)
    yield
    jwk.JWK.generate = classmethod(generate)


IMMEDIATE_TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture(scope="session", autouse=True)
def _test_settings():
    """Settings every test runs with, set once per session (a test's own `settings` changes
    are undone back to these after it):

    - plain static storage: the site's manifest storage needs `collectstatic`, which tests do
      not run; Django's docs advise plain storage in tests. tests/test_static_files.py covers
      the manifest storage.
    - tasks run immediately: a test sees a background task's effect at once;
      tests/quizzes/test_tasks.py runs the same tasks through the database backend and a
      worker, as production does (`database_tasks`).
    - background exports (`response_export`) in a temporary folder;
    - no login throttling: django-axes needs the request that Django's test client `login()`
      does not pass; the throttling itself is tested with real login requests in
      tests/security/.
    """
    from django.conf import settings
    from django.test.utils import override_settings

    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Background exports are written to a folder of the session's own, never the checkout.
    exports = tempfile.mkdtemp(prefix="test-exports-")
    with override_settings(
        STORAGES=storages, TASKS=IMMEDIATE_TASKS, AXES_ENABLED=False, EXPORTS_ROOT=exports
    ):
        yield
    shutil.rmtree(exports, ignore_errors=True)


@pytest.fixture
def database_tasks(settings):
    """The production task backend: enqueued tasks wait in the database for a worker."""
    settings.TASKS = DATABASE_TASKS


@pytest.fixture
def task_worker(database_tasks, monkeypatch):
    """Run `manage.py worker --batch`: every task that is due, then return.

    Inside a test's transaction the worker must neither close the connection (it does between
    tasks, as a long-running process should) nor take over the process's signal handlers.
    """
    from django.core.management import call_command
    from django_tasks_db.management.commands import db_worker

    import health.worker

    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)
    # Nor close them after a database error: that would end the test's transaction.
    monkeypatch.setattr(health.worker, "close_connections", lambda: None)
    monkeypatch.setattr(db_worker.Worker, "configure_signals", lambda self: None)
    return lambda: call_command("worker", batch=True, verbosity=0)


@pytest.fixture
def course(db):
    """The site's course (the book and the bank) and its default offering."""
    from courseware.roles import site_course
    from tests.factories import CourseFactory, default_offering

    course = CourseFactory()
    default_offering(course)
    # Requests then run as in a worker that has served one before: the site's course row is
    # kept for a minute (courseware/roles.py), so query counts do not depend on which came first.
    site_course()
    return course


@pytest.fixture
def offering(course):
    """The site's default offering (of `course`), where factory rows go unless told otherwise."""
    from tests.factories import default_offering

    return default_offering(course)


@pytest.fixture
def student(offering):
    from tests.factories import EnrollmentFactory

    return EnrollmentFactory(offering=offering, role="student").user


@pytest.fixture
def instructor(offering):
    from tests.factories import EnrollmentFactory

    return EnrollmentFactory(offering=offering, role="instructor").user


@pytest.fixture
def assistant(offering):
    from tests.factories import EnrollmentFactory

    return EnrollmentFactory(offering=offering, role="ta").user


@pytest.fixture
def author(course):
    """A site-wide author (the question bank's), enrolled in no offering."""
    from tests.factories import UserFactory, site_role

    user = UserFactory()
    site_role(user, "author")
    return user


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: the per-student grading limits live there, and
    user ids come back between tests, so counts must not carry over."""
    from django.core.cache import cache

    from quizzes.presenters import page_memo, results_memo

    cache.clear()
    page_memo.clear()  # rolled-back rows give their ids to the next test's rows
    results_memo.clear()
    yield
