"""Times (issue 27, item 6): every date a person sees is in their own time zone with the zone
named: the account's (reported by the browser, or chosen), else the offering's, else UTC; the
browser never overrides a chosen zone; the exam timer counts from the server's remaining time
whatever the zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from courseware.models import AccountPreferences
from courseware.templatetags.when import when
from courseware.timezones import SESSION_KEY, place_name
from quizzes.models import QuizMode
from tests.factories import OFFERING, PASSWORD, make_quiz

pytestmark = pytest.mark.django_db

# 23:59 UTC on 15 January: 18:59 in New York, 08:59 the next day in Tokyo, 00:59 in Berlin.
DUE = datetime(2027, 1, 15, 23, 59, tzinfo=UTC)


@pytest.fixture
def quiz(course):
    return make_quiz(course, due_at=DUE, closes_at=DUE + timedelta(days=2))


def _page(client, user, quiz):
    client.login(username=user.username, password=PASSWORD)
    response = client.get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug]))
    assert response.status_code == 200
    return response.content.decode()


def _due_text(html: str) -> str:
    found = re.search(r"<dt>Due</dt><dd><time [^>]*>([^<]+)</time>", html)
    assert found, "the quiz page shows its due date"
    return found.group(1)


def test_a_student_whose_account_has_no_zone_sees_the_offerings_zone_named(
    client, offering, student, quiz
):
    offering.time_zone = "Europe/Berlin"
    offering.save(update_fields=["time_zone"])
    assert _due_text(_page(client, student, quiz)) == "16 Jan 2027, 00:59 Berlin time"


def test_the_accounts_own_zone_wins_over_the_offerings(client, offering, student, quiz):
    offering.time_zone = "Europe/Berlin"
    offering.save(update_fields=["time_zone"])
    AccountPreferences.objects.create(user=student, time_zone="Asia/Tokyo")
    html = _page(client, student, quiz)
    assert _due_text(html) == "16 Jan 2027, 08:59 Tokyo time"
    # The machine-readable moment is the same instant in UTC whatever the zone shown.
    assert 'datetime="2027-01-15T23:59:00Z"' in html
    # The header names the zone and links to the page that changes it.
    assert "Times: <span data-zone-name>Tokyo time</span>" in html
    assert 'data-zone-mode="detected"' in html and 'data-account-zone="Asia/Tokyo"' in html


def test_a_page_outside_any_offering_shows_utc_to_an_account_without_a_zone(client, student):
    client.login(username=student.username, password=PASSWORD)
    html = client.get(reverse("time_zone")).content.decode()
    assert "has not reported a time zone yet" in html
    assert 'data-page-zone="UTC"' in html


def test_the_browsers_report_is_stored_while_the_account_follows_it(client, student, quiz):
    client.login(username=student.username, password=PASSWORD)
    url = reverse("time_zone")
    answer = client.post(url, {"time_zone": "America/New_York", "detected": "1"}).json()
    assert answer == {"time_zone": "America/New_York", "changed": True}
    prefs = AccountPreferences.objects.get(user=student)
    assert (prefs.time_zone, prefs.time_zone_detected) == ("America/New_York", True)
    # The next page is drawn in it, with no further report needed.
    assert _due_text(_page(client, student, quiz)) == "15 Jan 2027, 18:59 New York time"
    # A travelling laptop reports a new zone: followed.
    client.post(url, {"time_zone": "Asia/Tokyo", "detected": "1"})
    assert AccountPreferences.objects.get(user=student).time_zone == "Asia/Tokyo"


def test_a_chosen_zone_is_never_changed_by_the_browser(client, student, quiz):
    client.login(username=student.username, password=PASSWORD)
    url = reverse("time_zone")
    response = client.post(url, {"time_zone": "Europe/Berlin"}, follow=True)
    assert "Your dates are shown in Europe/Berlin (Berlin time)." in response.content.decode()
    answer = client.post(url, {"time_zone": "Asia/Tokyo", "detected": "1"}).json()
    assert answer == {"time_zone": "Europe/Berlin", "changed": False}
    prefs = AccountPreferences.objects.get(user=student)
    assert (prefs.time_zone, prefs.time_zone_detected) == ("Europe/Berlin", False)
    assert _due_text(_page(client, student, quiz)) == "16 Jan 2027, 00:59 Berlin time"
    # "Follow my browser" hands the zone back to the browser's reports.
    client.post(url, {"time_zone": "Europe/Berlin", "follow": "1"})
    assert client.post(url, {"time_zone": "Asia/Tokyo", "detected": "1"}).json()["changed"]


@pytest.mark.parametrize(
    "bad", ["Mars/Olympus_Mons", "", "localtime", "../../etc/passwd", "europe/berlin", "x" * 500]
)
def test_a_zone_that_is_not_one_is_refused_and_nothing_is_stored(client, student, bad):
    client.login(username=student.username, password=PASSWORD)
    url = reverse("time_zone")
    assert client.post(url, {"time_zone": bad, "detected": "1"}).json()["changed"] is False
    response = client.post(url, {"time_zone": bad}, follow=True)
    assert "Choose a time zone from the list" in response.content.decode()
    assert not AccountPreferences.objects.filter(user=student).exists()


def test_the_zone_page_asks_for_a_login_and_its_post_for_csrf(client, student):
    assert client.get(reverse("time_zone")).status_code == 302
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.login(username=student.username, password=PASSWORD)
    assert strict.post(reverse("time_zone"), {"time_zone": "Asia/Tokyo"}).status_code == 403
    assert not AccountPreferences.objects.filter(user=student).exists()


def test_next_after_choosing_a_zone_never_leaves_the_site(client, student):
    client.login(username=student.username, password=PASSWORD)
    response = client.post(
        reverse("time_zone"), {"time_zone": "Asia/Tokyo", "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("time_zone")
    response = client.post(reverse("time_zone"), {"time_zone": "Asia/Tokyo", "next": "/o/x/"})
    assert response["Location"] == "/o/x/"


def test_the_accounts_zone_is_read_once_per_session_not_on_every_page(
    client, student, quiz, django_assert_max_num_queries
):
    AccountPreferences.objects.create(user=student, time_zone="Asia/Tokyo")
    client.login(username=student.username, password=PASSWORD)
    assert client.session[SESSION_KEY] == ["Asia/Tokyo", "detected"]
    url = reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug])
    client.get(url)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    assert not any("preferences" in q["sql"] for q in queries.captured_queries)


def test_the_exam_timer_counts_the_servers_remaining_time_in_any_zone(client, course, student):
    exam = make_quiz(course, mode=QuizMode.EXAM, time_limit_minutes=30, max_attempts=1)
    AccountPreferences.objects.create(user=student, time_zone="Pacific/Kiritimati")  # UTC+14
    client.login(username=student.username, password=PASSWORD)
    start = client.post(reverse("quizzes:start_attempt", args=[OFFERING, exam.slug]))
    html = client.get(start["Location"]).content.decode()
    deadline = re.search(r'data-deadline="([^"]+)"', html).group(1)
    remaining = datetime.fromisoformat(deadline) - timezone.now()
    assert timedelta(minutes=29) < remaining <= timedelta(minutes=30)
    assert "Kiritimati time</time>" in html  # the clock time is named in the reader's zone


def test_when_names_the_zone_and_keeps_the_instant_in_utc():
    with timezone.override("America/New_York"):
        html = str(when(DUE))
    assert html.startswith('<time datetime="2027-01-15T23:59:00Z" data-when="long"')
    assert ">15 Jan 2027, 18:59 New York time</time>" in html
    with timezone.override("UTC"):
        assert ">15 Jan, 23:59 UTC</time>" in str(when(DUE, "short"))
    assert when(None) == ""


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("UTC", "UTC"),
        ("Etc/GMT+5", "GMT+5"),
        ("America/Argentina/Buenos_Aires", "Buenos Aires time"),
        ("", "UTC"),
    ],
)
def test_zones_are_named_as_people_read_them(name, shown):
    assert place_name(name) == shown
