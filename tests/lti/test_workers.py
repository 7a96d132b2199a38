"""Launches served the production way: gunicorn with two workers, each request on a new
connection (so the login and the launch land on whichever worker takes them), and two gunicorn
servers on two ports sharing one database (login on one, launch on the other).

The servers open the test's database: on PostgreSQL the test database itself; on SQLite (whose
test database lives in this process's memory) a file copy of it taken once the course, quiz and
platform are in place. Today's per-process cache (no REDIS_URL) loses about half the
launches here; the login state lives in the database, so none is lost.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
import requests
from django.db import connection

from lti.demo_platform import DemoPlatform
from lti.tool import register_platform
from tests.factories import make_quiz
from tests.lti.conftest import launch, link_context

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shared_database_url(tmp_path: Path) -> str:
    """A URL another process can open, holding what this test has written so far."""
    settings = connection.settings_dict
    if settings["ENGINE"] == "django.db.backends.postgresql":
        user = settings["USER"] or ""
        password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
        auth = f"{user}{password}@" if user else ""
        host = settings["HOST"] or "localhost"
        return f"postgres://{auth}{host}:{settings['PORT'] or 5432}/{settings['NAME']}"
    copy = tmp_path / "db.sqlite3"
    connection.ensure_connection()
    target = sqlite3.connect(copy)
    connection.connection.backup(target)
    target.close()
    return f"sqlite:///{copy}"


class Server:
    """gunicorn serving the site with `workers` workers on `port`."""

    def __init__(self, port: int, database_url: str, workers: int):
        self.port, self.url = port, f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            # Debug only so that pages render without `collectstatic`'s manifest; caches,
            # sessions and the database are as in production.
            "DJANGO_DEBUG": "1",
            "DJANGO_INSECURE_HTTP": "1",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        }
        env.pop("REDIS_URL", None)  # the point: no shared cache, only the database
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [str(GUNICORN), "config.wsgi", "-w", str(workers), "-b", f"127.0.0.1:{port}"]
            + ["--timeout", "30", "--graceful-timeout", "3", "--no-control-socket"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait(self) -> Server:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/lti/jwks/", timeout=5) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not start: {Path(self.log.name).read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def served(course, tmp_path):
    """(quiz, platform, start servers(workers, count)): the platform points at the first."""
    ports = [free_port(), free_port()]
    quiz = make_quiz(course)
    lms = DemoPlatform(f"http://127.0.0.1:{ports[0]}").start(poll_interval=0.02)
    register_platform(**lms.registration_args())
    link_context(lms, lms.shape.context_id, quiz.offering)  # its course is this site's
    servers = []

    def start(*, workers: int, count: int) -> list[Server]:
        url = shared_database_url(tmp_path)
        servers.extend(Server(port, url, workers) for port in ports[:count])
        return [server.wait() for server in servers]

    yield quiz, lms, start
    for server in servers:
        server.stop()
    lms.stop()


def fresh_session() -> requests.Session:
    """A browser whose every request opens a new connection (as through a pooling proxy)."""
    session = requests.Session()
    session.headers["Connection"] = "close"
    return session


def test_twenty_launches_on_two_workers_are_all_accepted(served):
    quiz, lms, start = served
    (server,) = start(workers=2, count=1)
    accepted = []
    for n in range(20):
        done = launch(lms, session=fresh_session(), user=f"student-{n}", custom={"quiz": quiz.slug})
        accepted.append(done.response.headers.get("Location") == quiz.get_absolute_url())
    assert accepted.count(True) == 20, accepted


def test_login_on_one_server_and_launch_on_another(served):
    quiz, lms, start = served
    first, second = start(workers=1, count=2)
    for n in range(4):
        session = fresh_session()
        done = launch(
            lms, session=session, post=False, user=f"student-{n}", custom={"quiz": quiz.slug}
        )
        assert done.form["launch_url"].startswith(first.url)
        response = session.post(
            second.url + "/lti/launch/",
            data={"id_token": done.form["id_token"], "state": done.form["state"]},
            allow_redirects=False,
        )
        assert response.headers.get("Location") == quiz.get_absolute_url(), response.text[-600:]
        # Signed in on the second server, the student's session is good on the first too.
        page = session.get(first.url + quiz.get_absolute_url(), allow_redirects=False)
        assert page.status_code == 200 and quiz.title in page.text
