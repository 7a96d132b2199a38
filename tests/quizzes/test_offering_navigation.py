"""Getting around several offerings: the home page lists the reader's, the header switches
between them, and an address from before offerings leads into the one it can only mean."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.services import attempts as service
from tests.factories import EnrollmentFactory, OfferingFactory, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def second(offering):
    return OfferingFactory(
        course=offering.course, slug="section-2", title="Section 2", term="Spring 2027"
    )


def test_the_home_page_lists_the_readers_offerings_with_their_roles(
    client, offering, second, student
):
    EnrollmentFactory(user=student, offering=second, role="ta")
    past = OfferingFactory(course=offering.course, slug="fall-2026", title="Fall 2026 class")
    past.is_archived = True
    past.save()
    EnrollmentFactory(user=student, offering=past)
    make_quiz(offering, title="Due soon", due_at=timezone.now() + timezone.timedelta(days=2))
    client.force_login(student)
    html = client.get(reverse("courseware:home")).content.decode()
    assert f'href="/o/{offering.slug}/"' in html and 'href="/o/section-2/"' in html
    assert "Teaching assistant · Spring 2027" in html
    # Open work under the offering where they study; the archived one apart.
    assert "Due soon" in html
    assert "Archived offerings (1)" in html and "Fall 2026 class" in html


def test_the_header_switches_between_the_readers_offerings(client, offering, second, student):
    quiz = make_quiz(offering)
    client.force_login(student)
    page = client.get(reverse("quizzes:quiz_detail", args=[offering.slug, quiz.slug]))
    html = page.content.decode()
    assert 'class="offering-current"' in html and "offering-switcher" not in html
    EnrollmentFactory(user=student, offering=second)
    html = client.get(reverse("quizzes:quiz_detail", args=[offering.slug, quiz.slug])).content
    html = html.decode()
    assert '<details class="offering-switcher">' in html
    assert f'href="/o/{offering.slug}/" aria-current="page"' in html
    assert 'href="/o/section-2/"' in html
    # The navigation is the page's own offering's.
    assert f'href="/o/{offering.slug}/progress/"' in html
    assert 'href="/o/section-2/progress/"' not in html


def test_the_staff_navigation_shows_quiz_settings_to_instructors_only(
    client, offering, instructor, assistant
):
    for user, shown in ((instructor, True), (assistant, False)):
        client.force_login(user)
        html = client.get(reverse("instructor:dashboard", args=[offering.slug])).content.decode()
        assert (f'href="/o/{offering.slug}/instructor/quizzes/"' in html) is shown
        assert "Gradebook" in html


def test_an_old_address_leads_into_the_readers_one_offering(client, offering, student):
    quiz = make_quiz(offering)
    client.force_login(student)
    response = client.get(f"/quizzes/{quiz.slug}/?from=bookmark")
    assert response["Location"] == f"/o/{offering.slug}/quizzes/{quiz.slug}/?from=bookmark"
    assert client.get("/progress/")["Location"] == f"/o/{offering.slug}/progress/"


def test_an_old_attempt_address_leads_into_the_attempts_own_offering(
    client, offering, second, student
):
    EnrollmentFactory(user=student, offering=second)
    quiz = make_quiz(second)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client.force_login(student)
    response = client.get(f"/attempts/{attempt.pk}/results/")
    assert response["Location"] == f"/o/section-2/attempts/{attempt.pk}/results/"
    # Ambiguous (two offerings, no attempt to go by): the home page that lists them, told why.
    ambiguous = client.get("/quizzes/", follow=True)
    assert ambiguous.redirect_chain[-1][0] == "/"
    assert "choose the offering below" in ambiguous.content.decode()


def test_an_old_address_never_follows_another_students_attempt(client, offering, second, student):
    EnrollmentFactory(user=student, offering=second)
    someone = EnrollmentFactory(offering=second).user
    theirs = service.start_attempt(quiz=make_quiz(second), student=someone, now=timezone.now())
    client.force_login(student)
    assert client.get(f"/attempts/{theirs.pk}/")["Location"] == "/"


def test_old_addresses_redirect_only_reads_and_only_for_people_signed_in(client, offering, student):
    response = client.get("/instructor/gradebook/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client.force_login(student)
    assert client.post("/quizzes/x/start/").status_code == 405
    assert client.get("/lti/grades/")["Location"] == f"/o/{offering.slug}/lms/grades/"
    assert client.get("/studio/quizzes/")["Location"] == f"/o/{offering.slug}/instructor/quizzes/"
