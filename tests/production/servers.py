"""Two gunicorn servers set up as docs/deploy.md says, sharing one PostgreSQL and one Redis, and
a browser whose consecutive requests land on alternate servers (a load balancer with no
stickiness, each request on a new connection)."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import requests
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    """The test's PostgreSQL database, as another process opens it."""
    settings = connection.settings_dict
    user = settings["USER"] or ""
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    auth = f"{user}{password}@" if user else ""
    host = settings["HOST"] or "localhost"
    return f"postgres://{auth}{host}:{settings['PORT'] or 5432}/{settings['NAME']}"


class Redis:
    """A throwaway `redis-server` on a free loopback port, nothing written to disk."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Server:
    """gunicorn as docs/deploy.md runs it (config/gunicorn.py, threaded workers, DEBUG off)."""

    def __init__(self, name: str, env: dict):
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile("w+", prefix=f"gunicorn-{name}-", suffix=".log")
        self.process = subprocess.Popen(
            [str(GUNICORN), "-c", "config/gunicorn.py", "config.wsgi", "--workers", "1"]
            + ["--worker-class", "gthread", "--threads", "4", "--bind", f"127.0.0.1:{self.port}"]
            + ["--timeout", "30", "--graceful-timeout", "3", "--no-control-socket"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait(self) -> Server:
        """Until the server is ready for traffic, as the systemd unit in docs/deploy.md waits:
        database, cache and a warm grading pool (a 503 until then)."""
        deadline = time.monotonic() + 90
        probe = f"{self.url}/readyz?checks=database,cache,grading_pool"
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(probe, timeout=5) as response:
                    if response.status == 200:
                        return self
            except OSError:  # refused while it boots; HTTPError (503) while the pool warms
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn {self.name} did not start: {self.output()[-3000:]}")

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def server_env(*, database: str, redis: str | None, static_root: Path, **extra: str) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "DJANGO_DEBUG": "0",
        "DJANGO_STATIC_ROOT": str(static_root),
        # Plain HTTP on loopback; everything else (sessions, caches, throttles) as in production.
        "DJANGO_INSECURE_HTTP": "1",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_CONN_MAX_AGE": "60",
        "GRADING_POOL_SIZE": "1",
        **extra,
    }
    env.pop("REDIS_URL", None)
    if redis:
        env["REDIS_URL"] = redis
    return env


class Browser:
    """One student's browser behind a round-robin balancer: request n goes to server n mod 2.

    The cookies are the browser's (both servers answer on 127.0.0.1, as behind one host name);
    every request opens a new connection, and `served` records which server answered each."""

    def __init__(self, servers):
        self.session = requests.Session()
        self.session.headers["Connection"] = "close"
        self._next = itertools.cycle(servers)
        self.served: list[str] = []

    def _server(self, on):
        server = on or next(self._next)
        self.served.append(server.name)
        return server

    def get(self, path: str, *, on=None, **kwargs) -> requests.Response:
        server = self._server(on)
        return self.session.get(server.url + path, allow_redirects=False, timeout=30, **kwargs)

    def post(self, path: str, data: dict, *, on=None, htmx=False, **kwargs) -> requests.Response:
        server = self._server(on)
        headers = {"HX-Request": "true"} if htmx else {}
        data = {"csrfmiddlewaretoken": self.session.cookies.get("csrftoken", ""), **data}
        return self.session.post(
            server.url + path,
            data=data,
            headers=headers,
            allow_redirects=False,
            timeout=30,
            **kwargs,
        )

    def login(self, username: str, password: str) -> requests.Response:
        page = self.get("/accounts/login/")
        assert page.status_code == 200, page.status_code
        return self.post("/accounts/login/", {"username": username, "password": password})


def input_value(html: str, name_fragment: str) -> str | None:
    """The value of the first text input whose id contains `name_fragment`."""
    for tag in re.findall(r"<input[^>]*>", html):
        if name_fragment in tag:
            value = re.search(r'value="([^"]*)"', tag)
            return value.group(1) if value else ""
    return None
