"""Grading by staff, from a student's written explanation to the gradebook: the pending state,
the grading page (one part across all answers, names hidden on request, rubric ticks, saved
comments), who may grade, hostile grades, double and concurrent saves, and regrades."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, ManualGrade, ManualGradeEvent, Response, SavedComment
from quizzes.services import manual_grading
from quizzes.services.attempts import autosave, start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import EnrollmentFactory, OfferingFactory, make_quiz

EXAMPLE = "explain-why-decode-is-memory-bound"
HOSTILE = '<script>alert("x")</script><b>bold</b>'


def _answered(quiz, student, text, *, submit=True):
    """An exam attempt of `student` whose explanation part holds `text`, submitted."""
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    autosave(variant=variant, part_id="why", raw=text, student=student, now=timezone.now())
    if submit:
        submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    return attempt


@pytest.fixture
def quiz(offering):
    return make_quiz(offering, examples=(EXAMPLE,), mode="exam", time_limit_minutes=60)


@pytest.fixture
def answers(quiz, offering):
    people = [EnrollmentFactory(offering=offering, role="student").user for _ in range(3)]
    return [_answered(quiz, p, f"Answer {n}: bandwidth.") for n, p in enumerate(people)]


def _page(client, quiz, **query):
    item = quiz.items.get()
    url = reverse("instructor:grade_part", args=[quiz.offering.slug, item.pk, "why"])
    return client.get(url, query)


def _grade(client, quiz, response, *, met=(), comment="", version=0, **extra):
    item = quiz.items.get()
    url = reverse("instructor:grade_answer", args=[quiz.offering.slug, item.pk, "why", response.pk])
    data = {"met": list(met), "comment": comment, "version": version, **extra}
    return client.post(url, data)


def _response(attempt) -> Response:
    return Response.objects.get(variant__attempt=attempt, part_id="why")


def test_a_submitted_explanation_awaits_grading_and_the_score_is_provisional(answers):
    attempt = answers[0]
    assert attempt.awaiting_grading == 1 and attempt.is_provisional
    assert attempt.score == Decimal("0.000")
    assert _response(attempt).status == "pending"


def test_the_gradebook_and_history_say_awaiting_grading(client, instructor, answers, quiz):
    client.force_login(instructor)
    book = client.get(reverse("instructor:gradebook", args=[quiz.offering.slug])).content
    assert b"provisional: 1 awaiting grading" in book
    student = answers[0].student
    url = reverse("instructor:student_detail", args=[quiz.offering.slug, student.pk])
    history = client.get(url).content.decode()
    assert '<span class="badge pending">Awaiting grading</span></td>' in history  # not "0%"
    assert "provisional: 1 awaiting grading" in history


def test_a_ta_grades_with_the_rubric_and_the_score_flows_everywhere(
    client, assistant, answers, quiz
):
    client.force_login(assistant)
    page = _page(client, quiz).content.decode()
    assert "3 of 3 answers awaiting grading" in page.replace("<strong>", "").replace(
        "</strong>", ""
    )
    assert "Every step reads all the weights" in page  # the variant's own rubric
    first = _response(answers[0])
    done = _grade(client, quiz, first, met=["bytes", "bound"], comment="Good: " + HOSTILE)
    assert done.status_code == 302
    assert f"answer={_response(answers[1]).pk}" in done["Location"]  # on to the next waiting
    first.refresh_from_db()
    assert (first.status, round(first.score, 3)) == ("graded", 0.667)
    attempt = Attempt.objects.get(pk=answers[0].pk)
    assert attempt.awaiting_grading == 0 and attempt.score == Decimal("0.667")
    event = ManualGradeEvent.objects.get(response=first)
    assert (event.version, event.earned, event.total, event.graded_by) == (1, 2.0, 3.0, assistant)
    # The student sees the ticks, the points and the comment, escaped.
    client.force_login(attempt.student)
    url = reverse("quizzes:attempt_results", args=[quiz.offering.slug, attempt.pk])
    html = client.get(url).content.decode()
    assert "Graded by staff" in html and "2 of 3 rubric points." in html
    assert "&lt;script&gt;alert" in html and "<script>alert" not in html
    # The CSV carries the score, and nothing awaits any more for this student.
    client.force_login(assistant)
    csv = client.get(reverse("instructor:export_gradebook_csv", args=[quiz.offering.slug]))
    rows = b"".join(csv.streaming_content if csv.streaming else [csv.content]).decode()
    assert "0.667" in rows


def test_names_are_hidden_on_request(client, instructor, answers, quiz):
    client.force_login(instructor)
    student = answers[0].student
    name = student.get_full_name()
    named = _page(client, quiz).content.decode()
    assert f">{name}</h2>" in named
    hidden = _page(client, quiz, anonymous=1).content.decode()
    assert name not in hidden and student.username not in hidden and "Answer 1</h2>" in hidden
    assert "anonymous=1" in hidden  # next/previous keep names hidden


def test_a_saved_comment_is_applied_to_another_answer(client, instructor, answers, quiz):
    client.force_login(instructor)
    first, second = _response(answers[0]), _response(answers[1])
    _grade(client, quiz, first, met=["bytes"], comment="Name the ridge point.", keep_comment="1")
    saved = SavedComment.objects.get()
    assert saved.text == "Name the ridge point."
    assert "Name the ridge point." in _page(client, quiz, answer=second.pk).content.decode()
    _grade(client, quiz, second, met=[], comment="Also: units.", use_comment=[saved.pk])
    assert (
        ManualGrade.objects.get(response=second).comment == "Name the ridge point.\n\nAlso: units."
    )


def test_students_get_403_and_other_offerings_staff_cannot_grade(client, answers, quiz, course):
    first = _response(answers[0])
    client.force_login(answers[0].student)
    assert _page(client, quiz).status_code == 403
    assert _grade(client, quiz, first, met=["bytes", "intensity", "bound"]).status_code == 403
    other = OfferingFactory(course=course, slug="other-term")
    stranger = EnrollmentFactory(offering=other, role="ta").user
    client.force_login(stranger)
    assert _grade(client, quiz, first, met=["bytes"]).status_code == 403
    # Through their own offering's address, the other offering's answer is not found.
    item = quiz.items.get()
    url = reverse("instructor:grade_answer", args=[other.slug, item.pk, "why", first.pk])
    assert client.post(url, {"met": ["bytes"], "version": 0}).status_code == 404
    assert (
        client.get(reverse("instructor:grade_part", args=[other.slug, item.pk, "why"])).status_code
        == 404
    )
    first.refresh_from_db()
    assert first.status == "pending" and not ManualGrade.objects.exists()


def test_a_grade_beyond_the_rubric_is_refused_and_stores_nothing(client, instructor, answers, quiz):
    client.force_login(instructor)
    first = _response(answers[0])
    for met in (["bytes", "extra-points"], ["bytes", "bytes"], ["x" * 5000]):
        done = _grade(client, quiz, first, met=met)
        assert done.status_code == 302
    messages = [str(m) for m in client.get(done["Location"]).context["messages"]]
    assert any("rubric item" in m for m in messages)
    too_long = _grade(client, quiz, first, met=["bytes"], comment="x" * 2001)
    assert too_long.status_code == 302
    assert not ManualGrade.objects.exists()
    first.refresh_from_db()
    assert first.status == "pending" and first.score == 0.0


def test_a_double_submitted_grade_is_stored_once(client, instructor, answers, quiz):
    client.force_login(instructor)
    first = _response(answers[0])
    _grade(client, quiz, first, met=["bytes"], comment="ok")
    again = _grade(client, quiz, first, met=["bytes"], comment="ok")  # the same form again
    assert again.status_code == 302
    assert ManualGradeEvent.objects.filter(response=first).count() == 1
    assert ManualGrade.objects.get(response=first).version == 1


def test_a_grader_working_from_a_stale_page_is_told_and_overwrites_nothing(
    client, instructor, assistant, answers, quiz
):
    first = _response(answers[0])
    client.force_login(assistant)
    _grade(client, quiz, first, met=["bytes"], comment="TA's grade", version=0)
    client.force_login(instructor)
    stale = _grade(client, quiz, first, met=["bytes", "bound", "intensity"], version=0)
    messages = [str(m) for m in client.get(stale["Location"]).context["messages"]]
    assert any("changed this grade while you were grading" in m for m in messages)
    grade = ManualGrade.objects.get(response=first)
    assert (grade.comment, grade.earned, grade.graded_by) == ("TA's grade", 1.0, assistant)
    # From the fresh page (version 1) the change goes through, and both are audited.
    _grade(client, quiz, first, met=["bytes", "bound", "intensity"], version=1)
    assert list(
        ManualGradeEvent.objects.filter(response=first).values_list("version", "earned")
    ) == [(1, 1.0), (2, 3.0)]
    assert Attempt.objects.get(pk=answers[0].pk).score == Decimal("1.000")


def test_the_service_refuses_a_stale_version_inside_its_lock(instructor, answers, offering):
    first = _response(answers[0])
    now = timezone.now()
    manual_grading.grade_response(
        offering=offering,
        response_id=first.pk,
        met=["bytes"],
        comment="",
        version=0,
        grader=instructor,
        now=now,
    )
    with pytest.raises(manual_grading.GradeConflict):
        manual_grading.grade_response(
            offering=offering,
            response_id=first.pk,
            met=["bound"],
            comment="",
            version=0,
            grader=instructor,
            now=now,
        )


def test_a_ten_megabyte_answer_is_refused_before_anything_is_stored(client, quiz, student):
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client.force_login(student)
    url = reverse("quizzes:autosave", args=[quiz.offering.slug, attempt.pk, variant.pk, "why"])
    client.post(url, {"answer": "My first paragraph.", "sequence": 1})
    response = client.post(url, {"answer": "x" * (10 * 1024 * 1024), "sequence": 2})
    assert response.status_code in (302, 400, 413), response.status_code
    assert list(variant.saved_answers.values_list("raw", flat=True)) == ["My first paragraph."]
    # Under the request size limit, the kind's own limit says why.
    response = client.post(url, {"answer": "x" * 10_001, "sequence": 3})
    told = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert any("10,001 characters long; the limit is 10,000" in m for m in told), told
    assert list(variant.saved_answers.values_list("raw", flat=True)) == ["My first paragraph."]


def test_the_grading_page_costs_the_same_few_queries_for_any_class(
    client, instructor, quiz, offering, django_assert_max_num_queries
):
    for _ in range(2):
        _answered(quiz, EnrollmentFactory(offering=offering, role="student").user, "Short.")
    client.force_login(instructor)
    _page(client, quiz)  # warm: the template is parsed once per process
    with django_assert_max_num_queries(10) as few:
        assert _page(client, quiz).status_code == 200
    for _ in range(6):
        _answered(quiz, EnrollmentFactory(offering=offering, role="student").user, "More.")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert _page(client, quiz).status_code == 200
    with django_assert_max_num_queries(8):
        assert (
            client.get(reverse("instructor:grading_index", args=[offering.slug])).status_code == 200
        )


def test_a_regrade_of_the_other_parts_keeps_the_staff_grade(instructor, answers, offering, quiz):
    from quizzes.services.questions import template_for
    from quizzes.services.regrade import regrade_variant

    first = _response(answers[0])
    manual_grading.grade_response(
        offering=offering,
        response_id=first.pk,
        met=["bytes", "bound"],
        comment="",
        version=0,
        grader=instructor,
        now=timezone.now(),
    )
    variant = first.variant
    variant.response_list = list(variant.responses.all())
    done = regrade_variant(variant, template_for(variant.version), recompute=True)
    assert done.updates == [] and done.changes == []
    assert round(done.score, 3) == 0.667


def test_homework_gives_no_new_numbers_for_a_question_graded_by_staff(offering, student):
    from quizzes.services.attempts import new_variant
    from quizzes.services.availability import QuizRuleError
    from tests.factories import check_answer

    quiz = make_quiz(offering, examples=(EXAMPLE,), mode="homework")
    attempt = start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    check_answer(variant, student, "Bandwidth.", part="why")
    with pytest.raises(QuizRuleError, match="graded by staff"):
        new_variant(variant=variant, student=student, now=timezone.now())
    assert attempt.variants.count() == 1
