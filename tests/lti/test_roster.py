"""Roster sync (NRPS) from the independent platform into the gradebook."""

from __future__ import annotations

import pytest
from lti_tool.models import LtiRegistration

from courseware.models import Enrollment
from lti.launch import username_for
from lti.models import GradeSync
from tests.factories import make_quiz
from tests.lti.conftest import launch

pytestmark = pytest.mark.django_db(transaction=True)


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
