"""Issue 13 item 9 and issue 16 exam item 5: correct answers and worked solutions reach a
student only when the quiz's `show_answers` policy allows, on every page and fragment; an
untouched part is not handed out by an empty submission; a part whose tries are spent shows its
answer while the question's other parts are still open.
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from content.physics import format_quantity
from quizzes.models import AnswerRelease, Attempt
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, make_quiz
from tests.quizzes.test_integrity import _secrets

pytestmark = pytest.mark.django_db

KV = "kv-cache-fits"  # parts kv, total (uses kv), gpus (uses total)
SOLUTION = "Worked solution"


def _client(user) -> Client:
    client = Client()
    client.login(username=user.username, password=PASSWORD)
    return client


def _shown(variant, part_id: str) -> str:
    """The text the pages write for a part's correct answer (numeric parts in bytes)."""
    return format_quantity(float(correct_answers(variant)[part_id]), "B", sig=4)


def _absent(body: str, variant, part_ids) -> None:
    secrets = _secrets(variant)
    for part_id in part_ids:
        for secret in secrets[part_id]:
            pattern = r"(?<![\d.])" + re.escape(secret) + r"(?![\d])"
            assert not re.search(pattern, body), (part_id, secret)


class Student:
    """One student working one attempt through the browser's own requests."""

    def __init__(self, quiz, user):
        self.quiz, self.user, self.client = quiz, user, _client(user)
        self.client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]))
        self.attempt = Attempt.objects.filter(quiz=quiz, student=user).latest("number")
        self.variant = self.attempt.variants.get()

    def check(self, part: str, answer: str, *, htmx: bool = True) -> str:
        url = reverse(
            "quizzes:submit_part", args=[OFFERING, self.attempt.pk, self.variant.pk, part]
        )
        data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
        extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        return self.client.post(url, data, follow=not htmx, **extra).content.decode()

    def page(self) -> str:
        return self.client.get(self.attempt.get_absolute_url()).content.decode()

    def submit(self) -> str:
        url = reverse("quizzes:submit_attempt", args=[OFFERING, self.attempt.pk])
        return self.client.post(url, {"confirm": "1"}, follow=True).content.decode()

    def results(self) -> str:
        url = reverse("quizzes:attempt_results", args=[OFFERING, self.attempt.pk])
        return self.client.get(url).content.decode()

    def progress(self) -> str:
        return self.client.get(reverse("quizzes:progress", args=[OFFERING])).content.decode()

    def spend_kv(self) -> tuple[str, str]:
        """Two wrong tries on part kv: it is final, total and gpus are still open."""
        first = self.check("kv", "1 B")
        return first, self.check("kv", "2 B")


def _homework(course, policy, **fields):
    return make_quiz(
        course, examples=[KV], tries_per_variant=2, show_answers=policy, slug=policy, **fields
    )


# -- a part's answer once its tries are spent, others still open ---------------------------------


def test_spent_part_shows_its_answer_while_the_others_stay_secret(course, student):
    work = Student(_homework(course, AnswerRelease.AFTER_FINAL), student)
    first, fragment = work.spend_kv()
    answer = _shown(work.variant, "kv")
    assert answer not in first  # one try left: not yet
    assert f"The correct answer is <strong>{answer}</strong>" in fragment
    page = work.page()
    assert f"The correct answer is <strong>{answer}</strong>" in page
    for body in (fragment, page, work.progress()):
        _absent(body, work.variant, ["total"])
        assert SOLUTION not in body  # the solution holds every part's answer


def test_results_page_says_the_correct_answer_for_each_released_part(course, student):
    quiz = _homework(course, AnswerRelease.AFTER_FINAL, max_attempts=1)
    work = Student(quiz, student)
    work.spend_kv()
    work.check("total", "1 GB")
    work.submit()
    results = work.results()
    assert results.count("The correct answer is") == 3
    assert f"The correct answer is <strong>{_shown(work.variant, 'kv')}</strong>" in results
    assert SOLUTION in results


# -- each policy at each place ---------------------------------------------------------------


@pytest.mark.parametrize(
    "policy",
    [AnswerRelease.AFTER_SUBMISSION, AnswerRelease.AFTER_DUE, AnswerRelease.NEVER],
)
def test_policies_that_wait_show_nothing_while_the_attempt_is_open(course, student, policy):
    work = Student(_homework(course, policy), student)
    _, fragment = work.spend_kv()
    plain = work.check("total", "3 GB", htmx=False)
    for body in (fragment, plain, work.page(), work.progress()):
        assert "The correct answer is" not in body
        assert SOLUTION not in body
        _absent(body, work.variant, ["kv", "total"])


def test_after_submission_shows_tried_parts_on_the_results_page(course, student):
    work = Student(_homework(course, AnswerRelease.AFTER_SUBMISSION), student)
    work.spend_kv()
    work.submit()
    results = work.results()
    assert f"The correct answer is <strong>{_shown(work.variant, 'kv')}</strong>" in results
    # Untouched parts, with another attempt possible: not final by the submission alone.
    assert results.count("The correct answer is") == 1
    assert SOLUTION not in results
    _absent(results, work.variant, ["total"])


def test_after_due_waits_for_the_due_date(course, student):
    now = timezone.now()
    quiz = _homework(
        course,
        AnswerRelease.AFTER_DUE,
        due_at=now + timedelta(hours=1),
        closes_at=now + timedelta(days=2),
        max_attempts=1,
    )
    work = Student(quiz, student)
    work.spend_kv()
    work.submit()
    before = work.results()
    assert "The correct answer is" not in before and SOLUTION not in before
    _absent(before, work.variant, ["kv", "total"])
    type(quiz).objects.filter(pk=quiz.pk).update(due_at=now - timedelta(minutes=1))
    after = work.results()
    assert f"The correct answer is <strong>{_shown(work.variant, 'kv')}</strong>" in after
    assert SOLUTION in after  # one attempt used: every part is final


def test_after_due_without_a_due_date_never_shows(course, student):
    work = Student(_homework(course, AnswerRelease.AFTER_DUE, max_attempts=1), student)
    work.spend_kv()
    work.submit()
    results = work.results()
    assert "The correct answer is" not in results and SOLUTION not in results


def test_never_means_never(course, student):
    now = timezone.now()
    quiz = _homework(course, AnswerRelease.NEVER, max_attempts=1, due_at=now - timedelta(days=1))
    type(quiz).objects.filter(pk=quiz.pk).update(closes_at=now + timedelta(days=1))
    work = Student(quiz, student)
    work.spend_kv()
    work.check("total", "1 GB")
    work.submit()
    for body in (work.results(), work.page(), work.progress()):
        assert "The correct answer is" not in body and SOLUTION not in body
        _absent(body, work.variant, ["kv", "total"])


# -- the empty submission ----------------------------------------------------------------------


def test_an_empty_homework_submission_reveals_nothing(course, student):
    quiz = _homework(course, AnswerRelease.AFTER_FINAL)
    work = Student(quiz, student)
    work.check("kv", "banana")  # unreadable: free, and no try
    work.submit()
    results = work.results()
    assert "No answer was given" in results
    assert "The correct answer is" not in results and SOLUTION not in results
    _absent(results, work.variant, ["kv", "total"])
    # The next attempt's numbers stay secret too, though the first attempt is over.
    again = Student(quiz, student)
    _absent(again.page(), again.variant, ["kv", "total"])


def test_untouched_parts_are_shown_once_no_attempt_is_left(course, student):
    work = Student(_homework(course, AnswerRelease.AFTER_FINAL, max_attempts=1), student)
    work.submit()
    results = work.results()
    assert results.count("The correct answer is") == 3 and SOLUTION in results


# -- exams -------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_attempts", [1, None])
def test_exam_default_shows_answers_after_submission(course, student, max_attempts):
    exam = make_quiz(course, examples=[KV], mode="exam", max_attempts=max_attempts, slug="ex")
    assert exam.show_answers == AnswerRelease.AFTER_FINAL
    work = Student(exam, student)
    kv = correct_answers(work.variant)["kv"]
    save = reverse("quizzes:autosave", args=[OFFERING, work.attempt.pk, work.variant.pk, "kv"])
    work.client.post(save, {"answer": f"{kv!r} B"}, HTTP_HX_REQUEST="true")
    page = work.page()
    assert "The correct answer is" not in page and SOLUTION not in page
    _absent(page, work.variant, ["total"])  # kv's right value is the student's own saved text
    work.submit()
    results = work.results()
    assert f"The correct answer is <strong>{_shown(work.variant, 'kv')}</strong>" in results
    if max_attempts == 1:
        assert results.count("The correct answer is") == 3 and SOLUTION in results
    else:
        # Another attempt is possible: the untouched parts keep their answers.
        assert results.count("The correct answer is") == 1 and SOLUTION not in results
        _absent(results, work.variant, ["total"])


def test_exam_with_results_after_due_hides_answers_too(course, student):
    now = timezone.now()
    exam = make_quiz(
        course,
        examples=[KV],
        mode="exam",
        max_attempts=1,
        release="after_due",
        due_at=now + timedelta(hours=2),
        slug="ex2",
    )
    work = Student(exam, student)
    work.submit()
    results = work.results()
    assert "The correct answer is" not in results and SOLUTION not in results
    _absent(results, work.variant, ["kv", "total"])


# -- where the policy is set -------------------------------------------------------------------


def test_quiz_files_set_the_policy_and_refuse_an_unknown_one():
    from quizzes.engine import TemplateError
    from quizzes.services.bank import read_quiz_text

    text = "slug: q\ntitle: Q\nshow_answers: never\nitems:\n  - template: x\n"
    assert read_quiz_text(text, source="q.yaml").fields["show_answers"] == "never"
    default = read_quiz_text(text.replace("show_answers: never\n", ""), source="q.yaml")
    assert default.fields["show_answers"] == AnswerRelease.AFTER_FINAL
    with pytest.raises(TemplateError, match="q.yaml, line 3, show_answers: must be one of"):
        read_quiz_text(text.replace("never", "sometimes"), source="q.yaml")


def test_the_export_writes_the_policy(course):
    from quizzes.services.authoring import quiz_text

    quiz = make_quiz(course, show_answers=AnswerRelease.AFTER_DUE)
    assert "show_answers: after_due\n" in quiz_text(quiz, list(quiz.items.all()))


@pytest.mark.parametrize("role", ["ta", "author"])
def test_only_the_offerings_instructors_set_the_policy(course, role):
    """A quiz setting: not a teaching assistant's, nor a site author's (who writes the bank)."""
    from tests.factories import EnrollmentFactory, UserFactory, site_role

    quiz = make_quiz(course, show_answers=AnswerRelease.AFTER_FINAL)
    if role == "author":
        user = UserFactory()
        site_role(user, "author")
    else:
        user = EnrollmentFactory(course=course, role=role).user
    staff = Client()
    staff.force_login(user)
    url = reverse("instructor:quiz_show_answers", args=[OFFERING, quiz.slug])
    assert staff.post(url, {"show_answers": "never"}).status_code == 403
    quiz.refresh_from_db()
    assert quiz.show_answers == AnswerRelease.AFTER_FINAL


@pytest.mark.parametrize("role", ["instructor"])
def test_staff_set_the_policy_in_the_studio(course, role):
    from tests.factories import EnrollmentFactory

    quiz = make_quiz(course)
    staff = Client()
    staff.force_login(EnrollmentFactory(course=course, role=role).user)
    url = reverse("instructor:quiz_show_answers", args=[OFFERING, quiz.slug])
    page = staff.get(reverse("instructor:quiz_items", args=[OFFERING, quiz.slug])).content.decode()
    assert 'name="show_answers"' in page and "After the due date" in page
    staff.post(url, {"show_answers": "never"})
    quiz.refresh_from_db()
    assert quiz.show_answers == AnswerRelease.NEVER
    refused = staff.post(url, {"show_answers": "<script>"}, follow=True).content.decode()
    assert "Choose one of the listed moments" in refused
    quiz.refresh_from_db()
    assert quiz.show_answers == AnswerRelease.NEVER


def test_a_student_cannot_set_the_policy(course, student):
    quiz = make_quiz(course, show_answers=AnswerRelease.NEVER)
    url = reverse("instructor:quiz_show_answers", args=[OFFERING, quiz.slug])
    assert _client(student).post(url, {"show_answers": "after_final"}).status_code == 403
    quiz.refresh_from_db()
    assert quiz.show_answers == AnswerRelease.NEVER


# -- small parameter spaces: a revealed answer must not come back for credit -------------------


def _tiny_quiz(course, dtypes: str):
    from quizzes.models import QuestionTemplate
    from quizzes.services import authoring
    from quizzes.services.bank import publish_version
    from tests.factories import QuizFactory, QuizItemFactory

    text = authoring.with_fields(authoring.starter_source("numeric"), slug="tiny")
    text = text.replace("[A100, H100]", "[H100]").replace(
        "[llama-2-7b, llama-2-13b, llama-3-8b]", "[llama-2-7b]"
    )
    text = text.replace("dt: {choice: [fp16, int8]}", f"dt: {{choice: [{dtypes}]}}")
    template = QuestionTemplate.objects.create(
        course=course, slug="tiny", title="Tiny", draft_source=text
    )
    publish_version(template=template, text=text, title="Tiny", origin="studio")
    template.refresh_from_db()
    quiz = QuizFactory(course=course, slug="tiny-quiz", tries_per_variant=1)
    QuizItemFactory(quiz=quiz, template=template, position=1)
    return quiz


def _reveal_and_ask_again(quiz, student):
    work = Student(quiz, student)
    url = reverse("quizzes:submit_part", args=[OFFERING, work.attempt.pk, work.variant.pk, "t"])
    page = work.client.post(
        url, {"answer": "1 s", "idempotency_key": uuid.uuid4().hex}, follow=True
    ).content.decode()
    assert "The correct answer is" in page  # one try, spent: released
    work.client.post(
        reverse("quizzes:new_variant", args=[OFFERING, work.attempt.pk, work.variant.pk])
    )
    return work, work.attempt.variants.get(index=1)


def test_new_numbers_that_must_repeat_a_revealed_set_are_practice(course, student):
    quiz = _tiny_quiz(course, "fp16")  # one variant only
    work, again = _reveal_and_ask_again(quiz, student)
    assert again.parameters == work.variant.parameters
    assert again.is_practice
    seconds = correct_answers(again)["t"]
    url = reverse("quizzes:submit_part", args=[OFFERING, work.attempt.pk, again.pk, "t"])
    work.client.post(url, {"answer": f"{seconds!r} s", "idempotency_key": uuid.uuid4().hex})
    work.submit()
    work.attempt.refresh_from_db()
    assert work.attempt.score == 0  # the revealed answer earned nothing


def test_new_numbers_avoid_a_set_already_given(course, student):
    quiz = _tiny_quiz(course, "fp16, int8, fp32, fp8")
    work, again = _reveal_and_ask_again(quiz, student)
    # Each of six fresh seeds repeats with chance 1/4: a repeat that counts is never handed out.
    assert again.parameters != work.variant.parameters or again.is_practice
    if again.parameters != work.variant.parameters:
        assert not again.is_practice
