"""The presenters' seams: a Check's fragment is built from the state the service returns, and
the simple derived facts live on the models."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuizMode
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


def _check(client, attempt, variant, part, answer):
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part])
    data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_a_checks_fragment_reuses_the_state_the_submission_computed(client, course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    client.login(username=student.username, password=PASSWORD)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    seconds = float(correct_answers(variant)["t"])
    with CaptureQueriesContext(connection) as queries:
        wrong = _check(client, attempt, variant, "t", f"{seconds * 3:.6g} s")
    assert wrong.status_code == 200 and "feedback incorrect" in wrong.content.decode()
    sql = [q["sql"] for q in queries.captured_queries]
    stored = next(i for i, s in enumerate(sql) if s.startswith("INSERT") and "response" in s)
    # After the response is stored nothing reads the responses or the attempt again.
    after = [s for s in sql[stored + 1 :] if s.startswith("SELECT")]
    assert not [s for s in after if 'FROM "quizzes_response"' in s], after
    assert not [s for s in after if 'FROM "quizzes_attempt"' in s], after
    assert len(queries) <= 20, sql
    with CaptureQueriesContext(connection) as queries:
        right = _check(client, attempt, variant, "t", f"{seconds:.6g} s")
    assert "feedback correct" in right.content.decode()
    assert right["HX-Reswap"] == "outerHTML"  # the part is final: redrawn whole


def test_an_invalid_answer_is_in_the_returned_state_without_a_try(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    kw = {"variant": variant, "part_id": "t", "student": student, "now": timezone.now()}
    checked = service.check_answer(raw="fast", idempotency_key=uuid.uuid4().hex, **kw)
    state = checked.states["t"]
    assert state.last == checked.response and state.tries_used == 0
    assert checked.response.status == "invalid"
    key = uuid.uuid4().hex
    first = service.check_answer(raw="1 s", idempotency_key=key, **kw)
    assert first.states["t"].tries_used == 1
    replay = service.check_answer(raw="1 s", idempotency_key=key, **kw)
    assert replay.response == first.response and replay.states is None


def test_derived_facts_are_model_properties(course):
    homework = make_quiz(course, examples=["decode-step-memory-floor"])
    homework.tries_per_variant = 4
    assert homework.tries_allowed == 4 and not homework.is_exam
    homework.mode = QuizMode.EXAM
    assert homework.tries_allowed == 1 and homework.is_exam
    item = homework.items.select_related("template__current_version").get()
    template = item.template
    assert item.version_for_new_variants == template.current_version
    assert not template.has_unpublished_changes
    template.draft_source += "\n# edited\n"
    assert template.has_unpublished_changes
