"""The load harness against a served site: fresh accounts per run, and a run that skipped fails.

Small and fast (two students, a homework quiz of one numeric and one formula question, the
test live server), so CI runs it on SQLite and PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace

import pytest
from django.utils import timezone

from bench import classload, cpusample, loadprep, loadsuite
from bench.scenarios import HOMEWORK_EVENING, exercised, scenarios
from tests.factories import PASSWORD, EnrollmentFactory, QuizFactory, QuizItemFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOMEWORK = replace(
    next(s for s in scenarios(quick=True) if s.name == HOMEWORK_EVENING),
    window_s=0.2,
    deadline_s=120.0,
)


def test_each_run_gets_its_own_accounts_and_quiz():
    first, second = loadsuite.run_names(HOMEWORK), loadsuite.run_names(HOMEWORK)
    assert first[0] != second[0] and first[1] != second[1]
    assert first[0].startswith("hw-") and first[1].startswith("bench-homework-")


def test_new_accounts_are_fresh_and_reused_ones_are_refused(course):
    args = argparse.Namespace(students=2, prefix="run1-")
    names = loadprep.accounts(args)["usernames"][:2]
    classload.require_fresh(names)  # nothing done yet: accepted
    quiz = QuizFactory(course=course, mode="homework")
    QuizItemFactory(quiz=quiz)
    from django.contrib.auth import get_user_model

    from quizzes.services.attempts import start_attempt

    user = get_user_model().objects.get(username=names[1])
    start_attempt(quiz=quiz, student=user, now=timezone.now())
    with pytest.raises(classload.NotFresh, match="1 of the run's 2 accounts already have"):
        classload.require_fresh(names)
    with pytest.raises(classload.NotFresh, match="do not exist"):
        classload.require_fresh(["run9-0001"])


@pytest.fixture
def homework(course):
    # The harness speaks plain HTTP on loopback, as the browser tests do (make test sets
    # DJANGO_INSECURE_HTTP=1 before the live server starts).
    quiz = QuizFactory(course=course, mode="homework", tries_per_variant=5)
    QuizItemFactory(quiz=quiz, template__example="decode-step-memory-floor")
    QuizItemFactory(quiz=quiz, template__example="kv-cache-bytes-formula")
    return quiz


def drive(live_server, quiz, names):
    """One student at a time: the test database (in-memory SQLite) takes one writer at once."""
    port = int(live_server.url.rsplit(":", 1)[1])
    logs, progress = [], {}
    for name in names:
        log, done = classload.simulate(
            ports=[port], usernames=[name], password=PASSWORD, scenario=HOMEWORK, slug=quiz.slug
        )
        logs.append(log)
        progress.update(done)
    return logs, exercised(HOMEWORK, progress, len(names))


def test_a_homework_run_stores_each_answer_once_and_passes(live_server, homework, course, tmp_path):
    students = [EnrollmentFactory(course=course).user for _ in range(2)]
    logs, check = drive(live_server, homework, [s.username for s in students])
    assert check["ok"], (check["problems"], [log.errors for log in logs])
    assert check["homework_acked"]["numeric"] >= 2 and check["homework_acked"]["formula"] >= 2
    for log in logs:
        record = tmp_path / "run.json"
        record.write_text(json.dumps(log.for_verify()))
        verified = loadprep.verify(argparse.Namespace(run=str(record)))
        assert verified["ok"], verified["problems"]
        assert verified["homework_rows"] == verified["homework_acked"] == len(log.homework_acked)
        assert verified["homework_acked"] >= 2


def test_a_student_with_an_open_attempt_makes_the_run_fail(live_server, homework, course):
    from quizzes.services.attempts import start_attempt

    fresh, used = (EnrollmentFactory(course=course).user for _ in range(2))
    start_attempt(quiz=homework, student=used, now=timezone.now())  # no Start form for them
    _, check = drive(live_server, homework, [fresh.username, used.username])
    assert not check["ok"]
    assert "1 of 2 students did not open the homework" in check["problems"]


# -- where the CPU goes (bench.cpuwsgi, bench.cpusample) --------------------------------------


@pytest.mark.parametrize(
    ("method", "name", "args", "kind"),
    [
        ("POST", "quizzes:autosave", ["s1", 3, 4, "bytes"], "autosave"),
        ("POST", "quizzes:submit_part", ["s1", 3, 4, "bytes"], "answer post"),
        ("POST", "quizzes:submit_attempt", ["s1", 3], "submit"),
        ("POST", "quizzes:start_attempt", ["s1", "ch1-exam"], "start"),
        ("GET", "quizzes:attempt_detail", ["s1", 3], "page"),
        ("GET", "quizzes:quiz_detail", ["s1", "ch1-exam"], "page"),
        ("POST", "login", [], "login"),
        ("GET", "login", [], "login"),
    ],
)
def test_each_request_the_class_sends_is_counted_under_its_kind(method, name, args, kind):
    from django.urls import reverse

    from bench import cpuwsgi

    assert cpuwsgi.kind_of(method, reverse(name, args=args)) == kind
    assert cpuwsgi.kind_of("GET", "/static/quiz.js") == "other"


def test_the_wrapped_site_counts_each_request_and_the_suite_adds_the_workers_up(
    tmp_path, monkeypatch
):
    from bench import cpuwsgi

    def busy_site(environ, start_response):
        start_response("200 OK", [])
        sum(i * i for i in range(200_000))  # some CPU of this request's own
        return [b"ok"]

    monkeypatch.setenv("BENCH_CPU_DIR", str(tmp_path))
    monkeypatch.setattr(cpuwsgi, "site", busy_site)
    monkeypatch.setattr(cpuwsgi, "_totals", {})
    path = "/o/s1/attempts/3/variants/4/parts/bytes/autosave/"
    for _ in range(3):
        body = cpuwsgi.application({"REQUEST_METHOD": "POST", "PATH_INFO": path}, lambda *a: None)
        assert body == [b"ok"]
    cpuwsgi._dump()
    (tmp_path / "worker-1.json").write_text('{"autosave": [2, 0.5, 1.0], "page": [1, 0.1, 0.2]}')
    totals = cpusample.worker_totals(tmp_path)
    assert totals["autosave"]["n"] == 5
    assert totals["autosave"]["cpu_s"] > 0.5  # the workers' seconds added, ours included
    assert totals["page"] == {"n": 1, "cpu_s": 0.1, "cpu_ms": 100.0, "wall_ms": 200.0}


def test_the_sampler_puts_a_server_childs_cpu_under_gunicorn():
    import subprocess
    import sys

    from bench.cpusample import Sampler

    sampler = Sampler(servers=[os.getpid()], interval=0.1)  # this process plays the server
    sampler.start()
    burn = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    totals = sampler.stop()
    assert totals["cpu_s"].get("gunicorn", 0) >= 0.3, totals


def test_each_run_records_the_commit_it_measured():
    code = loadsuite.code_version()
    assert len(code["commit"]) == 10 and code["commit"] != "unknown"
    assert isinstance(code["changed"], bool) and code["measured"].endswith("UTC")
