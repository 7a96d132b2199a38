"""What a class's arrival costs: the quiz page and Start in a fixed, small number of queries
(issue 34), with the student's own terms still read for each student."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from courseware.models import GroupMembership, StudentGroup
from quizzes.models import Attempt, QuizMode
from quizzes.services import attempts as service
from quizzes.services.instructor import accommodations as terms
from quizzes.services.instructor import grant_extension
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, OfferingFactory, make_quiz

pytestmark = pytest.mark.django_db

# The session, the user, the enrolment (with its offering), the quiz with the student's terms,
# the student's attempts, the quiz's pools: the quiz page read 7 before the terms rode along.
QUIZ_PAGE_QUERIES = 6
# The above but the pools, then the items, and one transaction: the counter, the attempt, its
# variants, the attempt's page stamp (BEGIN and COMMIT counted where the driver logs them).
# Start ran 17 on PostgreSQL before (its own terms query, the open attempt and the highest
# number apart, a read of earlier numbers on a first attempt, the counter in a transaction of
# its own).
START_QUERIES = 12


@pytest.fixture
def exam(course):
    return make_quiz(
        course,
        examples=("decode-step-memory-floor", "bound-by-what"),
        mode=QuizMode.EXAM,
        time_limit_minutes=40,
        max_attempts=2,
    )


def _login(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def _start(client, quiz):
    return client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]))


def test_the_quiz_page_reads_each_students_terms_with_the_quiz(
    client, offering, exam, student, instructor, django_assert_max_num_queries
):
    group = StudentGroup.objects.create(offering=offering, name="Section 2")
    GroupMembership.objects.create(group=group, user=student)
    terms.set_accommodation(offering=offering, by=instructor, group=group, time_multiplier="1.5")
    terms.set_group_extension(quiz=exam, group=group, by=instructor, extra_attempts=1)
    grant_extension(quiz=exam, student=student, by=instructor, extra_minutes=5)
    _login(client, student)
    client.get(exam.get_absolute_url())  # the lookup is compiled on first use
    with django_assert_max_num_queries(QUIZ_PAGE_QUERIES):
        html = client.get(exam.get_absolute_url()).content.decode()
    assert "<strong>65 minutes for you</strong>" in html  # 40 × 1.5 + 5
    assert "1 extra for you" in html  # the group's extra attempt
    # Another student, through the same compiled lookup, gets their own (the quiz's) terms.
    _login(client, EnrollmentFactory(offering=offering).user)
    with django_assert_max_num_queries(QUIZ_PAGE_QUERIES):
        html = client.get(exam.get_absolute_url()).content.decode()
    assert "for you" not in html and "40 minutes, from the moment you start" in html


def test_a_first_start_costs_a_fixed_few_queries_and_keeps_the_students_terms(
    client, offering, exam, student, instructor, django_assert_max_num_queries
):
    terms.set_accommodation(offering=offering, by=instructor, student=student, time_multiplier=2)
    _login(client, student)
    with django_assert_max_num_queries(START_QUERIES):
        reply = _start(client, exam)
    attempt = Attempt.objects.get(student=student)
    assert reply.status_code == 302 and reply["Location"] == attempt.get_absolute_url()
    assert attempt.number == 1 and attempt.variants.count() == 2
    assert abs(attempt.deadline - attempt.started_at - timedelta(minutes=80)) < timedelta(seconds=5)


def test_start_again_continues_the_open_attempt_then_counts_the_limit(client, exam, student):
    _login(client, student)
    _start(client, exam)
    first = Attempt.objects.get(student=student)
    assert _start(client, exam)["Location"] == first.get_absolute_url()  # the open one
    service.submit_attempt(attempt=first, student=student, now=timezone.now())
    _start(client, exam)
    second = Attempt.objects.get(student=student, number=2)
    assert second.status == "in_progress"
    service.submit_attempt(attempt=second, student=student, now=timezone.now())
    refused = client.post(
        reverse("quizzes:start_attempt", args=[OFFERING, exam.slug]), follow=True
    ).content.decode()
    assert "You have used all 2 attempts this quiz allows." in refused
    assert Attempt.objects.filter(student=student).count() == 2


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unpublished_or_another_offerings_quiz_is_not_found(
    client, course, exam, student, method
):
    hidden = make_quiz(course, is_published=False)
    theirs = make_quiz(OfferingFactory(slug="other-section", course=course))
    _login(client, student)
    for quiz in (hidden, theirs):
        url = reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug])
        if method == "post":
            url = reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug])
        assert getattr(client, method)(url).status_code == 404
    assert not Attempt.objects.exists()
