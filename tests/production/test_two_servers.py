"""Production proved: an exam across two gunicorn servers sharing PostgreSQL and Redis.

Each server is run as docs/deploy.md says (config/gunicorn.py, a threaded worker, DEBUG off,
collected static files, `REDIS_URL` for the cache and sessions), one worker each so that a
per-process cache shows as a difference between the servers. The student's consecutive
requests alternate servers, and what must hold across them does: the session (a login on one
is a login on both, a logout on one ends it on both), the login throttle, the grading budget
(free outcomes counted on both add up), an LTI launch (its login on one server, its launch on
the other) and page freshness (an answer saved on one server shows on the other, whose own
memo of the page was drawn before the save). The exam is then submitted and graded once.

It needs PostgreSQL (SQLite's test database lives in this process) and Debian's
`redis-server`; `.ci/run` installs both, and in CI a skip counts as a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from decimal import Decimal

import pytest
from django.urls import reverse

from lti.demo_platform import DemoPlatform
from lti.tool import register_platform
from quizzes.models import Attempt, Response, SavedAnswer
from quizzes.services.questions import correct_answers
from tests.factories import PASSWORD, EnrollmentFactory, make_quiz
from tests.lti.conftest import launch, link_context
from tests.production.servers import (
    REDIS_SERVER,
    ROOT,
    Browser,
    Redis,
    Server,
    database_url,
    input_value,
    server_env,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(REDIS_SERVER is None, reason="needs Debian's redis-server"),
]

FREE_BUDGET = 3
LOGIN_LIMIT = 3


@pytest.fixture(scope="session")
def static_root(tmp_path_factory):
    """`collectstatic` once, as a release does (DEBUG off needs its manifest); in a process of
    its own, with the production storage (the tests' settings use plain storage)."""
    root = tmp_path_factory.mktemp("static")
    env = {**os.environ, "DJANGO_STATIC_ROOT": str(root)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    return root


@pytest.fixture
def redis():
    server = Redis()
    yield server
    server.stop()


@pytest.fixture
def two_servers(static_root, redis, course):
    env = server_env(
        database=database_url(),
        redis=redis.url,
        static_root=static_root,
        GRADING_FREE_BUDGET=str(FREE_BUDGET),
        # One window for the whole test (a fixed window's edge would reset the count).
        GRADING_FREE_WINDOW=str(10**9),
        DJANGO_LOGIN_FAILURE_LIMIT=str(LOGIN_LIMIT),
        # No task worker runs here: a submitted exam is graded by the next request for its
        # results page at once (the fallback for a worker that is down, through the same
        # claim), so "graded once" is proved across the two servers.
        QUIZ_GRADING_INLINE_AFTER_SECONDS="0",
    )
    servers = [Server("A", env), Server("B", env)]
    try:
        yield [server.wait() for server in servers]
    finally:
        for server in servers:
            server.stop()
            # Shown by pytest only when the test fails: what each server logged.
            print(f"--- gunicorn {server.name} ---\n{server.output()[-4000:]}")


def enrolled(quiz, name: str):
    """A student of the quiz's offering."""
    return EnrollmentFactory(offering=quiz.offering, role="student", user__username=name).user


def url(name: str, quiz, *args) -> str:
    return reverse(name, args=[quiz.offering.slug, *args])


def _autosave(browser, attempt, variant, text, sequence):
    path = url("quizzes:autosave", attempt.quiz, attempt.pk, variant.pk, "t")
    response = browser.post(path, {"answer": text, "sequence": sequence}, htmx=True)
    assert response.status_code == 200, (browser.served[-1], response.text[:300])


def test_an_exam_its_student_and_an_lti_launch_hold_across_two_servers(two_servers, course):
    """One pair of servers for every check: starting them is most of the test's time."""
    a, b = two_servers
    exam_across_servers(a, b, course)
    budget_and_throttle_across_servers(a, b, course)
    lti_launch_across_servers(a, b, course)


def exam_across_servers(a, b, course):
    exam = make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        mode="exam",
        time_limit_minutes=30,
    )
    student = enrolled(exam, "exam-student")
    browser = Browser([a, b])

    # The session: the login page from A, the login on B, and signed in on either after.
    assert browser.login(student.username, PASSWORD).status_code == 302
    page = browser.get(exam.get_absolute_url())
    assert page.status_code == 200 and exam.title in page.text, browser.served
    started = browser.post(url("quizzes:start_attempt", exam, exam.slug), {})
    assert started.status_code == 302, started.text[:300]
    attempt = Attempt.objects.get(student=student, quiz=exam)
    assert started.headers["Location"] == attempt.get_absolute_url()
    numeric = attempt.variants.get(item__position=1)
    choice = attempt.variants.get(item__position=2)

    # Page freshness: both servers draw (and memoise) the page, then a save on one shows on
    # the other, in both directions.
    for server in (a, b):
        assert browser.get(attempt.get_absolute_url(), on=server).status_code == 200
    field = f"answer-{numeric.pk}-t"
    _autosave(browser, attempt, numeric, "1 ms", 1)  # on A
    seen_on_b = browser.get(attempt.get_absolute_url())
    assert (browser.served[-2:], input_value(seen_on_b.text, field)) == (["A", "B"], "1 ms")
    seconds = correct_answers(numeric)["t"]
    _autosave(browser, attempt, numeric, f"{seconds} s", 2)  # on A again: the cycle goes on
    _autosave(browser, attempt, numeric, f"{seconds} s", 3)  # on B
    right = correct_answers(choice)["bound"][0]
    path = url("quizzes:autosave", exam, attempt.pk, choice.pk, "bound")
    assert browser.post(path, {"answer": right, "sequence": 1}, htmx=True).status_code == 200
    seen_on_b = browser.get(attempt.get_absolute_url(), on=b)
    seen_on_a = browser.get(attempt.get_absolute_url(), on=a)
    assert input_value(seen_on_b.text, field) == input_value(seen_on_a.text, field)
    assert input_value(seen_on_a.text, field) == f"{seconds} s"
    assert SavedAnswer.objects.filter(variant__attempt=attempt).count() == 2

    # Submitted on one server, its results on the other; graded once, nothing lost.
    submitted = browser.post(
        url("quizzes:submit_attempt", exam, attempt.pk), {"confirm": "1"}, on=b
    )
    results_url = url("quizzes:attempt_results", exam, attempt.pk)
    assert submitted.status_code == 302 and submitted.headers["Location"] == results_url
    results = browser.get(results_url, on=a)
    assert results.status_code == 200 and exam.title in results.text
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and attempt.score == Decimal("2.000")
    assert Response.objects.filter(variant__attempt=attempt).count() == 2
    # The submitted exam is closed on both servers: a late save is refused on either.
    for server in (a, b):
        late = browser.post(
            url("quizzes:autosave", exam, attempt.pk, numeric.pk, "t"),
            {"answer": "9 s", "sequence": 9},
            htmx=True,
            on=server,
        )
        assert "9 s" not in SavedAnswer.objects.filter(variant=numeric).values_list(
            "raw", flat=True
        ), late.text[:200]

    # A logout on one server ends the session on both.
    assert browser.post("/accounts/logout/", {}, on=a).status_code == 302
    for server in (a, b):
        after = browser.get(attempt.get_absolute_url(), on=server)
        assert after.status_code == 302 and "/accounts/login/" in after.headers["Location"]

    assert {"A", "B"} == set(browser.served)


def budget_and_throttle_across_servers(a, b, course):
    homework = make_quiz(course, examples=["decode-step-memory-floor"], tries_per_variant=2)
    student = enrolled(homework, "budget-student")
    browser = Browser([a, b])
    assert browser.login(student.username, PASSWORD).status_code == 302  # A
    started = browser.post(url("quizzes:start_attempt", homework, homework.slug), {})  # B
    assert started.status_code == 302
    attempt = Attempt.objects.get(student=student, quiz=homework)
    variant = attempt.variants.get()
    check = url("quizzes:submit_part", homework, attempt.pk, variant.pk, "t")

    # Unreadable answers cost no try but spend the budget, wherever they are graded: the
    # servers alternate B, A, B, so neither alone has reached the limit when A refuses.
    for _ in range(FREE_BUDGET):
        response = browser.post(
            check, {"answer": "banana", "idempotency_key": uuid.uuid4().hex}, htmx=True
        )
        assert response.status_code == 200 and "Slow down" not in response.text
    assert browser.served[-FREE_BUDGET:] == ["B", "A", "B"]
    assert Response.objects.filter(variant=variant, status="invalid").count() == FREE_BUDGET
    for _ in range(2):  # A, then B
        refused = browser.post(
            check, {"answer": "banana", "idempotency_key": uuid.uuid4().hex}, htmx=True
        )
        assert "Slow down" in refused.text, (browser.served[-1], refused.text[:400])
    assert Response.objects.filter(variant=variant).count() == FREE_BUDGET

    # Wrong passwords on alternating servers add up to one lock, which holds on both (the
    # first server alone saw fewer than the limit).
    victim = enrolled(homework, "throttled-student")
    intruder = Browser([a, b])
    assert intruder.get("/accounts/login/", on=a).status_code == 200
    login = {"username": victim.username}
    for n, server in enumerate([b, a, b], start=1):  # neither server sees LOGIN_LIMIT alone
        wrong = intruder.post("/accounts/login/", {**login, "password": "wrong"}, on=server)
        # The form again with its error; the failure that reaches the limit locks at once.
        assert wrong.status_code == (429 if n == LOGIN_LIMIT else 200), (server.name, n)
    for server in (a, b):
        locked = intruder.post("/accounts/login/", {**login, "password": PASSWORD}, on=server)
        assert locked.status_code == 429, (server.name, locked.status_code)
        assert "sessionid" not in locked.cookies


def lti_launch_across_servers(a, b, course):
    quiz = make_quiz(course)
    lms = DemoPlatform(a.url).start(poll_interval=0.02)
    try:
        register_platform(**lms.registration_args())
        link_context(lms, lms.shape.context_id, quiz.offering)  # its course is this site's
        for n in range(3):
            browser = Browser([b])
            done = launch(
                lms,
                session=browser.session,
                post=False,
                user=f"lti-{n}",
                custom={"quiz": quiz.slug},
            )
            assert done.form["launch_url"].startswith(a.url)
            launched = browser.post(
                "/lti/launch/", {"id_token": done.form["id_token"], "state": done.form["state"]}
            )
            assert launched.headers.get("Location") == quiz.get_absolute_url(), launched.text[-600:]
            # Signed in by B, the student's session is good on A.
            page = browser.get(quiz.get_absolute_url(), on=a)
            assert page.status_code == 200 and quiz.title in page.text
    finally:
        lms.stop()
