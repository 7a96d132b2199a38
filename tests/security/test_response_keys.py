"""Issue 13, item 1: a form's idempotency key names only its own student's own part.

The attack that worked before: student A posts unreadable answers (free, no try) to A's own
homework with keys `exam-<B's variant>-<part>`; when B submits the exam, B's saved answers
were never graded because the server's `get_or_create` found A's row under that key.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Response, ResponseSource
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import (
    OFFERING,
    PASSWORD,
    EnrollmentFactory,
    ResponseFactory,
    make_quiz,
)


def _client(user) -> Client:
    client = Client()
    client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def quizzes(course):
    homework = make_quiz(course, examples=["decode-step-memory-floor"], slug="hw")
    exam = make_quiz(course, examples=["kv-cache-fits"], slug="exam", mode="exam")
    return homework, exam


@pytest.mark.django_db
def test_a_homework_key_cannot_claim_another_students_exam_grade(course, student, quizzes):
    homework, exam = quizzes
    victim = EnrollmentFactory(course=course).user
    now = timezone.now()
    mine = service.start_attempt(quiz=homework, student=student, now=now)
    theirs = service.start_attempt(quiz=exam, student=victim, now=now)
    target = theirs.variants.get()
    own = mine.variants.get()
    attacker = _client(student)
    url = reverse("quizzes:submit_part", args=[OFFERING, mine.pk, own.pk, "t"])
    for part in ("kv", "total", "fits", "t"):
        key = f"exam-{target.pk}-{part}"
        attacker.post(url, {"answer": "banana", "idempotency_key": key}, HTTP_HX_REQUEST="true")
    # Each unreadable answer was stored, free, on the attacker's own variant.
    assert Response.objects.filter(variant=own, status="invalid").count() == 4
    answers = correct_answers(target)
    kv_bytes = answers["kv"]
    service.autosave(variant=target, part_id="kv", raw=f"{kv_bytes!r} B", student=victim, now=now)
    service.submit_attempt(attempt=theirs, student=victim, now=now)
    graded = Response.objects.get(variant=target, part_id="kv")
    assert graded.status == "correct", graded.feedback
    assert graded.source == ResponseSource.EXAM and graded.idempotency_key == ""
    theirs.refresh_from_db()
    assert theirs.score > 0
    # The attacker's rows are the attacker's own, on the attacker's own variant.
    assert not Response.objects.filter(variant=target, source=ResponseSource.CHECK).exists()


@pytest.mark.django_db
def test_the_same_key_from_another_student_is_a_new_answer_not_theirs(course, student, quizzes):
    homework, _ = quizzes
    other = EnrollmentFactory(course=course).user
    now = timezone.now()
    first = service.start_attempt(quiz=homework, student=student, now=now).variants.get()
    second = service.start_attempt(quiz=homework, student=other, now=now).variants.get()
    key = uuid.uuid4().hex
    kw = {"part_id": "t", "raw": "1 s", "idempotency_key": key, "now": now}
    mine = service.submit_response(variant=first, student=student, **kw)
    theirs = service.submit_response(variant=second, student=other, **kw)
    assert mine.pk != theirs.pk and theirs.variant_id == second.pk
    # Someone else's variant id with my key: refused before anything is read or stored.
    with pytest.raises(service.QuizRuleError):
        service.submit_response(variant=second, student=student, **kw)
    assert Response.objects.count() == 2


@pytest.mark.django_db
def test_a_key_deduplicates_only_its_own_part(course, student, quizzes):
    homework = make_quiz(course, examples=["kv-cache-fits"], slug="hw2", tries_per_variant=3)
    variant = service.start_attempt(quiz=homework, student=student, now=timezone.now())
    variant = variant.variants.get()
    key = uuid.uuid4().hex
    kw = {"variant": variant, "student": student, "idempotency_key": key, "now": timezone.now()}
    first = service.submit_response(part_id="kv", raw="1 GB", **kw)
    again = service.submit_response(part_id="kv", raw="2 GB", **kw)
    other_part = service.submit_response(part_id="total", raw="3 GB", **kw)
    assert again.pk == first.pk and again.raw == "1 GB"  # a double click: the first answer
    assert other_part.pk != first.pk and other_part.part_id == "total"
    assert Response.objects.count() == 2


@pytest.mark.django_db
def test_the_database_refuses_a_second_row_under_one_key_and_a_keyed_exam_grade(course, student):
    response = ResponseFactory(
        variant__attempt__student=student, variant__attempt__quiz__course=course
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        ResponseFactory(
            variant=response.variant,
            part_id="t",
            idempotency_key=response.idempotency_key,
            try_number=2,
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        ResponseFactory(variant=response.variant, source=ResponseSource.EXAM, try_number=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        ResponseFactory(variant=response.variant, idempotency_key="", try_number=None)
    ResponseFactory(variant=response.variant, source="exam", idempotency_key="", try_number=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        ResponseFactory(
            variant=response.variant, source="exam", idempotency_key="", try_number=None
        )


def _concurrent_exam_submits(attempt, student, threads):
    barrier = threading.Barrier(threads)
    done, errors = [], []

    def submit():
        try:
            barrier.wait(timeout=10)
            done.append(
                service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
            )
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=submit) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    return done, errors


@pytest.mark.django_db
def test_a_second_exam_submission_grades_nothing_again(course, student, quizzes):
    _, exam = quizzes
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    variant = attempt.variants.get()
    service.autosave(variant=variant, part_id="kv", raw="1 GB", student=student, now=now)
    assert service.submit_attempt(attempt=attempt, student=student, now=now, auto=True)
    assert not service.submit_attempt(attempt=attempt, student=student, now=now, auto=True)
    assert Response.objects.filter(variant=variant, part_id="kv").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_exam_submissions_grade_each_part_once(course, student, quizzes):
    _, exam = quizzes
    now = timezone.now()
    attempt = service.start_attempt(quiz=exam, student=student, now=now)
    variant = attempt.variants.get()
    service.autosave(variant=variant, part_id="kv", raw="1 GB", student=student, now=now)
    threads = 8
    done, errors = _concurrent_exam_submits(attempt, student, threads)
    assert not [e for e in errors if not isinstance(e, service.QuizRuleError)], errors
    assert done.count(True) == 1
    assert Response.objects.filter(variant=variant, part_id="kv").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_rows_that_would_collide_and_frees_the_victims_namespace():
    """Data as the old schema held it: an exam grade under its server key and a Check that
    claimed another variant's exam key. After migrating, both stay and neither collides."""
    executor = MigrationExecutor(connection)
    old = [("quizzes", "0001_initial")]
    executor.migrate(old)
    apps = executor.loader.project_state(old).apps
    try:
        ids = _old_rows(apps)
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    rows = {r.pk: r for r in Response.objects.all()}
    exam, claim = rows[ids["exam"]], rows[ids["claim"]]
    assert (exam.source, exam.idempotency_key) == ("exam", "")
    assert (claim.source, claim.idempotency_key) == ("check", f"exam-{ids['victim']}-kv")
    assert claim.variant_id == ids["attacker"]
    # The victim's part can now get its exam grade though a Check holds the old key.
    Response.objects.create(
        variant_id=ids["victim"],
        part_id="kv",
        raw="1 B",
        status="incorrect",
        score=0,
        source="exam",
        try_number=1,
    )


def _old_rows(apps) -> dict:
    User = apps.get_model("auth", "User")
    Course = apps.get_model("courseware", "Course")
    Quiz = apps.get_model("quizzes", "Quiz")
    Template = apps.get_model("quizzes", "QuestionTemplate")
    Version = apps.get_model("quizzes", "TemplateVersion")
    QuizItem = apps.get_model("quizzes", "QuizItem")
    Attempt = apps.get_model("quizzes", "Attempt")
    Variant = apps.get_model("quizzes", "Variant")
    Response = apps.get_model("quizzes", "Response")
    course = Course.objects.create(slug="m", title="M")
    template = Template.objects.create(course=course, slug="t", title="T", draft_source="x")
    version = Version.objects.create(template=template, number=1, source="x", title="T")
    variants = {}
    for mode in ("homework", "exam"):
        quiz = Quiz.objects.create(course=course, slug=mode, title=mode, mode=mode)
        item = QuizItem.objects.create(quiz=quiz, template=template, position=1)
        user = User.objects.create(username=f"u-{mode}")
        attempt = Attempt.objects.create(quiz=quiz, student=user, number=1)
        variants[mode] = Variant.objects.create(
            attempt=attempt, item=item, version=version, seed="s", parameters={}, answers={}
        )
    victim, attacker = variants["exam"], variants["homework"]
    row = {"raw": "x", "status": "invalid", "score": 0}
    exam = Response.objects.create(
        variant=victim, part_id="total", idempotency_key=f"exam-{victim.pk}-total", **row
    )
    claim = Response.objects.create(
        variant=attacker, part_id="t", idempotency_key=f"exam-{victim.pk}-kv", **row
    )
    return {"exam": exam.pk, "claim": claim.pk, "victim": victim.pk, "attacker": attacker.pk}
