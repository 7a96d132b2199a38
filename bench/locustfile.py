"""An exam class on Locust: each Locust user is one student who logs in, opens the exam, starts
it, answers its parts at a student's pace (autosaves), submits at a moment in the common
submission window and opens the results page, once.

Run by `make loadtest` (`bench/loadtest.py` prepares the database, serves the site and checks
the run afterwards); the student's steps are `bench.drive.Student`'s, the same the home-made
driver takes, sent through Locust's HTTP client so that Locust times, counts and reports them
(CSV and HTML). Settings come from the environment `bench/loadtest.py` sets:

    LOADTEST_ACCOUNTS  a JSON file: {"usernames": [...], "password": ..., "slug": ...,
                       "quiz_url": ...}
    LOADTEST_ANSWERS   the folder where the preparation's answer watcher writes each started
                       attempt's correct answers (`bench.loadprep.watch_answers`)
    LOADTEST_RUN       where to write what the students saw (the database check reads it)
    LOADTEST_ARRIVE_S  the arrival window (the users are spawned over it)
    LOADTEST_EXAM_S    the exam's length after the arrival window; then the submission window
    LOADTEST_SUBMIT_S  the window's length; each student submits at a moment drawn in it
    LOADTEST_THINK_S   "a,b": a student's pause before each part, uniform in [a, b] seconds
    LOADTEST_HOSTS     the servers' base URLs, comma-separated (requests alternate between them)
"""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
import time
import traceback
from pathlib import Path

import gevent
from locust import HttpUser, events, task
from locust.exception import StopUser

from bench.browser import Reply
from bench.djangoside import setup

# Django is set up for the imports of the student's steps only: this process never opens a
# database connection (a thousand students each opening one exhausted PostgreSQL's
# connections). The quiz's address comes with the accounts and each attempt's correct answers
# from the preparation's answer watcher, one process with one connection for the whole class.
setup()

from bench.drive import Log, Student  # noqa: E402
from bench.loadprep import answers_file, read_answers  # noqa: E402

ACCOUNTS = json.loads(open(os.environ["LOADTEST_ACCOUNTS"]).read())
# The submission window opens ARRIVE_S + EXAM_S after Locust starts its users (not after this
# process started: importing the site takes seconds that must not eat into the exam).
ARRIVE_S = float(os.environ.get("LOADTEST_ARRIVE_S", "20"))
EXAM_S = float(os.environ.get("LOADTEST_EXAM_S", "40"))
DEADLINE = [0.0]
SUBMIT_S = float(os.environ.get("LOADTEST_SUBMIT_S", "30"))
THINK_S = tuple(float(x) for x in os.environ.get("LOADTEST_THINK_S", "5,20").split(","))
HOSTS = [h for h in os.environ.get("LOADTEST_HOSTS", "").split(",") if h]
ANSWERS = Path(os.environ.get("LOADTEST_ANSWERS", "."))
# How long a student waits for its attempt's answers from the watcher before it answers
# without them (counted: the run then fails its check).
ANSWERS_WAIT_S = 120.0
LOG = Log()
PROGRESS: dict[str, object] = {}
# What went wrong inside the harness itself (an exception in a student's steps): each one
# ends that student and fails the run's check, never silently restarts it.
HARNESS_ERRORS: list[str] = []
_names = iter(ACCOUNTS["usernames"])
_names_lock = threading.Lock()
_finished: set[str] = set()


class LocustBrowser:
    """`bench.browser.Browser`'s interface on Locust's client: every request is timed and
    counted by Locust under the step's name, redirects are returned, not followed."""

    def __init__(self, client, hosts: list[str]):
        self.client = client
        self.name = ""
        # With two servers, consecutive requests alternate between them (one set of cookies:
        # both answer on 127.0.0.1), as behind a balancer without sticky sessions.
        self.hosts = itertools.cycle(hosts or [""])

    def _url(self, path: str) -> str:
        return next(self.hosts) + path

    def _reply(self, response) -> Reply:
        if response.status_code == 0:  # no answer at all (refused, reset, timed out)
            raise OSError(str(response.error))
        headers = {key.lower(): value for key, value in response.headers.items()}
        return Reply(response.status_code, headers, response.text, response.elapsed.total_seconds())

    def get(self, path: str, headers=None) -> Reply:
        return self._reply(
            self.client.get(self._url(path), headers=headers, allow_redirects=False, name=self.name)
        )

    def post(self, path: str, fields, headers=None) -> Reply:
        return self._reply(
            self.client.post(
                self._url(path),
                data=fields,
                headers=headers,
                allow_redirects=False,
                name=self.name,
            )
        )

    def close(self) -> None:
        """Drop the kept-alive connections, keep the cookies: after a long wait (the student
        waiting to submit) a browser opens a new connection rather than reuse one the server
        may be closing at that moment (its keep-alive is 10 s), as `Browser.close` does."""
        self.client.close()


class LocustStudent(Student):
    results_url = ""
    answers_missing = False

    def quiz_address(self, slug: str) -> str:
        return ACCOUNTS["quiz_url"]

    def answers(self, attempt_id: int) -> dict:
        """The attempt's correct answers from the watcher's file (it appears within a
        fraction of a second of the start); the student reads its questions meanwhile."""
        path = answers_file(ANSWERS, attempt_id)
        waited = time.perf_counter()
        while not path.exists():
            if time.perf_counter() - waited > ANSWERS_WAIT_S:
                self.answers_missing = True
                return {}
            gevent.sleep(0.1)
        return read_answers(path)

    def call(self, endpoint, method, path, fields=None, htmx=False):
        self.browser.name = endpoint
        reply = super().call(endpoint, method, path, fields, htmx)
        if endpoint == "submit exam" and reply is not None and reply.status == 302:
            self.results_url = reply.location  # the submission redirects to the results page
        return reply


class ExamStudent(HttpUser):
    """One student, one exam, then this user stops."""

    def on_start(self) -> None:
        with _names_lock:
            self.username = next(_names, None)

    @task
    def sit_the_exam(self) -> None:
        if self.username is None:  # more users than accounts: nothing to do
            raise StopUser
        rng = random.Random(f"loadtest-{self.username}")
        student = LocustStudent(
            LocustBrowser(self.client, HOSTS), self.username, ACCOUNTS["password"], LOG, rng
        )
        PROGRESS[self.username] = student.progress
        submit_at = DEADLINE[0] + rng.uniform(0, SUBMIT_S)
        try:
            if student.login():
                student.exam(ACCOUNTS["slug"], submit_at=submit_at, think_s=THINK_S)
                if student.progress.exam_submitted:
                    results = student.call("results page", "GET", student.results_url)
                    student.progress.results_seen = results is not None and results.status == 200
        except Exception:  # noqa: BLE001 - the harness's own failure: counted, and this user ends
            HARNESS_ERRORS.append(f"{self.username}: {traceback.format_exc(limit=3)}")
        finally:
            student.progress.answers_missing = student.answers_missing
            with LOG.lock:
                LOG.students_done += 1
                _finished.add(self.username)
                everyone = len(_finished) >= len(ACCOUNTS["usernames"])
            if everyone:
                # Every student is done: end the run now, from outside this user, once Locust
                # has written this last request into its CSV (it writes every second).
                gevent.spawn_later(2.5, self.environment.runner.quit)
        raise StopUser


# This process's CPU while the students run (its start-up, Django's imports included, is
# left out): what the load generator takes of the cores it shares with the site.
CPU_S = [0.0, 0.0]


@events.test_start.add_listener
def _open_the_exam(environment, **kwargs):
    DEADLINE[0] = time.perf_counter() + ARRIVE_S + EXAM_S
    CPU_S[0] = time.process_time()


@events.quitting.add_listener
def _write_run(environment, **kwargs):
    """What the students saw, for the scenario check and the database check."""
    progress = {
        name: {**vars(p), "results_seen": getattr(p, "results_seen", False)}
        for name, p in PROGRESS.items()
    }
    with open(os.environ["LOADTEST_RUN"], "w") as out:
        json.dump(
            {
                "verify": LOG.for_verify(),
                "progress": progress,
                "harness_errors": HARNESS_ERRORS,
                "finished": len(_finished),
                "locust_cpu_s": time.process_time() - CPU_S[0],
                **LOG.summary(),
            },
            out,
        )
