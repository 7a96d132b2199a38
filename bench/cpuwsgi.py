"""Where a load run's server CPU goes: the site's WSGI application, counting each request's
thread CPU time (`time.thread_time`: this request's own work, not other threads' nor time spent
waiting for the GIL or the database) and wall time by request kind.

The load harness serves `bench.cpuwsgi:application` in place of `config.wsgi` with
`BENCH_CPU_DIR` set; each gunicorn worker writes its totals there as JSON every second
and at exit (`{kind: [requests, cpu s, wall s]}`); `bench.loadsuite` adds the workers up. The
kinds are the harness's own (`bench.scenarios.KINDS`), matched on the path the way the
simulated students send them. Each worker also writes the same totals by view
(`views-<pid>.json`, keyed "METHOD namespace:url_name"), finer than the kinds: the login page
apart from the login, the quiz page apart from the attempt page (`bench.loadtest` reads them).
"""

from __future__ import annotations

import atexit
import faulthandler
import json
import os
import signal
import threading
import time
from pathlib import Path

from django.urls import Resolver404, resolve

from bench.cpusample import DUMP_EVERY_S
from config.wsgi import application as site

# The URL names the class posts to, by the harness's kinds; a GET of any other page of the
# quizzes app counts as "page", anything else (static files, 404s) as "other".
POSTED = {
    "autosave": "autosave",
    "submit_part": "answer post",
    "submit_attempt": "submit",
    "start_attempt": "start",
}
# `kill -SIGRTMIN+2 <worker>` writes every thread's stack to BENCH_CPU_DIR/stacks-<pid>.txt:
# what a request that does not come back is waiting for.
STACKS_SIGNAL = signal.SIGRTMIN + 2

_lock = threading.Lock()
_totals: dict[str, list[float]] = {}
_views: dict[str, list[float]] = {}


def view_of(method: str, path: str) -> str:
    """ "METHOD namespace:url_name" of a request ("METHOD other" for a path no view answers)."""
    try:
        match = resolve(path)  # the site's own URLconf, not a second copy of its patterns
    except Resolver404:
        return f"{method} other"
    return f"{method} {match.view_name}"


def kind_of(method: str, path: str, view: str | None = None) -> str:
    view = view or view_of(method, path)
    name = view.split(" ", 1)[1]
    if name == "other":
        return "other"
    namespace, _, url_name = name.rpartition(":")
    if url_name == "login":
        return "login"
    if method == "POST" and url_name in POSTED:
        return POSTED[url_name]
    return "page" if method == "GET" and namespace == "quizzes" else "other"


def _dump() -> None:
    folder = os.environ.get("BENCH_CPU_DIR")
    if not folder:
        return
    with _lock:
        snapshot, views = json.dumps(_totals), json.dumps(_views)
    (Path(folder) / f"worker-{os.getpid()}.json").write_text(snapshot)
    (Path(folder) / f"views-{os.getpid()}.json").write_text(views)


def _dump_every_second() -> None:
    while True:
        time.sleep(DUMP_EVERY_S)
        _dump()


def _start_in_this_worker(folder: str) -> None:
    """At import, in each gunicorn worker (the app is not preloaded): the dumping thread, and
    the stacks signal (a process that never imported this module must not be sent it)."""
    threading.Thread(target=_dump_every_second, daemon=True, name="cpu-dump").start()
    stacks = open(Path(folder) / f"stacks-{os.getpid()}.txt", "a")  # noqa: SIM115 (kept open)
    faulthandler.register(STACKS_SIGNAL, file=stacks, all_threads=True)


def application(environ, start_response):
    method, path = environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", "")
    view = view_of(method, path)
    kind = kind_of(method, path, view)
    cpu, wall = time.thread_time(), time.perf_counter()
    try:
        # The body is produced inside the timing: Django's responses are not streamed here.
        return list(site(environ, start_response))
    finally:
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        with _lock:
            for totals, key in ((_totals, kind), (_views, view)):
                entry = totals.setdefault(key, [0, 0.0, 0.0])
                entry[0] += 1
                entry[1] += cpu
                entry[2] += wall


atexit.register(_dump)
if os.environ.get("BENCH_CPU_DIR"):
    _start_in_this_worker(os.environ["BENCH_CPU_DIR"])
