"""Roster sync (NRPS) from the independent platform into the gradebook."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from lti_tool.models import LtiRegistration

from courseware.models import Enrollment
from lti.demo_shapes import OPENEDX, PLAIN
from lti.launch import username_for
from lti.models import GradeSync
from tests.factories import make_quiz
from tests.lti.conftest import launch

pytestmark = pytest.mark.django_db(transaction=True)

NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


def test_roster_sync_lists_students_who_never_launched(platform, course, client, instructor):
    quiz = make_quiz(course)
    lineitem = platform.add_lineitem({"label": quiz.title, "scoreMaximum": 1})["id"]
    launch(platform, user="student-ada", custom={"quiz": quiz.slug}, lineitem=lineitem)
    platform.members.append({"user_id": "left", "roles": ["Learner"], "status": "Inactive"})
    platform.members.append({"user_id": "mentor", "roles": ["Mentor"]})
    client.force_login(instructor)
    response = client.post("/o/hardware-reality/lms/roster/", follow=True)
    text = response.content.decode()
    assert "5 member(s) in the LMS, 2 new here, 2 without a role of ours" in text
    registration = LtiRegistration.objects.get(issuer=platform.issuer)
    alan = Enrollment.objects.get(user__username=username_for(registration, "student-alan"))
    assert alan.role == "student" and alan.source == "lms"
    grace = Enrollment.objects.get(user__username=username_for(registration, "teacher-grace"))
    assert grace.role == "instructor"
    assert not Enrollment.objects.filter(user__username__endswith="left").exists()
    assert GradeSync.objects.filter(user=alan.user).count() == 1
    gradebook = client.get("/o/hardware-reality/instructor/gradebook/").content.decode()
    assert "Alan" in gradebook and "Turing" in gradebook
    # Syncing again adds nobody twice.
    again = client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()
    assert "0 new here" in again


def test_roster_sync_with_the_platform_down_says_so_and_changes_nothing(
    platform, course, client, instructor
):
    launch(platform, user="student-ada")
    before = Enrollment.objects.count()
    platform.down = True
    client.force_login(instructor)
    text = client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()
    assert "did not send its roster" in text and Enrollment.objects.count() == before


def test_roster_sync_before_any_launch_explains(client, instructor):
    text = client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()
    assert client.post("/o/hardware-reality/lms/roster/").status_code in (302, 403)
    client.force_login(instructor)
    text = client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()
    assert "launch from the LMS once first" in text


def sync(client, instructor) -> str:
    client.force_login(instructor)
    return client.post("/o/hardware-reality/lms/roster/", follow=True).content.decode()


def test_a_paged_roster_follows_each_next_url_exactly_as_sent(platforms, client, instructor):
    lms = platforms(OPENEDX)  # two members a page, course key and cursor with capitals
    launch(lms, user="student-ada")
    text = sync(client, instructor)
    assert "3 member(s) in the LMS" in text, text[text.find("<main") :][:600]
    path = urlsplit(lms.service(OPENEDX.memberships)).path
    assert f"GET {path}?cursor=AbC2" in lms.requests
    assert not [r for r in lms.requests if "heldout" in r or "abc2" in r]


def test_one_failing_lms_course_never_stops_the_others(platforms, client, instructor):
    down, up = platforms(), platforms(client_id="second-tool")
    launch(down, user="student-ada")
    launch(up, user="student-ada")
    down.down = True
    text = sync(client, instructor)
    assert "did not send its roster" in text
    assert "3 member(s) in the LMS" in text  # the second course's roster all the same
    alan = username_for(LtiRegistration.objects.get(issuer=up.issuer), "student-alan")
    assert Enrollment.objects.filter(user__username=alan).exists()


def test_a_course_without_a_roster_service_is_reported_and_the_others_synced(
    platforms, client, instructor
):
    without, up = platforms(), platforms(client_id="second-tool")
    launch(without, user="student-ada", drop=[NRPS])
    launch(up, user="student-ada")
    text = sync(client, instructor)
    assert "gave no roster service" in text and "3 member(s) in the LMS" in text


@pytest.mark.parametrize(
    "bound, value, message",
    [
        ("MAX_PAGES", 1, "went on past 1 pages"),
        ("MAX_MEMBERS", 2, "more than 2 members"),
        ("MAX_PAGE_BYTES", 100, "larger than 100 bytes"),
    ],
)
def test_a_roster_past_its_bounds_is_stopped_with_a_message(
    platforms, client, instructor, monkeypatch, bound, value, message
):
    from lti import roster

    monkeypatch.setattr(roster, bound, value)
    lms = platforms(OPENEDX)
    launch(lms, user="student-ada")
    before = Enrollment.objects.count()
    text = sync(client, instructor)
    assert message in text and Enrollment.objects.count() == before


def test_a_roster_that_pages_forever_is_stopped(platforms, client, instructor):
    lms = platforms()
    launch(lms, user="student-ada")
    lms.roster_link = f'<{lms.service(PLAIN.memberships)}>; rel="next"'  # itself, forever
    text = sync(client, instructor)
    assert "went on past 1 pages" in text
    assert sum("memberships" in r for r in lms.requests) == 1


def test_a_next_page_on_another_host_is_never_called(platforms, client, instructor):
    lms = platforms()
    launch(lms, user="student-ada")
    elsewhere = lms.service(PLAIN.memberships).replace("localhost", "127.0.0.1") + "?page=2"
    lms.roster_link = f'<{elsewhere}>; rel="next"'
    text = sync(client, instructor)
    assert "a host the registration of" in text and "does not name" in text
    assert not [r for r in lms.requests if "page=2" in r]


def test_a_kept_token_the_platform_no_longer_takes_is_asked_for_again(
    platforms, client, instructor
):
    lms = platforms()
    launch(lms, user="student-ada")
    assert "3 member(s) in the LMS" in sync(client, instructor)
    assert len(lms.assertions) == 1
    assert "3 member(s) in the LMS" in sync(client, instructor)
    assert len(lms.assertions) == 1  # the token was kept
    lms.rotate_key()  # the platform restarts with a new key: our kept token is void
    assert "3 member(s) in the LMS" in sync(client, instructor)
    assert len(lms.assertions) == 2
