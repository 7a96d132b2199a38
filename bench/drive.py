"""Simulated students against a served site, and the fault injections (run inside Django).

Each student is a thread with its own `Browser`: it logs in, opens the exam, starts it, saves an
answer to every part (a mix of right, wrong and unreadable), submits, and, for the first
`homework` students, also answers the bench's homework quiz through the graded part form with
the form's idempotency key (some posts are sent twice, as a double click would).  Arrivals are
spread over `window` seconds; the whole run stops at `deadline` seconds.  Django is set up
only to look up the correct answers of an attempt and to verify the database afterwards.
"""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
from collections import defaultdict

from django.db import close_old_connections

from bench.browser import Browser, forms, half_body_drop
from bench.loadprep import part_answers, quiz_page
from bench.scenarios import Progress
from bench.stats import summarize

ATTEMPT = re.compile(r"/attempts/(\d+)/")
PART = re.compile(r"/attempts/(\d+)/variants/(\d+)/parts/([\w-]+)/")
INVALID = ["about three", "3,35 TB/s", "12 parsecs", "n +* 2", "1e", "fast"]
# A typing student's pause before each autosave (seconds, uniform), as a load tool's think
# time; and the time kept free before the common deadline.
THINK_S = (1.0, 4.0)
# An autosave's reply states that mean the text was stored ("refused" means it was not).
STORED = ("saved", "unreadable")
# A stale save the server did not apply because a newer one is stored (not an error).
SUPERSEDED = "save-status superseded"
DEADLINE_MARGIN_S = 5.0


def next_sequence(fields: dict[str, str]) -> str:
    """The sequence the attempt page sends with an autosave, as its script works it out: the
    clock in ms, never below the form's `sequence` (the stored save's plus one), which then
    moves above it. `fields` is the form's, kept across the part's saves."""
    floor = int(fields.get("sequence") or 1)
    sequence = max(int(time.time() * 1000), floor)
    fields["sequence"] = str(sequence + 1)
    return str(sequence)


class Log:
    """What every simulated student saw; thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.timings: dict[str, list[float]] = defaultdict(list)
        # When each timed request was sent, in seconds since the log was opened (the run's
        # start), in the order of `timings`.
        self.sent_at: dict[str, list[float]] = defaultdict(list)
        self.opened = time.perf_counter()
        self.statuses: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.errors: list[str] = []
        self.slow: list[tuple[str, float]] = []
        self.homework_sent: set[str] = set()
        self.homework_acked: dict[str, str] = {}
        self.homework_attempts: set[int] = set()
        self.exam_attempts: set[int] = set()
        self.exam_submitted: set[int] = set()
        self.exam_saves: dict[int, dict[str, str | None]] = defaultdict(dict)
        self.students_done = 0
        self.first = self.last = None
        self.stopped = False  # set at the run's deadline: no student sends anything more

    def record(self, endpoint: str, reply, error: str | None = None, timeout=False) -> None:
        now = time.perf_counter()
        with self.lock:
            self.first = self.first or now
            self.last = now
            if reply is None:
                self.statuses[endpoint]["timeout" if timeout else "error"] += 1
                self.errors.append(f"{endpoint}: {error}")
                return
            self.timings[endpoint].append(reply.seconds)
            self.sent_at[endpoint].append(now - reply.seconds - self.opened)
            self.statuses[endpoint][str(reply.status)] += 1
            if reply.status >= 500:
                self.errors.append(f"{endpoint}: HTTP {reply.status}")

    def summary(self) -> dict:
        elapsed = (self.last or 0) - (self.first or 0)
        requests = sum(sum(s.values()) for s in self.statuses.values())
        endpoints = {}
        for name, counts in sorted(self.statuses.items()):
            times = self.timings.get(name)
            endpoints[name] = {"counts": dict(counts), **(summarize(times) if times else {})}
        return {
            "requests": requests,
            "seconds": elapsed,
            "throughput_per_s": requests / elapsed if elapsed else 0.0,
            "errors": len(self.errors),
            "error_samples": self.errors[:20],
            "students_done": self.students_done,
            "endpoints": endpoints,
        }

    def for_verify(self) -> dict:
        """A snapshot for the database check, taken under the lock: students cut off at the
        run's deadline may still be finishing a request."""
        with self.lock:
            return {
                "homework_sent": sorted(self.homework_sent),
                "homework_acked": dict(self.homework_acked),
                "homework_attempts": sorted(self.homework_attempts),
                "exam_attempts": sorted(self.exam_attempts),
                "exam_submitted": sorted(self.exam_submitted),
                "exam_saves": {str(k): dict(v) for k, v in self.exam_saves.items()},
            }


class Student:
    def __init__(self, port, username: str, password: str, log: Log, rng: random.Random):
        self.browser = Browser(port) if isinstance(port, int) else port
        self.username, self.password, self.log, self.rng = username, password, log, rng
        self.progress = Progress()  # what the site acknowledged, for the scenario check

    def call(self, endpoint: str, method: str, path: str, fields=None, htmx=False):
        if self.log.stopped:
            return None  # the run is over: a cut-off student sends nothing the check misses
        headers = {"HX-Request": "true"} if htmx else None
        try:
            if method == "GET":
                reply = self.browser.get(path, headers=headers)
            else:
                reply = self.browser.post(path, fields, headers=headers)
        except TimeoutError as error:  # the client gave up waiting: counted apart from errors
            self.browser.close()
            self.log.record(endpoint, None, f"timeout: {error}", timeout=True)
            return None
        except OSError as error:  # includes http.client errors on a dropped connection
            self.browser.close()
            self.log.record(endpoint, None, f"{type(error).__name__}: {error}")
            return None
        except Exception as error:  # noqa: BLE001 - e.g. BadStatusLine from a killed worker
            self.browser.close()
            self.log.record(endpoint, None, f"{type(error).__name__}: {error}")
            return None
        self.log.record(endpoint, reply)
        return reply

    def answers(self, attempt_id: int) -> dict:
        """The attempt's correct answers, by (variant id, part id): looked up in the database
        by this thread, which then gives its connection back (the home-made driver's threads;
        the Locust students read them from the preparation process instead)."""
        found = part_answers(attempt_id)
        close_old_connections()
        return found

    def quiz_address(self, slug: str) -> str:
        return quiz_page(slug)

    def login(self) -> bool:
        page = self.call("login page", "GET", "/accounts/login/")
        if page is None:
            return False
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        fields = {"username": self.username, "password": self.password}
        fields["csrfmiddlewaretoken"] = token.group(1) if token else ""
        reply = self.call("log in", "POST", "/accounts/login/", fields)
        self.progress.logged_in = reply is not None and reply.status == 302
        return self.progress.logged_in

    def start(self, slug: str) -> tuple[int | None, str]:
        page = self.call("quiz page", "GET", self.quiz_address(slug))
        if page is None or page.status != 200:
            return None, ""
        start = next((f for f in forms(page.body) if f.action.endswith("/start/")), None)
        if start is None:
            return None, ""
        reply = self.call("start attempt", "POST", start.action, start.fields)
        found = ATTEMPT.search(reply.location) if reply is not None else None
        if not found:
            return None, ""
        attempt_id = int(found.group(1))
        page = self.call("question page", "GET", reply.location.split("#", 1)[0])
        return attempt_id, page.body if page is not None and page.status == 200 else ""

    def answer_for(self, key, answers) -> str | list[str]:
        kind, correct, unit, options = answers.get(key, ("numeric", None, None, []))
        roll = self.rng.random()
        if kind == "choice":
            if roll < 0.6 and correct:
                return list(correct) if len(correct) > 1 else correct[0]
            return self.rng.choice(options or ["a"])
        if roll < 0.15:
            return self.rng.choice(INVALID)
        right = roll < 0.6
        if kind == "formula":
            return str(correct) if right else f"2*({correct})"
        value = float(correct) if correct is not None else 1.0
        value = value if right else value * self.rng.choice([0.5, 2, 8, 1000])
        return f"{value:.6g}" + (f" {unit}" if unit else "")

    def pause(
        self, saves_left: int, submit_at: float | None, span: tuple[float, float] = THINK_S
    ) -> None:
        """A typing student's pause before the next autosave: drawn from `span` (THINK_S: the
        page saves 0.8 s after the last keystroke, so saves are never closer than that),
        shortened when needed so that every save is made before the common deadline."""
        pause = self.rng.uniform(*span)
        if submit_at is not None:
            room = (submit_at - time.perf_counter() - DEADLINE_MARGIN_S) / max(1, saves_left)
            pause = max(0.0, min(pause, room))
        time.sleep(pause)

    def think(
        self,
        span: tuple[float, float],
        submit_at: float | None,
        typing: tuple[float, float] = THINK_S,
    ) -> bool:
        """A student's pause before starting a part (reading it, working it out): False, with
        no pause, when the part (its typing included) could not be saved before the common
        deadline."""
        pause = self.rng.uniform(*span)
        if submit_at is not None:
            last_save = time.perf_counter() + pause + typing[1]
            if last_save > submit_at - DEADLINE_MARGIN_S:
                return False
        time.sleep(pause)
        return True

    def exam(
        self,
        slug: str,
        *,
        typing: bool = False,
        submit_at: float | None = None,
        think_s: tuple[float, float] | None = None,
        typing_s: tuple[float, float] = THINK_S,
    ) -> None:
        """Start, autosave every part, submit; `typing` saves a text part's prefix first and
        pauses between saves as a student typing does, `submit_at` (a `time.perf_counter()`
        value) waits for the common deadline.

        With `think_s` the student works at a student's pace instead: the parts in an order of
        their own, a pause drawn from `think_s` before each part's first save and from
        `typing_s` before its final one, and no new part started that could not be saved
        before the deadline (the rest stay unanswered)."""
        attempt_id, page = self.start(slug)
        if attempt_id is None or not page:
            return
        self.progress.exam_started = True
        with self.log.lock:
            self.log.exam_attempts.add(attempt_id)
        answers = self.answers(attempt_id)
        part_forms = [
            f for f in forms(page) if PART.search(f.action) and f.action.endswith("/autosave/")
        ]
        saves_left = 2 * len(part_forms)
        if think_s is not None:
            self.rng.shuffle(part_forms)
        for form in part_forms:
            if think_s is not None and not self.think(think_s, submit_at, typing_s):
                break
            found = PART.search(form.action)
            self.progress.exam_parts += 1
            key = (int(found.group(2)), found.group(3))
            raw = self.answer_for(key, answers)
            drafts = [raw]
            if typing and isinstance(raw, str):
                drafts.insert(0, raw[: max(1, len(raw) // 2)])
            for position, draft in enumerate(drafts):
                if think_s is not None:
                    if position:
                        self.pause(1, submit_at, typing_s)
                elif typing:
                    self.pause(saves_left, submit_at)
                    saves_left -= 1
                sequence = next_sequence(form.fields)
                fields = {**form.fields, "answer": draft, "sequence": sequence}
                reply = self.call("autosave", "POST", form.action, fields, True)
                # Stored either way: "saved", or "unreadable" (kept, and scored 0 unless fixed).
                acked = (
                    reply is not None
                    and reply.status == 200
                    and any(f"save-status {state}" in reply.body for state in STORED)
                )
                if reply is not None and reply.status == 200 and SUPERSEDED in reply.body:
                    # A newer save of this part is stored: what is expected of it stands.
                    acked = True
                    continue
                stored = (draft if isinstance(draft, str) else draft[0]) if acked else None
                with self.log.lock:
                    # The newest save sent: its text if acknowledged; else unknown (None), as
                    # it may still arrive, but never an older text (the sequence forbids it).
                    self.log.exam_saves[attempt_id][f"{key[0]}:{key[1]}"] = stored
            self.progress.autosaves_acked += acked  # the final save of the part
            kind = answers.get(key, ("numeric",))[0]
            acked_kinds = self.progress.autosaves_by_kind
            acked_kinds[kind] = acked_kinds.get(kind, 0) + acked
        submit = next((f for f in forms(page) if f.action.endswith("/submit/")), None)
        if submit is None:
            return
        if submit_at is not None:
            time.sleep(max(0.0, submit_at - time.perf_counter()))
            # After a long wait a browser opens a new connection rather than reuse an idle one
            # the server may be closing at that moment.
            self.browser.close()
        # The page's script sets `confirm` once the student accepts its dialog.
        fields = {**submit.fields, "confirm": "1"} if "confirm" in submit.fields else submit.fields
        reply = self.call("submit exam", "POST", submit.action, fields)
        if reply is not None and reply.status == 302 and "/results/" in reply.location:
            self.progress.exam_submitted = True
            with self.log.lock:
                self.log.exam_submitted.add(attempt_id)

    def homework(self, slug: str) -> None:
        attempt_id, page = self.start(slug)
        if attempt_id is None or not page:
            return
        self.progress.homework_opened = True
        with self.log.lock:
            self.log.homework_attempts.add(attempt_id)
        answers = self.answers(attempt_id)
        counted = self.progress
        for form in forms(page):
            found = PART.search(form.action)
            if not found or "idempotency_key" not in form.fields:
                continue
            key = (int(found.group(2)), found.group(3))
            kind = answers.get(key, ("numeric",))[0]
            counted.homework_parts[kind] = counted.homework_parts.get(kind, 0) + 1
            raw = self.answer_for(key, answers)
            fields = {**form.fields, "answer": raw}
            idem = form.fields["idempotency_key"]
            times = 2 if self.rng.random() < 0.1 else 1  # a double click
            for _ in range(times):
                with self.log.lock:
                    self.log.homework_sent.add(idem)
                reply = self.call("submit part", "POST", form.action, fields, True)
                if reply is not None and reply.status == 200 and 'class="feedback ' in reply.body:
                    with self.log.lock:
                        self.log.homework_acked[idem] = raw if isinstance(raw, str) else raw[0]
            if idem in self.log.homework_acked:
                counted.homework_acked[kind] = counted.homework_acked.get(kind, 0) + 1

    def run(self, exam_slug: str, homework_slug: str | None) -> None:
        try:
            if self.login():
                self.exam(exam_slug)
                if homework_slug:
                    self.homework(homework_slug)
        finally:
            self.browser.close()
            close_old_connections()
            with self.log.lock:
                self.log.students_done += 1


def simulate(
    *,
    port: int,
    usernames: list[str],
    password: str,
    exam_slug: str,
    homework_slug: str,
    homework_students: int,
    window: float,
    deadline: float,
    faults=None,
) -> Log:
    log = Log()
    rng = random.Random(f"bench-load-{exam_slug}")
    started = time.perf_counter()
    threads = []
    for i, username in enumerate(usernames):
        student = Student(port, username, password, log, random.Random(f"{exam_slug}-{i}"))
        delay = rng.uniform(0, window)
        homework = homework_slug if i < homework_students else None

        def go(student=student, delay=delay, homework=homework):
            time.sleep(delay)
            if time.perf_counter() - started < deadline:
                student.run(exam_slug, homework)

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        threads.append(thread)
    if faults:
        faults(log, started)
    for thread in threads:
        thread.join(timeout=max(0.1, deadline - (time.perf_counter() - started)))
    log.timed_out = sum(thread.is_alive() for thread in threads)
    return log


# -- faults ---------------------------------------------------------------------------------


def gunicorn_workers(master: int) -> list[int]:
    try:
        with open(f"/proc/{master}/task/{master}/children") as f:
            return [int(pid) for pid in f.read().split()]
    except OSError:
        return []


def fault_plan(*, port: int, master: int, restart_pg, cookies_for):
    """A `faults(log, started)` callback: kill a worker, restart PostgreSQL, drop clients."""
    events: list[dict] = []

    def faults(log: Log, started: float) -> None:
        def at(seconds: float) -> None:
            time.sleep(max(0.0, started + seconds - time.perf_counter()))

        at(8)
        workers = gunicorn_workers(master)
        if workers:
            os.kill(workers[0], signal.SIGKILL)
        events.append({"at_s": 8, "event": f"SIGKILL gunicorn worker {workers[:1]}"})
        at(12)
        for n in range(5):
            try:
                path, cookies = cookies_for(n)
                half_body_drop(port, path, cookies)
                outcome = "sent half a body and closed"
            except OSError as error:
                outcome = f"could not send: {error}"
            events.append({"at_s": 12, "event": f"client drop {n + 1}: {outcome}"})
        at(16)
        began = time.perf_counter()
        restart_pg()
        events.append(
            {"at_s": 16, "event": f"pg_ctl restart ({time.perf_counter() - began:.1f} s)"}
        )
        log.fault_events = events

    return faults


def command(args) -> dict:
    """`djangoside drive`: one load (or fault) run against the site on `args.port`."""
    import json
    import tempfile

    from bench import loadprep
    from bench.djangoside import BENCH_PASSWORD

    usernames = [f"{args.prefix}{i:04d}" for i in range(1, args.students + 1)]
    window = float(os.environ.get("BENCH_WINDOW", "60"))
    deadline = float(os.environ.get("BENCH_DEADLINE", "300"))
    homework = int(os.environ.get("BENCH_HOMEWORK_STUDENTS", "30"))
    faults = None
    if os.environ.get("BENCH_FAULTS") == "1":
        import subprocess

        def restart_pg():
            subprocess.run(os.environ["BENCH_PG_RESTART"], shell=True, check=False)

        helper = Student(args.port, usernames[-1], BENCH_PASSWORD, Log(), random.Random(1))
        helper.login()

        def cookies_for(n):
            return "/accounts/login/", helper.browser.cookies

        faults = fault_plan(
            port=args.port,
            master=int(os.environ["BENCH_GUNICORN_PID"]),
            restart_pg=restart_pg,
            cookies_for=cookies_for,
        )
        usernames = usernames[:-1]
    log = simulate(
        port=args.port,
        usernames=usernames,
        password=BENCH_PASSWORD,
        exam_slug=args.slug,
        homework_slug="bench-homework",
        homework_students=homework,
        window=window,
        deadline=deadline,
        faults=faults,
    )
    result = log.summary()
    result["timed_out_students"] = log.timed_out
    result["fault_events"] = getattr(log, "fault_events", [])
    if faults:
        time.sleep(3)
        result["serves_again"] = _serves_again(args.port, args.prefix)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(log.for_verify(), f)
    args.run = f.name
    close_old_connections()
    result["verify"] = loadprep.verify(args)
    os.unlink(f.name)
    return result


def _serves_again(port: int, prefix: str) -> dict:
    """A student who never took part logs in, answers the homework and is acknowledged."""
    from bench.djangoside import BENCH_PASSWORD

    log = Log()
    student = Student(port, f"{prefix}9999", BENCH_PASSWORD, log, random.Random(2))
    ok = student.login()
    if ok:
        student.homework("bench-homework")
    student.browser.close()
    summary = log.summary()
    return {
        "logged_in": ok,
        "acknowledged_answers": len(log.homework_acked),
        "errors": summary["errors"],
        "ok": ok and bool(log.homework_acked) and not summary["errors"],
    }
