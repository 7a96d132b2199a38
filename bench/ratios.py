"""The question page against the floor, measured side by side (run inside Django).

`djangoside ratios`: one process per database times, round after round in a shuffled order,
the minimal view (the floor), an 8-question homework attempt with answers on it, the first view
of a freshly started homework attempt (each time another student's, so its sections have never
been drawn), an exam attempt with saved answers, a chapter page and the gradebook, an exam's
submission (each time another student's attempt with every part saved: a POST), the results
page of a graded exam and of one still being graded, all through the same middleware and
session kind. Rounds are grouped in blocks; each page's ratio to the
floor is taken within its block (median over median), so the shared machine's other tenants,
who come and go, slow both sides of a ratio alike. The result is the median and interquartile
range of those ratios. Each block also times the floor alone (ALONE_REQUESTS in a row, before
its rounds), and each page's ratio to that floor is given too: interleaving slows the floor
and so flatters the interleaved ratio.
"""

from __future__ import annotations

import os
import random
import time
import uuid

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.djangoside import unit_of
from bench.stats import close_block, percentile, run_facts

STUDENT = "bench-ratio-student"
PAGES = (
    "floor",
    "homework attempt",
    "homework attempt, first view",
    "exam attempt",
    "chapter page",
    "gradebook",
    "exam submit",
    "exam results",
    "exam results, being graded",
)
WARM_UP_ROUNDS = 3
# The floor's requests in a row, on their own, at the start of each block.
ALONE_REQUESTS = 8


class FirstViews:
    """One not yet viewed homework attempt per request, each of another student.

    One client serves them all, logged in as the next student before the clock starts: a new
    test client would load the middleware again on its first request, which no server does.
    """

    def __init__(self, quiz, offering, client: Client, count: int):
        from courseware.models import Enrollment, Role

        self.client = client
        self.pending = []
        for number in range(count):
            user, _ = get_user_model().objects.get_or_create(username=f"{STUDENT}-first-{number}")
            Enrollment.objects.get_or_create(
                user=user, offering=offering, defaults={"role": Role.STUDENT}
            )
            self.pending.append((user, _attempt(quiz, user).get_absolute_url()))

    def next(self) -> tuple[Client, str]:
        user, url = self.pending.pop()
        self.client.force_login(user)
        return self.client, url


class Submissions(FirstViews):
    """One open exam attempt with every part saved per request, each of another student,
    submitted by a POST (what the Submit button sends, confirmed)."""

    def __init__(self, quiz, offering, client: Client, count: int):
        super().__init__(quiz, offering, client, count)
        self.pending = [(user, _submit_url(quiz, user)) for user, _ in self.pending]

    def next(self) -> tuple[Client, str]:
        client, url = super().next()
        return client, url, {"confirm": "1"}


def _submit_url(quiz, user) -> str:
    attempt = _attempt(quiz, user)
    if not attempt.variants.filter(saved_answers__isnull=False).exists():
        _answer_some(attempt, user)
    return attempt.get_absolute_url() + "submit/"


def _submitted(quiz, user, *, graded: bool):
    """An exam attempt of `user`, every part saved and submitted: graded, or still waiting
    for the task worker (this process runs none)."""
    from quizzes.services import attempts, grading_run

    attempt = _attempt(quiz, user)
    _answer_some(attempt, user)
    attempts.submit_attempt(attempt=attempt, student=user, now=timezone.now())
    if graded:
        grading_run.grade_submitted(attempt_id=attempt.pk)
    return attempt


def _attempt(quiz, user):
    from quizzes.models import Attempt
    from quizzes.services import attempts

    attempt = Attempt.objects.filter(quiz=quiz, student=user, status="in_progress").first()
    attempt = attempt or attempts.start_attempt(quiz=quiz, student=user, now=timezone.now())
    attempt.quiz = quiz  # with its offering: the attempt's address names it
    return attempt


def _answer_some(attempt, user) -> None:
    """A wrong answer to the first part of every question (homework) or a saved answer to
    every part (exam): the page then shows results, feedback and typed values."""
    from quizzes.services import attempts, questions

    for variant in attempt.variants.select_related("version", "attempt__quiz").order_by("pk"):
        for part in questions.template_for(variant.version).parts:
            answer = questions.correct_answers(variant).get(part.id)
            if part.kind == "choice":
                raw = [str(answer[0] if isinstance(answer, list) else answer)]
            elif part.kind == "formula":
                raw = f"3*({answer})"
            else:
                raw = f"{float(answer) * 2:.4g} {unit_of(part)}".strip()
            try:
                if attempt.quiz.is_exam:
                    attempts.autosave(
                        variant=variant, part_id=part.id, raw=raw, student=user, now=timezone.now()
                    )
                else:
                    attempts.submit_response(
                        variant=variant,
                        part_id=part.id,
                        raw=raw,
                        student=user,
                        idempotency_key=uuid.uuid4().hex,
                        now=timezone.now(),
                    )
                    break
            except attempts.QuizRuleError:
                continue


def _setup(views: int):
    from bench.djangoside import bench_offering, make_quiz
    from courseware.models import Chapter, Enrollment, Role

    offering = bench_offering()
    user, _ = get_user_model().objects.get_or_create(username=STUDENT)
    Enrollment.objects.get_or_create(user=user, offering=offering, defaults={"role": Role.STUDENT})
    homework_quiz = make_quiz(offering, "bench-homework", mode="homework", tries=50)
    homework = _attempt(homework_quiz, user)
    exam = _attempt(make_quiz(offering, "bench-exam-ratios", mode="exam"), user)
    for attempt in (homework, exam):
        if not attempt.variants.filter(responses__isnull=False).exists():
            _answer_some(attempt, user)
    # The exam submissions and results: a quiz of their own, one student per results page.
    # The submission only queues the grading (the database backend, no worker here), so the
    # page "being graded" stays so: its overdue fallback must not grade it mid-run.
    settings.QUIZ_GRADING_INLINE_AFTER_SECONDS = 10**6
    results_quiz = make_quiz(offering, "bench-exam-results", mode="exam")
    graded_user, waiting_user = (
        _student(offering, f"{STUDENT}-results-{kind}") for kind in ("graded", "waiting")
    )
    graded = _submitted(results_quiz, graded_user, graded=True)
    waiting = _submitted(results_quiz, waiting_user, graded=False)
    as_graded, as_waiting = Client(), Client()
    as_graded.force_login(graded_user)
    as_waiting.force_login(waiting_user)
    chapter = Chapter.objects.for_course(offering.course).order_by("part__number", "order").first()
    instructor = get_user_model().objects.get(username="instructor")
    as_student, as_instructor = Client(), Client()
    as_student.force_login(user)
    as_instructor.force_login(instructor)
    return {
        "floor": (as_student, "/bench-floor/"),
        "homework attempt": (as_student, homework.get_absolute_url()),
        "homework attempt, first view": FirstViews(homework_quiz, offering, Client(), views),
        "exam attempt": (as_student, exam.get_absolute_url()),
        "chapter page": (as_student, chapter.get_absolute_url()),
        "gradebook": (as_instructor, f"/o/{offering.slug}/instructor/gradebook/"),
        "exam submit": Submissions(results_quiz, offering, Client(), views),
        "exam results": (as_graded, graded.get_absolute_url() + "results/"),
        "exam results, being graded": (as_waiting, waiting.get_absolute_url() + "results/"),
    }, {"homework_items": homework.variants.count(), "exam_items": exam.variants.count()}


def _student(offering, username: str):
    from courseware.models import Enrollment, Role

    user, _ = get_user_model().objects.get_or_create(username=username)
    Enrollment.objects.get_or_create(user=user, offering=offering, defaults={"role": Role.STUDENT})
    return user


def _once(page) -> tuple[float, int, int]:
    client, url, *form = page.next() if isinstance(page, FirstViews) else page
    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        response = client.post(url, form[0]) if form else client.get(url)
        body = response.content
        elapsed = time.perf_counter() - started
    # A submission answers with the redirect to its results page.
    assert response.status_code == (302 if form else 200), (url, response.status_code)
    return elapsed, len(captured.captured_queries), len(body)


def run(args) -> dict:
    settings.ROOT_URLCONF = "bench.urls"
    blocks = max(4, args.repeat)
    rounds = 8
    pages, facts = _setup(blocks * rounds + WARM_UP_ROUNDS)
    order = list(PAGES)
    for _ in range(WARM_UP_ROUNDS):  # warm-up: parsed templates, URL resolver, render caches
        for name in order:
            _once(pages[name])
    times = {name: [] for name in PAGES}
    ratios = {name: [] for name in PAGES}
    # The floor interleaved with big pages is slower than on its own (the review measured +17 %
    # to +90 %), which flatters every ratio: each block also times the floor alone, in a row,
    # and each page's ratio to that is reported beside the interleaved one.
    alone_times: list[float] = []
    ratios_alone = {name: [] for name in PAGES}
    queries = {}
    load_start = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    for _ in range(blocks):
        block = {name: [] for name in PAGES}
        alone = [_once(pages["floor"])[0] * 1000 for _ in range(ALONE_REQUESTS)]
        alone_times += alone
        for _ in range(rounds):
            random.shuffle(order)
            for name in order:
                elapsed, count, _size = _once(pages[name])
                block[name].append(elapsed * 1000)
                queries[name] = count
        close_block(block, PAGES, times, ratios, alone=alone, ratios_alone=ratios_alone)
    return {
        **run_facts(connection.vendor, started, load_start, blocks, rounds),
        **facts,
        "floor_alone_ms": percentile(alone_times, 50),
        "pages": {
            name: {
                "median_ms": percentile(times[name], 50),
                "ratio": percentile(ratios[name], 50),
                "ratio_p25": percentile(ratios[name], 25),
                "ratio_p75": percentile(ratios[name], 75),
                "ratio_alone": percentile(ratios_alone[name], 50),
                "queries": queries[name],
            }
            for name in PAGES
        },
    }
