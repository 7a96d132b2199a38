"""An exam answer is parsed (never graded) when it is saved: the student sees how it was read,
or why it cannot be read, and the page lists empty and unreadable parts before Submit."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Variant
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers, saved_state
from tests.factories import OFFERING, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam_attempt(course, student):
    quiz = make_quiz(
        course,
        examples=["decode-step-memory-floor", "bound-by-what"],
        mode="exam",
        time_limit_minutes=30,
    )
    return service.start_attempt(quiz=quiz, student=student, now=timezone.now())


def test_saved_answers_are_read_back_without_being_graded(exam_attempt):
    decode = Variant.objects.get(attempt=exam_attempt, item__position=1)
    right = correct_answers(decode)["t"]
    assert saved_state(decode, "t", "3.2 ms") == ("saved", "Read as 3.2 ms")
    assert saved_state(decode, "t", "3200 us") == ("saved", "Read as 3.2 ms")
    state, text = saved_state(decode, "t", "26 Gb")
    assert state == "unreadable" and "26 Gb is an amount of data" in text
    assert saved_state(decode, "t", "banana")[0] == "unreadable"
    assert saved_state(decode, "t", "  ") == ("empty", "No answer saved yet.")
    # Nothing in a reading depends on the correct answer: a right and a wrong number read alike.
    wrong = saved_state(decode, "t", f"{right * 7:.6g} s")[1]
    assert wrong.startswith("Read as") and "correct" not in wrong.lower()


def test_a_reading_in_another_unit_names_the_unit_it_was_read_in(course, student):
    quiz = make_quiz(course, examples=["kv-cache-fits"], mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    kv = Variant.objects.get(attempt=attempt)
    assert saved_state(kv, "kv", "26 Gb") == ("saved", "Read as 26 Gbit = 3.25 GB")
    assert saved_state(kv, "kv", "4 GiB") == ("saved", "Read as 4 GiB = 4.29 GB")
    # Only a moved decimal point: the reading alone says it.
    assert saved_state(kv, "kv", "3250 MB") == ("saved", "Read as 3.25 GB")
    assert saved_state(kv, "kv", "3.25 GB") == ("saved", "Read as 3.25 GB")
    # The example of what to write is in the part's dimension (an amount of data here).
    unreadable = ("unreadable", "Cannot be read: Write the number before the unit, as in 2.1 GB.")
    assert saved_state(kv, "kv", "banana") == unreadable


def test_autosave_says_how_it_read_the_answer_and_the_page_lists_what_is_missing(
    client, student, exam_attempt
):
    client.force_login(student)
    decode = Variant.objects.get(attempt=exam_attempt, item__position=1)
    url = reverse("quizzes:autosave", args=[OFFERING, exam_attempt.pk, decode.pk, "t"])
    html = client.post(url, {"answer": "26 Gb"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="save-status unreadable"' in html and "an answer that cannot be read" in html
    page = client.get(exam_attempt.get_absolute_url()).content.decode()
    listed = page[page.index("would score 0 as saved now") :].split("</ul>")[0]
    assert "Question 1</a>: cannot be read" in listed and "Question 2</a>: empty" in listed
    assert "Cannot be read as a time" in page  # the saved status survives a reload
    html = client.post(url, {"answer": "3.2 ms"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="save-status saved"' in html and "Read as 3.2 ms" in html
