"""Attack review of the attempt pages' one lookup (`quizzes/views/targets.own_attempt`, and
`student_part_view` for the part URLs): whose attempt a URL reaches. Another student's attempt,
another offering's, an id no column holds, a student who left, staff and a superuser, an LMS's
student. The review: /work/reviews/attack-own-attempt.md; the terms these pages read are
attacked in test_attack_attempt_terms.py, the compiled queries in
test_attack_prepared_lookups.py.
"""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courseware import roster
from courseware.models import Enrollment, Role
from quizzes.models import Attempt
from quizzes.services import attempts as service
from tests.factories import EnrollmentFactory, OfferingFactory, UserFactory, make_quiz
from tests.security.attempt_world import HUGE, as_user, attempt_urls, send, stored, warm

pytestmark = pytest.mark.django_db


# -- ids past any stored number --------------------------------------------------------------


@pytest.mark.parametrize("huge", HUGE)
def test_an_id_past_64_bits_is_not_found_on_every_attempt_url(course, student, huge):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = as_user(student)
    data = {"answer": "2 s", "idempotency_key": uuid.uuid4().hex}
    urls = [
        *attempt_urls(huge, variant.pk),
        *attempt_urls(attempt.pk, huge)[3:],  # the part URLs: the attempt is real, the variant not
        *attempt_urls(huge, huge)[3:],
    ]
    for method, url in urls:
        response = getattr(client, method)(url, data if method == "post" else None)
        assert response.status_code == 404, (url, response.status_code)
    assert client.get(attempt.get_absolute_url()).status_code == 200  # the real one still is


# -- whose attempt: another student's, another offering's, a student who left -----------------


@pytest.fixture
def two_offerings(course, student):
    """The student in the default offering and in a second one, with an attempt in each, and
    another student's attempt in the default offering."""
    other_offering = OfferingFactory(course=course, slug="term-b")
    EnrollmentFactory(user=student, offering=other_offering)
    now = timezone.now()
    mine = service.start_attempt(quiz=make_quiz(course), student=student, now=now)
    there = service.start_attempt(
        quiz=make_quiz(other_offering, slug="b-quiz"), student=student, now=now
    )
    victim = EnrollmentFactory(course=course).user
    theirs = service.start_attempt(quiz=mine.quiz, student=victim, now=now)
    return mine, there, theirs


TOKENS = re.compile(
    r'(?<=name="csrfmiddlewaretoken" value=")[A-Za-z0-9]+|(?<="X-CSRFToken": ")[A-Za-z0-9]+'
)


def _answer(client, method, url, ids) -> tuple[int, str, int]:
    """Status, body with the ids in it blanked, and the number of queries."""
    with CaptureQueriesContext(connection) as queries:
        response = send(client, method, url)
    body = TOKENS.sub("TOKEN", response.content.decode())
    for number in sorted(ids, key=lambda n: -len(str(n))):
        body = body.replace(str(number), "ID")
    return response.status_code, body, len(queries)


def test_another_students_attempt_answers_exactly_as_a_missing_one(two_offerings, student):
    """Same status, same page, same number of queries: nothing tells "someone else's" from
    "no such attempt", nor from "yours, but of another offering" named under this one."""
    mine, there, theirs = two_offerings
    missing = Attempt.objects.order_by("-pk").first().pk + 1000
    client = as_user(student)
    before = stored()
    probes = {
        "theirs": (theirs.pk, theirs.variants.get().pk),
        "missing": (missing, missing),
        "another offering's": (there.pk, there.variants.get().pk),
    }
    ids = [n for pair in probes.values() for n in pair]
    for index in range(7):
        answers = {}
        for name, (attempt_id, variant_id) in probes.items():
            method, url = attempt_urls(attempt_id, variant_id)[index]
            answers[name] = _answer(client, method, url, ids)
        assert answers["theirs"][0] == 404, (index, answers["theirs"][0])
        assert answers["theirs"] == answers["missing"] == answers["another offering's"], index
    assert stored() == before
    # Named under its own offering, the other offering's attempt is the student's own.
    assert client.get(attempt_urls(there.pk, 0, offering="term-b")[0][1]).status_code == 200


def test_the_variant_of_one_attempt_under_another_attempt_is_not_found(two_offerings, student):
    mine, there, theirs = two_offerings
    client = as_user(student)
    before = stored()
    pairs = [
        (mine.pk, theirs.variants.get().pk),  # my attempt, their variant
        (theirs.pk, mine.variants.get().pk),  # their attempt, my variant
        (mine.pk, there.variants.get().pk),  # my attempt, my variant of the other offering
    ]
    for attempt_id, variant_id in pairs:
        for method, url in attempt_urls(attempt_id, variant_id)[3:]:
            assert send(client, method, url).status_code == 404, url
    assert stored() == before


@pytest.mark.parametrize("htmx", [False, True])
def test_a_student_who_left_reaches_no_url_of_their_attempt_even_with_its_page_kept(
    course, student, instructor, htmx
):
    """Deactivated (as the roster does it): their warm page is not served from the memo, no
    save or Check lands; reactivated, they are back."""
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = as_user(student)
    warm(client, attempt)
    enrollment = Enrollment.objects.get(user=student, offering=quiz.offering)
    roster.set_active(enrollment=enrollment, active=False, by=instructor)
    before = stored()
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for method, url in attempt_urls(attempt.pk, variant.pk):
        data = {"answer": "2 s", "idempotency_key": uuid.uuid4().hex, "sequence": "9"}
        response = getattr(client, method)(url, data if method == "post" else None, **extra)
        assert response.status_code == 403, (url, response.status_code)
    assert stored() == before
    roster.set_active(enrollment=enrollment, active=True, by=instructor)
    assert client.get(attempt.get_absolute_url()).status_code == 200


def test_a_student_made_a_teaching_assistant_opens_their_old_attempt_no_more(
    course, student, instructor
):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = as_user(student)
    warm(client, attempt)
    enrollment = Enrollment.objects.get(user=student, offering=attempt.quiz.offering)
    roster.change_role(enrollment=enrollment, role=Role.TEACHING_ASSISTANT, by=instructor)
    before = stored()
    for method, url in attempt_urls(attempt.pk, attempt.variants.get().pk):
        assert send(client, method, url).status_code == 403, url
    assert stored() == before


def test_staff_and_a_superuser_do_not_open_a_students_attempt_through_the_student_pages(
    course, student, instructor, assistant
):
    """Staff read attempts on the staff pages; the student URLs are the student's own. A
    superuser holds no role in an offering; enrolled as a student they are a student."""
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    root = UserFactory(is_superuser=True, is_staff=True)
    before = stored()
    for user, status in ((instructor, 403), (assistant, 403), (root, 403)):
        client = as_user(user)
        for method, url in attempt_urls(attempt.pk, variant.pk):
            assert send(client, method, url).status_code == status, (user, url)
    EnrollmentFactory(user=root, offering=attempt.quiz.offering, role=Role.STUDENT)
    client = as_user(root)
    for method, url in attempt_urls(attempt.pk, variant.pk):
        assert send(client, method, url).status_code == 404, url
    assert stored() == before


def test_an_lms_enrolled_student_is_held_to_the_same_rules(course, student):
    """An LMS launch or roster makes an enrolment like any other (source "lms"): its student
    opens their own attempt and not another's, and loses it when the enrolment goes."""
    lms_student = UserFactory(username="lti-abc123")
    EnrollmentFactory(user=lms_student, course=course, source="lms")
    quiz = make_quiz(course)
    own = service.start_attempt(quiz=quiz, student=lms_student, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = as_user(lms_student)
    assert client.get(own.get_absolute_url()).status_code == 200
    assert client.get(theirs.get_absolute_url()).status_code == 404
    Enrollment.objects.filter(user=lms_student).update(is_active=False)
    assert client.get(own.get_absolute_url()).status_code == 403
