"""Server time and SQL queries of real pages, measured in process with Django's test Client.

No test environment is set up (no template instrumentation): requests go through the same
middleware and settings as production, against the migrated database of this process.  A
streamed export is read to its end inside the timer and the query capture.
"""

from __future__ import annotations

import time
import uuid

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.djangoside import unit_of
from bench.stats import summarize

STUDENT = "bench-page-student"


def _timed(client: Client, method: str, url: str, repeat: int, data_for=None, headers=None):
    durations, queries, statuses, sizes = [], [], set(), 0
    for i in range(repeat + 1):
        data = data_for() if data_for else None
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            if method == "get":
                response = client.get(url, headers=headers or {})
            else:
                response = client.post(url, data, headers=headers or {})
            body = b"".join(response.streaming_content) if response.streaming else response.content
            elapsed = time.perf_counter() - started
        if i == 0:
            continue  # the first request warms caches (parsed templates, URL resolver)
        durations.append(elapsed)
        queries.append(len(captured.captured_queries))
        statuses.add(response.status_code)
        sizes = len(body)
    return {
        **summarize(durations),
        "queries": max(queries),
        "queries_min": min(queries),
        "status": sorted(statuses),
        "bytes": sizes,
    }


def _student_attempt(offering):
    from courseware.models import Enrollment, Role
    from quizzes.models import Attempt, Quiz
    from quizzes.services import attempts

    user, _ = get_user_model().objects.get_or_create(username=STUDENT)
    Enrollment.objects.get_or_create(user=user, offering=offering, defaults={"role": Role.STUDENT})
    quiz = Quiz.objects.get(offering=offering, slug="bench-homework")
    attempt = Attempt.objects.filter(quiz=quiz, student=user, status="in_progress").first()
    if attempt is None:
        attempt = attempts.start_attempt(quiz=quiz, student=user, now=timezone.now())
    return user, attempt


def _part(attempt, kind: str):
    """(variant, part id, a wrong answer) for the first part of `kind` in the attempt."""
    from quizzes.services import questions

    for variant in attempt.variants.select_related("version").order_by("pk"):
        template = questions.template_for(variant.version)
        for part in template.parts:
            if part.kind != kind:
                continue
            answer = questions.correct_answers(variant).get(part.id)
            if kind == "numeric":
                return variant, part.id, f"{float(answer) * 2:.4g} {unit_of(part)}".rstrip()
            if kind == "formula":
                return variant, part.id, f"3*({answer})"
    return None


def run(args) -> dict:
    from bench.djangoside import bench_offering
    from quizzes.models import Attempt, Quiz, Response

    settings.ROOT_URLCONF = "bench.urls"
    offering = bench_offering()
    o = f"/o/{offering.slug}"
    repeat = args.repeat
    heavy = max(3, repeat // 3) if args.size >= 10_000 else repeat
    student, attempt = _student_attempt(offering)
    instructor = get_user_model().objects.get(username="instructor")
    as_student, as_instructor = Client(), Client()
    as_student.force_login(student)
    as_instructor.force_login(instructor)
    htmx = {"HX-Request": "true"}
    # `--pages "item index,misconception map"`: only these instructor pages (and the floors).
    wanted = {name.strip() for name in getattr(args, "pages", "").split(",") if name.strip()}
    pages = {
        "floor (minimal view)": _timed(as_student, "get", "/bench-floor/", repeat * 3),
        "floor (base layout)": _timed(as_student, "get", "/bench-floor-page/", repeat * 3),
        "question page": _timed(as_student, "get", f"{o}/attempts/{attempt.pk}/", repeat * 3),
    }
    for kind in ("numeric", "formula"):
        found = _part(attempt, kind)
        if found is None:
            continue
        variant, part_id, wrong = found
        url = f"{o}/attempts/{attempt.pk}/variants/{variant.pk}/parts/{part_id}/"

        def data(wrong=wrong):
            return {"answer": wrong, "idempotency_key": uuid.uuid4().hex}

        pages[f"part submission ({kind})"] = _timed(
            as_student, "post", url, repeat * 2, data_for=data, headers=htmx
        )
    homework = Quiz.objects.get(offering=offering, slug="bench-homework")
    slug = homework.items.order_by("position").first().template.slug
    staff = f"{o}/instructor"
    for name, url in [
        ("gradebook", f"{staff}/gradebook/"),
        ("gradebook sorted by a quiz", f"{staff}/gradebook/?sort={homework.slug}&dir=desc"),
        ("item analysis", f"{staff}/items/{slug}/"),
        ("item index", f"{staff}/items/"),
        ("misconception map", f"{staff}/misconceptions/"),
        ("export gradebook.csv", f"{staff}/export/gradebook.csv"),
        ("export responses.csv", f"{staff}/export/responses.csv"),
        ("export responses.json", f"{staff}/export/responses.json"),
    ]:
        if wanted and name not in wanted:
            continue
        pages[name] = _timed(as_instructor, "get", url, heavy)
    floor = pages["floor (minimal view)"]["median_ms"]
    for entry in pages.values():
        entry["floor_ratio"] = entry["median_ms"] / floor
    students = offering.enrollments.filter(role="student").count()
    return {
        "size": args.size,
        "students": students,
        "attempts": Attempt.objects.filter(quiz__offering=offering).count(),
        "responses": Response.objects.filter(variant__attempt__quiz__offering=offering).count(),
        "vendor": connection.vendor,
        "pages": pages,
    }
