"""One run of a class scenario against one or more served sites (run inside Django).

`djangoside classload`: the run's students (fresh accounts, refused if any already has an
attempt) follow `bench.scenarios`' exam minute or homework evening against the site on every
port in `--ports`, each student's requests alternating between the servers so that a session
made on one is used on the other.  Afterwards the scenario check (each student did each step)
and the database check (`loadprep.verify`: every acknowledged answer stored exactly once,
nothing else) run, and the run is `ok` only if both pass.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import threading
import time
from itertools import count

from django.db import close_old_connections

from bench.browser import Browser
from bench.cpusample import Sampler
from bench.drive import Log, Student
from bench.scenarios import by_kind, by_phase, by_window, exercised, phases_of, scenarios

# After the deadline: the client's own timeout, so a request in flight then has ended.
GRACE_S = 35.0


class NotFresh(RuntimeError):
    """The run's accounts already did something: a scenario check on them would mean nothing."""


class Spread:
    """A browser whose requests alternate between servers, with one set of cookies."""

    def __init__(self, ports: list[int], tally: dict[int, int] | None = None, lock=None):
        self.cookies: dict[str, str] = {}
        self.browsers = [Browser(port, cookies=self.cookies) for port in ports]
        self.turn = count()
        self.tally, self.lock = tally, lock or threading.Lock()

    def _next(self) -> Browser:
        browser = self.browsers[next(self.turn) % len(self.browsers)]
        if self.tally is not None:  # requests per server, to show the load was spread
            with self.lock:
                self.tally[browser.port] = self.tally.get(browser.port, 0) + 1
        return browser

    def get(self, path, headers=None):
        return self._next().get(path, headers=headers)

    def post(self, path, fields, headers=None):
        return self._next().post(path, fields, headers=headers)

    def close(self) -> None:
        for browser in self.browsers:
            browser.close()


def require_fresh(usernames: list[str]) -> None:
    """Refuse accounts that are missing or already have an attempt of any quiz."""
    from django.contrib.auth import get_user_model

    from quizzes.models import Attempt

    users = get_user_model().objects.filter(username__in=usernames)
    if users.count() != len(usernames):
        raise NotFresh(f"{len(usernames) - users.count()} of the run's accounts do not exist")
    used = Attempt.objects.filter(student__in=users).values("student").distinct().count()
    if used:
        raise NotFresh(
            f"{used} of the run's {len(usernames)} accounts already have attempts: "
            "a run needs fresh accounts (a new prefix per run)"
        )


def simulate(*, ports, usernames, password, scenario, slug, seed="bench") -> tuple[Log, dict]:
    """Drive `scenario`; returns the log and each student's acknowledged progress."""
    log = Log()
    rng = random.Random(f"{seed}-{scenario.name}")
    started = time.perf_counter()
    submit_at = started + scenario.submit_at_s if scenario.submit_at_s is not None else None
    students, threads = {}, []
    log.per_server = {port: 0 for port in ports}
    for i, username in enumerate(usernames):
        browser = Spread(ports, log.per_server, log.lock)
        student = Student(browser, username, password, log, random.Random(f"{seed}-{slug}-{i}"))
        students[username] = student
        delay = rng.uniform(0, scenario.window_s)

        def go(student=student, delay=delay):
            time.sleep(delay)
            if time.perf_counter() - started >= scenario.deadline_s:
                return
            try:
                if student.login():
                    if scenario.exam:
                        student.exam(
                            slug,
                            typing=True,
                            submit_at=submit_at,
                            think_s=None if scenario.every_part else scenario.think_s,
                            typing_s=scenario.typing_s,
                        )
                    if scenario.homework:
                        student.homework(slug)
            finally:
                student.browser.close()
                close_old_connections()
                with log.lock:
                    log.students_done += 1

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(timeout=max(0.1, scenario.deadline_s - (time.perf_counter() - started)))
    log.timed_out = sum(thread.is_alive() for thread in threads)
    log.stopped = True
    # Requests in flight at the deadline finish (or time out) before the database is checked.
    grace = time.perf_counter() + GRACE_S
    for thread in threads:
        thread.join(timeout=max(0.1, grace - time.perf_counter()))
    return log, {name: s.progress for name, s in students.items()}


def command(args) -> dict:
    from bench import loadprep
    from bench.djangoside import BENCH_PASSWORD

    scenario = next(s for s in scenarios(quick=args.quick) if s.name == args.scenario)
    usernames = [f"{args.prefix}{i:04d}" for i in range(1, args.students + 1)]
    require_fresh(usernames)
    ports = [int(p) for p in args.ports.split(",")]
    load_average = [round(x, 2) for x in os.getloadavg()]
    pids = [int(p) for p in args.server_pids.split(",") if p]
    sampler = Sampler(servers=pids, client=os.getpid())
    sampler.start()
    log, progress = simulate(
        ports=ports,
        usernames=usernames,
        password=BENCH_PASSWORD,
        scenario=scenario,
        slug=args.slug,
    )
    process_cpu = sampler.stop()  # the class only: the database check below is not counted
    summary = log.summary()
    timeouts = sum(c.get("timeout", 0) for c in log.statuses.values())
    result = {
        "scenario": scenario.name,
        "description": scenario.description,
        "window_s": scenario.window_s,
        "students": len(usernames),
        "servers": len(ports),
        "load_average_start": load_average,
        "requests": summary["requests"],
        "seconds": summary["seconds"],
        "throughput_per_s": summary["throughput_per_s"],
        "errors": summary["errors"] - timeouts,
        "timeouts": timeouts,
        "error_samples": summary["error_samples"],
        "timed_out_students": log.timed_out,
        "requests_per_server": list(log.per_server.values()),
        "kinds": by_kind(log.timings, log.statuses),
        "windows": by_window(log.timings, log.sent_at),
        "phases": by_phase(log.timings, log.sent_at, phases_of(scenario)),
        "endpoints": summary["endpoints"],
        "exercised": exercised(scenario, progress, len(usernames)),
        "process_cpu": process_cpu,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(log.for_verify(), f)
    args.run = f.name
    close_old_connections()
    result["verify"] = loadprep.verify(args)
    os.unlink(f.name)
    result["ok"] = result["exercised"]["ok"] and result["verify"]["ok"]
    return result
