"""What a student's arrival costs the server, step by step, against the floor, side by side.

`python -m bench.arrival --out FILE` (run by `python -m bench --only arrival`, also in an older
checkout, so that a change is measured before and after in the same minutes): one process times,
round after round in a shuffled order, the floor (`bench.urls`: a logged-in view returning two
bytes through the same middleware and session) and the steps a class takes when it arrives at
an exam, as the load test's students take them: the login page, the log-in POST (the password
checked with the site's hasher), the exam's page and the Start POST (the attempt and its 8
variants drawn and stored). Each step is another fresh student's, so every quiz page is a
first look and every Start a first attempt; what is not timed (the CSRF token the page gives,
the session of a student who has not logged in through the form) is done before the clock
starts. Each request's CPU time (`time.process_time`, which the machine's other tenants do not
add to) and wall time are kept; rounds are grouped in blocks, each block also times the floor
alone (ALONE_REQUESTS in a row, before its rounds: interleaving slows the floor and so flatters
a ratio), and each step's ratio to the floor is taken within its block (median over median).
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid

from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.stats import close_block, cpu_summary, json_main, percentile, run_facts

STEPS = ("floor", "login page", "log in", "quiz page", "start attempt")
WARM_UP_ROUNDS = 3
ALONE_REQUESTS = 8
_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class Arrival:
    """Fresh students enrolled in the bench offering, each used for one timed step; one client
    per step (a test client loads the middleware on its first request, which no server does
    per request), its cookies cleared between students."""

    def __init__(self, count: int):
        from django.contrib.auth import get_user_model
        from django.contrib.auth.hashers import make_password

        from bench.djangoside import BENCH_PASSWORD, bench_offering, make_quiz
        from courseware.models import Enrollment, Role

        offering = bench_offering()
        quiz = make_quiz(offering, "bench-arrival-exam", mode="exam")
        self.quiz_url = quiz.get_absolute_url()
        self.password = BENCH_PASSWORD
        user_model = get_user_model()
        hashed = make_password(BENCH_PASSWORD)  # one hash, checked anew at every log in
        tag = uuid.uuid4().hex[:8]
        users = user_model.objects.bulk_create(
            user_model(username=f"bench-arrival-{tag}-{i}", password=hashed)
            for i in range(count * (len(STEPS) - 1) + 1)
        )
        Enrollment.objects.bulk_create(
            Enrollment(user=u, offering=offering, role=Role.STUDENT) for u in users
        )
        self.floor_client = Client()
        self.floor_client.force_login(users.pop())
        self.users = users
        self.clients = {step: Client(enforce_csrf_checks=True) for step in STEPS[1:]}

    def _fresh(self, step: str, *, logged_in: bool) -> tuple[Client, object]:
        client, user = self.clients[step], self.users.pop()
        client.cookies.clear()
        if logged_in:
            client.force_login(user)
        return client, user

    def prepare(self, step: str):
        """What the step sends, made untimed: (client, method, path, form, expected status)."""
        if step == "floor":
            return self.floor_client, "get", "/bench-floor/", None, 200
        if step == "login page":
            client, _ = self._fresh(step, logged_in=False)
            return client, "get", "/accounts/login/", None, 200
        if step == "log in":
            client, user = self._fresh(step, logged_in=False)
            token = _token(client.get("/accounts/login/"))
            form = {"username": user.username, "password": self.password}
            return client, "post", "/accounts/login/", {**form, "csrfmiddlewaretoken": token}, 302
        if step == "quiz page":
            client, _ = self._fresh(step, logged_in=True)
            return client, "get", self.quiz_url, None, 200
        client, _ = self._fresh(step, logged_in=True)
        token = _token(client.get(self.quiz_url))
        return client, "post", self.quiz_url + "start/", {"csrfmiddlewaretoken": token}, 302


def _token(response) -> str:
    return _TOKEN.search(response.content.decode()).group(1)


def _once(arrival: Arrival, step: str) -> tuple[float, float, int]:
    client, method, path, form, expected = arrival.prepare(step)
    with CaptureQueriesContext(connection) as captured:
        cpu, wall = time.process_time(), time.perf_counter()
        response = client.post(path, form) if method == "post" else client.get(path)
        body = response.content
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert response.status_code == expected, (step, response.status_code, body[:300])
    return cpu, wall, len(captured.captured_queries)


def run(args) -> dict:
    settings.ROOT_URLCONF = "bench.urls"
    blocks, rounds = max(4, args.repeat), 6
    arrival = Arrival(blocks * rounds + WARM_UP_ROUNDS)
    order = list(STEPS)
    for _ in range(WARM_UP_ROUNDS):
        for step in order:
            _once(arrival, step)
    cpu = {step: [] for step in STEPS}
    wall = {step: [] for step in STEPS}
    ratios = {step: [] for step in STEPS}
    ratios_alone = {step: [] for step in STEPS}
    alone_cpu: list[float] = []
    queries = {}
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S")
    for _ in range(blocks):
        block = {step: [] for step in STEPS}
        alone = [_once(arrival, "floor")[0] * 1000 for _ in range(ALONE_REQUESTS)]
        alone_cpu += alone
        for _ in range(rounds):
            random.shuffle(order)
            for step in order:
                spent, elapsed, queries[step] = _once(arrival, step)
                block[step].append(spent * 1000)
                wall[step].append(elapsed * 1000)
        close_block(block, STEPS, cpu, ratios, alone=alone, ratios_alone=ratios_alone)
    return {
        **run_facts(connection.vendor, started, load_start, blocks, rounds),
        "floor_alone_cpu_ms": percentile(alone_cpu, 50),
        "steps": cpu_summary(cpu, wall, ratios, queries, STEPS, ratios_alone=ratios_alone),
    }


def main(argv=None) -> int:
    return json_main("python -m bench.arrival", run, repeat=6, argv=argv)


if __name__ == "__main__":
    raise SystemExit(main())
