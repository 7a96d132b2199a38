"""A server worker draws what a first attempt page needs before it takes traffic
(`quizzes.warmup.warm_caches`, called from gunicorn's post_worker_init): reading only."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courseware import caching
from quizzes import warmup
from quizzes.presenters import display, slotted
from quizzes.services import attempts as service
from tests.factories import PASSWORD, UserFactory, make_quiz

pytestmark = pytest.mark.django_db


def test_warming_draws_the_latest_questions_and_writes_nothing(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.select_related("version").get()
    caching.clear_all()
    with CaptureQueriesContext(connection) as queries:
        done = warmup.warm_caches()
    assert done == {"templates": 1, "questions": 1}
    writes = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith("SELECT")]
    assert writes == []
    assert any(key.startswith(f"quizzes:question:{variant.pk}:") for key in display._local)
    assert len(slotted._skeleton.cache) > 0


def test_a_new_students_first_view_after_warming_draws_no_question_markdown(
    client, course, student, monkeypatch
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    caching.clear_all()
    warmup.warm_caches()
    other = UserFactory()
    from courseware.models import Enrollment, Role

    Enrollment.objects.create(user=other, offering=quiz.offering, role=Role.STUDENT)
    attempt = service.start_attempt(quiz=quiz, student=other, now=timezone.now())
    drawn = []
    real = slotted.render_markdown_math
    monkeypatch.setattr(slotted, "render_markdown_math", lambda s: drawn.append(s) or real(s))
    client.login(username=other.username, password=PASSWORD)
    page = client.get(attempt.get_absolute_url())
    assert page.status_code == 200
    assert drawn == []  # its prompt and parts came from the template's skeletons


def test_warming_can_be_turned_off(settings):
    settings.WARM_CACHES_ON_START = False
    assert warmup.warm_caches() == {}


def test_a_failure_while_warming_never_stops_the_worker(monkeypatch, db):
    def broken():
        raise RuntimeError("no templates today")

    monkeypatch.setattr(warmup, "_warm_templates", broken)
    assert warmup.warm_caches() == {"templates": 0, "questions": 0}
