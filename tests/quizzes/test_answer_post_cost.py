"""What one answer post costs the database: a Check reads the part's responses once (under the
variant's lock), an autosave is one upsert; exactly-once holds for a replayed key."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuizMode, Response, SavedAnswer
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


def _reads(queries, table: str) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
    ]


def _one_lookup(queries) -> None:
    """No query of its own for the course, the role, the attempt or the extension (the role
    and the extension ride in the variant's query, as a subquery and a join)."""
    for table in (
        "courseware_course",
        "courseware_enrollment",
        "quizzes_attempt",
        "quizzes_extension",
    ):
        own = [
            q["sql"] for q in queries.captured_queries if q["sql"].startswith(f'SELECT "{table}".')
        ]
        assert not own, own


def _open(client, course, student, mode=QuizMode.HOMEWORK):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=mode)
    client.login(username=student.username, password=PASSWORD)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt, attempt.variants.get()


def test_a_numeric_check_reads_the_responses_once_and_the_variant_once(client, course, student):
    attempt, variant = _open(client, course, student)
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    seconds = float(correct_answers(variant)["t"])
    data = {"answer": f"{seconds * 3:.6g} s", "idempotency_key": uuid.uuid4().hex}
    with CaptureQueriesContext(connection) as queries:
        reply = client.post(url, data, HTTP_HX_REQUEST="true")
    assert "feedback incorrect" in reply.content.decode()
    assert len(_reads(queries, "quizzes_response")) == 1, _reads(queries, "quizzes_response")
    sql = [q["sql"] for q in queries.captured_queries]
    stored = next(i for i, s in enumerate(sql) if s.startswith("INSERT"))
    before = [s for s in sql[:stored] if s.startswith("SELECT") and 'FROM "quizzes_variant"' in s]
    # The view's read of the variant, then the row lock: no third load in the service.
    assert len(before) == 2, before
    _one_lookup(queries)
    # 13: the session, the user, the one lookup, then the service's writes; the conditional
    # update of the attempt row is the open check under the lock a submission holds (a Check
    # racing Submit is refused, not stored on a submitted attempt); the response and the
    # variant's score raise the page stamp and the quiz's statistics once each, from the ORM
    # (quizzes/stamps.py: one UPDATE of the row the open check has locked already).
    assert len(queries) <= 13, [q["sql"] for q in queries.captured_queries]
    # The same form again (a double click): the first response, and still one row.
    with CaptureQueriesContext(connection) as queries:
        again = client.post(url, data, HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert not [q for q in queries.captured_queries if q["sql"].startswith("INSERT")]
    assert Response.objects.filter(idempotency_key=data["idempotency_key"]).count() == 1


def test_an_autosave_is_one_upsert_without_reading_the_saved_row(client, course, student):
    attempt, variant = _open(client, course, student, mode=QuizMode.EXAM)
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    client.post(url, {"answer": "1 s", "sequence": "1"}, HTTP_HX_REQUEST="true")
    with CaptureQueriesContext(connection) as queries:
        reply = client.post(url, {"answer": "2 s", "sequence": "2"}, HTTP_HX_REQUEST="true")
    assert "save-status saved" in reply.content.decode()
    assert not _reads(queries, "quizzes_savedanswer")
    # The sequence is checked inside the one upsert, not by a read before it.
    writes = [q["sql"] for q in queries.captured_queries if "quizzes_savedanswer" in q["sql"]]
    assert len(writes) == 1 and "INSERT INTO" in writes[0], writes
    # One read: the variant with its attempt, quiz, the role and the extension; no read-back.
    assert len(_reads(queries, "quizzes_variant")) == 1
    _one_lookup(queries)
    if connection.vendor == "postgresql":
        # The session, the user, that read, and one statement that touches the open attempt
        # and upserts (no BEGIN and COMMIT around two statements: 3 round trips fewer).
        assert writes[0].startswith("WITH still_open AS (UPDATE"), writes
        assert len(queries) == 4, [q["sql"] for q in queries.captured_queries]
    else:
        # The session, the user, that read, the attempt's update and the upsert.
        assert writes[0].startswith("INSERT"), writes
        assert len(queries) <= 5, [q["sql"] for q in queries.captured_queries]
    assert SavedAnswer.objects.get(variant=variant, part_id="t").raw == "2 s"


@pytest.mark.postgres
def test_on_postgresql_the_autosave_queries_are_planned_once_per_connection(
    client, course, student
):
    """The session, user and variant reads and the save statement are prepared on the
    connection once they repeat (config/settings.py, DJANGO_DB_PREPARED), so PostgreSQL does
    not plan them again for every save."""
    attempt, variant = _open(client, course, student, mode=QuizMode.EXAM)
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    for sequence in range(1, 5):
        data = {"answer": f"{sequence} s", "sequence": str(sequence)}
        reply = client.post(url, data, HTTP_HX_REQUEST="true")
        assert "save-status saved" in reply.content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    for start in ("WITH still_open AS (UPDATE", 'SELECT "quizzes_variant"."id"'):
        assert any(sql.startswith(start) for sql in prepared), (start, prepared)
    assert any('FROM "django_session"' in sql for sql in prepared), prepared
    assert SavedAnswer.objects.get(variant=variant, part_id="t").raw == "4 s"


def test_a_service_caller_with_a_bare_variant_is_still_checked_for_ownership(course, student):
    from tests.factories import UserFactory

    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    stranger = UserFactory()
    with pytest.raises(service.QuizRuleError):
        service.check_answer(
            variant=variant,
            part_id="t",
            raw="1 s",
            student=stranger,
            idempotency_key=uuid.uuid4().hex,
            now=timezone.now(),
        )
    assert not Response.objects.filter(variant=variant).exists()


def _submitted_exam_queries(course, student, examples) -> tuple[int, int]:
    """(queries of the submission, queries of its grading on the worker)."""
    from quizzes.services import grading_run

    quiz = make_quiz(course, examples=examples, mode=QuizMode.EXAM)
    now = timezone.now()
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    for variant in attempt.variants.all():
        answers = correct_answers(variant)
        for part_id in answers:
            service.autosave(variant=variant, part_id=part_id, raw="1", student=student, now=now)
    with CaptureQueriesContext(connection) as submitted:
        assert service.submit_attempt(attempt=attempt, student=student, now=now)
    assert not Response.objects.filter(variant__attempt=attempt).exists()  # queued, not graded
    with CaptureQueriesContext(connection) as graded:
        assert grading_run.grade_submitted(attempt_id=attempt.pk)
    parts = sum(len(correct_answers(v)) for v in attempt.variants.all())
    assert Response.objects.filter(variant__attempt=attempt).count() == parts  # once each
    assert not service.submit_attempt(attempt=attempt, student=student, now=now)
    assert not grading_run.grade_submitted(attempt_id=attempt.pk)
    assert Response.objects.filter(variant__attempt=attempt).count() == parts
    return len(submitted), len(graded)


def test_an_exam_submission_stores_its_grades_in_queries_that_do_not_grow_with_parts(
    course, student, database_tasks
):
    submit_one, grade_one = _submitted_exam_queries(course, student, ["decode-step-memory-floor"])
    submit_three, grade_three = _submitted_exam_queries(
        course, student, ["decode-step-memory-floor", "kv-cache-fits", "kernel-time-roofline"]
    )
    # The submission grades nothing: its queries do not depend on the questions at all.
    assert submit_three == submit_one, (submit_one, submit_three)
    # The worker stores each question's grades in one insert of its own transaction (so the
    # results page shows them as they come: savepoint, insert, the attempt's page stamp raised
    # by the insert, release), never one per part; at most two more for the single update of
    # the variants' scores and the page stamp it raises (once, with the score's).
    assert grade_three <= grade_one + 2 * 4 + 2, (grade_one, grade_three)


def test_an_exam_submission_reads_the_students_extension_once(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=QuizMode.EXAM)
    now = timezone.now()
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    variant = attempt.variants.get()
    service.autosave(variant=variant, part_id="t", raw="1 s", student=student, now=now)
    attempt = type(attempt).objects.select_related("quiz").get(pk=attempt.pk)
    with CaptureQueriesContext(connection) as queries:
        assert service.submit_attempt(attempt=attempt, student=student, now=now)
    # The student's terms (their extension, their groups' extensions and their multiplier) are
    # one read: the quiz row with the extension joined and the rest as subqueries.
    reads = [q["sql"] for q in queries.captured_queries if '"quizzes_extension"' in q["sql"]]
    assert len(reads) == 1, reads
