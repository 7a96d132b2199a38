"""Exam autosaves carry the page's growing sequence: a slow save that reaches the server after a
newer save of the same part never overwrites it, and the submit grades the newest text."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import QuizMode, Response, ResponseStatus, SavedAnswer
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam(client, course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], mode=QuizMode.EXAM)
    client.login(username=student.username, password=PASSWORD)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    url = reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])
    return attempt, variant, url


def _stored(variant) -> SavedAnswer:
    return SavedAnswer.objects.get(variant=variant, part_id="t")


def _post(client, url, answer, sequence=None):
    data = {"answer": answer}
    if sequence is not None:
        data["sequence"] = sequence
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_an_older_save_arriving_after_a_newer_one_leaves_the_newer_and_submit_grades_it(
    client, exam, student
):
    attempt, variant, url = exam
    right = f"{float(correct_answers(variant)['t']):.6g} s"
    newer = _post(client, url, right, sequence=1_800_000_000_200)
    assert "save-status saved" in newer.content.decode()
    stale = _post(client, url, "1000 s", sequence=1_800_000_000_100)  # sent first, arrived late
    assert stale.status_code == 200
    body = stale.content.decode()
    assert "superseded" in body and "refused" not in body  # an acknowledgement, not an error
    assert stale["HX-Reswap"] == "none"  # the status line keeps the newer save's
    assert stale["X-Save-Sequence"] == "1800000000200"  # the page's next save goes above it
    assert (_stored(variant).raw, _stored(variant).sequence) == (right, 1_800_000_000_200)
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    graded = Response.objects.get(variant=variant, part_id="t")
    assert (graded.raw, graded.status) == (right, ResponseStatus.CORRECT)


def test_the_same_sequence_again_is_a_retry_and_changes_nothing(client, exam):
    _, variant, url = exam
    for _ in range(2):
        reply = _post(client, url, "2 s", sequence=5000)
        assert "save-status saved" in reply.content.decode()
    assert (_stored(variant).raw, _stored(variant).sequence) == ("2 s", 5000)
    assert SavedAnswer.objects.filter(variant=variant).count() == 1


def test_a_newer_sequence_replaces_and_an_unsequenced_save_cannot_overwrite_a_sequenced_one(
    client, exam
):
    _, variant, url = exam
    _post(client, url, "1 s")  # a page from before sequences: stored as sequence 0
    _post(client, url, "2 s")  # ... and such saves still replace each other
    assert (_stored(variant).raw, _stored(variant).sequence) == ("2 s", 0)
    _post(client, url, "3 s", sequence=10)
    _post(client, url, "4 s", sequence=11)
    assert _stored(variant).raw == "4 s"
    reply = _post(client, url, "5 s")  # an old page's save after a new page's: older
    assert "superseded" in reply.content.decode()
    assert (_stored(variant).raw, _stored(variant).sequence) == ("4 s", 11)


@pytest.mark.parametrize(
    "sequence", ["-5", "1.5", "abc", "0", "1e9", str(2**53), "9" * 40, " ", "١٢"]
)
def test_a_hostile_sequence_is_refused_and_loses_nothing_stored(client, exam, sequence):
    _, variant, url = exam
    _post(client, url, "2 s", sequence=300)
    reply = _post(client, url, "999 s", sequence=sequence)
    assert reply.status_code == 200
    body = reply.content.decode()
    assert "save-status refused" in body and "reload the page" in body
    assert (_stored(variant).raw, _stored(variant).sequence) == ("2 s", 300)


def test_the_largest_sequence_a_page_can_send_is_taken(client, exam):
    _, variant, url = exam
    reply = _post(client, url, "2 s", sequence=str(2**53 - 1))
    assert "save-status saved" in reply.content.decode()
    assert _stored(variant).sequence == 2**53 - 1
    # A page whose sequence reached it stays there (quiz.js), and such saves are still stored.
    _post(client, url, "3 s", sequence=str(2**53 - 1))
    assert _stored(variant).raw == "3 s"


def test_a_plain_post_told_it_was_superseded_is_informed_not_warned(client, exam):
    _, variant, url = exam
    _post(client, url, "2 s", sequence=50)
    reply = client.post(url, {"answer": "1 s", "sequence": "40"}, follow=True)
    text = reply.content.decode()
    assert "A newer save of this answer is already stored" in text
    assert _stored(variant).raw == "2 s"


def test_the_page_renders_the_next_sequence_above_the_stored_one(client, exam):
    attempt, variant, url = exam
    _post(client, url, "2 s", sequence=777)
    page = client.get(reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk]))
    assert 'name="sequence" value="778" data-save-sequence' in page.content.decode()
