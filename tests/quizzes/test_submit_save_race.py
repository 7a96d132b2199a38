"""A save racing the Submit click (the click fires its field's last autosave): whatever the
interleaving, the text graded is the text stored, and a save the submission did not see is
refused, never acknowledged as "Saved". (The grading itself runs after the submission, on the
task worker, from the frozen answers: tests/quizzes/test_graded_on_worker.py.)"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import AttemptStatus, QuizMode, Response, SavedAnswer
from quizzes.services import attempts as service
from quizzes.services import submission
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=QuizMode.EXAM)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    right = f"{float(correct_answers(variant)['t']):.6g} s"
    return attempt, variant, right


def _save(variant, student, text, sequence):
    return service.autosave(
        variant=variant,
        part_id="t",
        raw=text,
        student=student,
        now=timezone.now(),
        sequence=sequence,
    )


def test_a_save_that_passed_its_open_check_before_the_submission_is_refused(
    exam, student, monkeypatch
):
    attempt, variant, right = exam
    _save(variant, student, "1000 s", 1)
    check_first = service.check_open

    def checked_then_the_submission_commits(attempt_, window, now):
        check_first(attempt_, window, now)  # the save's check passes: the attempt is open ...
        submission.submit_attempt(attempt=attempt, student=student, now=now)  # ... then Submit

    monkeypatch.setattr(service, "check_open", checked_then_the_submission_commits)
    with pytest.raises(service.QuizRuleError, match="not saved"):
        _save(variant, student, right, 2)
    attempt.refresh_from_db()
    assert attempt.status == AttemptStatus.SUBMITTED
    # Nothing was stored after the submission: the saved text is the graded one.
    graded = Response.objects.get(variant=variant, part_id="t")
    assert SavedAnswer.objects.get(variant=variant, part_id="t").raw == graded.raw == "1000 s"


def test_the_page_says_not_saved_for_a_save_after_the_submission(client, exam, student):
    attempt, variant, right = exam
    client.login(username=student.username, password=PASSWORD)
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    reply = client.post(url, {"answer": right, "sequence": "3"}, HTTP_HX_REQUEST="true")
    body = reply.content.decode()
    assert "save-status refused" in body and "Saved at" not in body
    assert not SavedAnswer.objects.filter(variant=variant).exists()


def _race(quiz, student):
    """Four saves and the Submit, released at once; what each thread saw."""
    import threading

    from django.db import connection

    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    barrier = threading.Barrier(5)
    acknowledged, errors = {}, []

    def save(number):
        try:
            barrier.wait(timeout=10)
            saved = _save(variant, student, f"{number} s", number)
            if not saved.superseded:
                acknowledged[number] = saved.raw
        except service.QuizRuleError:
            pass  # refused: the page says "not saved"
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    def submit():
        try:
            barrier.wait(timeout=10)
            submission.submit_attempt(attempt=attempt, student=student, now=timezone.now())
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=save, args=(n,)) for n in (1, 2, 3, 4)]
    workers.append(threading.Thread(target=submit))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    return attempt, variant, acknowledged, errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_saves_racing_a_submission_in_threads_never_leave_an_acknowledged_save_ungraded(
    course, student
):
    """Real threads against PostgreSQL's row lock (SQLite's in-memory test database refuses a
    second writer outright instead of making it wait, so the interleavings above stand in)."""
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=QuizMode.EXAM)
    for _ in range(3):
        attempt, variant, acknowledged, errors = _race(quiz, student)
        assert not errors, errors
        attempt.refresh_from_db()
        assert attempt.status == AttemptStatus.SUBMITTED
        stored = SavedAnswer.objects.filter(variant=variant, part_id="t").first()
        graded = Response.objects.filter(variant=variant, part_id="t").first()
        if acknowledged:
            # The newest save the student was told is saved is what was stored and graded.
            newest = acknowledged[max(acknowledged)]
            assert stored is not None and stored.raw == newest
            assert graded is not None and graded.raw == newest
        else:
            assert graded is None
        attempt.delete()


def test_a_homework_check_racing_submit_is_refused_not_stored_on_a_submitted_attempt(
    course, student
):
    """The view read the attempt before another tab's Submit committed; the Check arrives
    after: it is refused, nothing is stored, and no variant score moves past the total."""
    import uuid

    from quizzes.models import Attempt, Variant

    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    stale = Variant.objects.select_related("attempt__quiz", "item", "version").get(
        attempt=attempt
    )  # what the Check's request holds
    right = f"{float(correct_answers(stale)['t']):.6g} s"
    service.submit_attempt(
        attempt=Attempt.objects.get(pk=attempt.pk), student=student, now=timezone.now()
    )
    with pytest.raises(service.QuizRuleError, match="submitted"):
        service.check_answer(
            variant=stale,
            part_id="t",
            raw=right,
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=timezone.now(),
        )
    assert not Response.objects.filter(variant=stale).exists()
    stale.refresh_from_db()
    attempt.refresh_from_db()
    assert stale.score == attempt.score == 0
