"""What an exam autosave and a homework Check cost the server, against the floor, side by side.

`djangoside postcost` (or `python -m bench.postcost --out FILE`, which also runs in an older
checkout, so that a change is measured before and after in the same minutes): one process
times, round after round in a shuffled order, the floor view (`bench.urls`: Django's own
cost of a logged-in request through the same middleware), an htmx autosave POST of an exam part
and an htmx Check POST of a homework part (a wrong number, taken back untimed after each, so
every Check is a first try), sent urlencoded as htmx sends them, all through the same test
client and session, as `bench.ratios` does for pages. Each request's CPU time
(`time.process_time`, which the machine's other tenants do not add to) and wall time are kept;
rounds are grouped in blocks and each post's ratio to the floor is taken within its block
(median over median). Each run uses a fresh student, so its attempts are new and open.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bench.stats import close_block, cpu_summary, json_main, run_facts

KINDS = ("floor", "autosave", "check")
WARM_UP_ROUNDS = 5


def _numeric_parts(attempt):
    from quizzes.services import questions

    for variant in attempt.variants.select_related("version").order_by("pk"):
        for part in questions.template_for(variant.version).parts:
            if part.kind == "numeric":
                answer = float(questions.correct_answers(variant)[part.id])
                unit = getattr(part.settings, "unit", None) or ""
                yield variant, part, f"{answer * 3:.4g} {unit}".strip()


def _setup():
    from django.contrib.auth import get_user_model

    from bench.djangoside import bench_offering, make_quiz
    from courseware.models import Enrollment, Role
    from quizzes.services import attempts

    offering = bench_offering()
    user = get_user_model().objects.create(username=f"bench-postcost-{uuid.uuid4().hex[:8]}")
    Enrollment.objects.create(user=user, offering=offering, role=Role.STUDENT)
    now = timezone.now()
    exam = attempts.start_attempt(
        quiz=make_quiz(offering, "bench-postcost-exam", mode="exam"), student=user, now=now
    )
    homework = attempts.start_attempt(
        quiz=make_quiz(offering, "bench-postcost-homework", mode="homework", tries=1000),
        student=user,
        now=now,
    )
    client = Client()
    client.force_login(user)
    saves = [
        (reverse("quizzes:autosave", args=[offering.slug, exam.pk, v.pk, p.id]), raw)
        for v, p, raw in _numeric_parts(exam)
    ]
    checks = [
        (reverse("quizzes:submit_part", args=[offering.slug, homework.pk, v.pk, p.id]), raw)
        for v, p, raw in _numeric_parts(homework)
    ]
    return client, saves, checks


class Posts:
    """The next request of each kind: autosaves cycle through the exam's numeric parts with a
    growing sequence; Checks through the homework's, each with a new key (a new try)."""

    def __init__(self, client, saves, checks):
        self.client, self.saves, self.checks, self.count = client, saves, checks, 0

    def send(self, kind: str):
        self.count += 1
        if kind == "floor":
            return self.client.get("/bench-floor/"), b""
        url, raw = (self.saves if kind == "autosave" else self.checks)[self.count % 4]
        if kind == "autosave":
            data = {"answer": f"{raw} ", "sequence": str(self.count)}
            expected = b"save-status saved"
        else:
            self.key = uuid.uuid4().hex
            data = {"answer": raw, "idempotency_key": self.key}
            expected = b"feedback incorrect"
        # As htmx sends a form: urlencoded, not the test client's default multipart.
        body = urlencode(data)
        form = "application/x-www-form-urlencoded"
        return self.client.post(url, body, content_type=form, HTTP_HX_REQUEST="true"), expected

    def undo(self, kind: str) -> None:
        """Take the Check's answer back (untimed), so every Check is a part's first try: a
        part whose tries pile up would make each Check read more rows than a student's do."""
        if kind == "check":
            from quizzes.models import Response

            Response.objects.filter(idempotency_key=self.key).delete()


def _once(posts: Posts, kind: str) -> tuple[float, float, int]:
    with CaptureQueriesContext(connection) as captured:
        cpu, wall = time.process_time(), time.perf_counter()
        response, expected = posts.send(kind)
        body = response.content
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert response.status_code == 200 and expected in body, (kind, response.status_code, body)
    posts.undo(kind)
    return cpu, wall, len(captured.captured_queries)


def run(args) -> dict:
    settings.ROOT_URLCONF = "bench.urls"
    blocks, rounds = max(4, args.repeat), 10
    posts = Posts(*_setup())
    assert len(posts.saves) >= 4 and len(posts.checks) >= 4, (
        "the bench quizzes need 4 numeric parts"
    )
    order = list(KINDS)
    for _ in range(WARM_UP_ROUNDS):
        for kind in order:
            _once(posts, kind)
    cpu = {kind: [] for kind in KINDS}
    wall = {kind: [] for kind in KINDS}
    ratios = {kind: [] for kind in KINDS}
    queries = {}
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S")
    for _ in range(blocks):
        block = {kind: [] for kind in KINDS}
        for _ in range(rounds):
            random.shuffle(order)
            for kind in order:
                spent, elapsed, queries[kind] = _once(posts, kind)
                block[kind].append(spent * 1000)
                wall[kind].append(elapsed * 1000)
        close_block(block, KINDS, cpu, ratios)
    return {
        **run_facts(connection.vendor, started, load_start, blocks, rounds),
        "kinds": cpu_summary(cpu, wall, ratios, queries, KINDS),
    }


def main(argv=None) -> int:
    return json_main("python -m bench.postcost", run, repeat=8, argv=argv)


if __name__ == "__main__":
    raise SystemExit(main())
