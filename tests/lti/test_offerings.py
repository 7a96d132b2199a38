"""Every LMS course its own offering (issue 26, item 5; issue 33, S1 and S7; issue 31, item 7),
driven from the independent platform over real HTTP.

- (registration, deployment, context id) -> offering; an instructor's first launch creates it
  (a copy of the registration's template offering, or of the site's default), a student's
  launch into an unknown LMS course is refused with a clear page;
- a launch's role applies to its own context's offering only and never raises an enrolment
  made another way; ContentDeveloper makes an author only where the site says so;
- identity is (issuer, client id, sub): two registrations sharing an issuer never share accounts;
- the same quiz placed twice in one LMS course sends each score to its own line item.
"""

from __future__ import annotations

import pytest
import requests
from django.test import Client
from django.utils import timezone
from lti_tool.models import LtiUser

from courseware.models import Enrollment, Offering, SiteRole
from lti.launch import INSTRUCTOR_FIRST
from lti.models import ContextOffering, GradeSync, PlatformTemplate, QuizLineItem
from quizzes.models import Quiz
from quizzes.services.attempts import start_attempt
from quizzes.services.submission import submit_attempt
from tests.factories import OfferingFactory, default_offering, make_quiz
from tests.lti.conftest import launch, link_context, unlinked_platform

pytestmark = pytest.mark.django_db(transaction=True)

TEACHER = {"roles": ("Instructor",)}


@pytest.fixture
def lms(live_server, course):
    """A registered platform whose LMS courses are all still unknown here."""
    platform = unlinked_platform(live_server)
    yield platform
    platform.stop()


@pytest.fixture
def shipped(course):
    """The site's default offering with a quiz, as `make run` leaves it."""
    return make_quiz(default_offering(course), slug="roofline-quiz", title="Roofline")


def _offering_of(context_id: str) -> Offering:
    return ContextOffering.objects.get(context__id_on_platform=context_id).offering


def _account(sub: str, *, client_id: str | None = None):
    users = LtiUser.objects.filter(sub=sub)
    if client_id:
        users = users.filter(registration__client_id=client_id)
    return users.get().auth_user


def test_the_first_instructor_launch_creates_the_lms_courses_offering(lms, shipped):
    done = launch(
        lms,
        user="teacher-mira",
        context="ml-2027",
        context_title="Machine Learning Systems, Fall 2027",
        context_label="MLS-2027",
        **TEACHER,
    )
    offering = _offering_of("ml-2027")
    assert done.response.headers["Location"] == f"/o/{offering.slug}/"
    assert offering.slug == "mls-2027"
    assert offering.title == "Machine Learning Systems, Fall 2027"
    assert offering.copied_from == shipped.offering and not offering.follows_files
    # Its own quiz rows, copied from the default offering's; no student came with them.
    copy = Quiz.objects.get(offering=offering)
    assert (copy.slug, copy.copied_from) == ("roofline-quiz", shipped)
    mira = _account("teacher-mira")
    assert Enrollment.objects.get(offering=offering).user == mira
    assert Enrollment.objects.get(user=mira).role == "instructor"
    assert Enrollment.objects.get(user=mira).source == "lms"
    # Launching again finds it: one offering per LMS course.
    launch(lms, user="teacher-mira", context="ml-2027", **TEACHER)
    assert ContextOffering.objects.filter(context__id_on_platform="ml-2027").count() == 1
    assert Offering.objects.count() == 2


def test_a_student_launch_into_an_lms_course_not_set_up_is_refused_clearly(lms, shipped):
    before = (Offering.objects.count(), Enrollment.objects.count(), ContextOffering.objects.count())
    done = launch(lms, user="student-ada", context="new-course", custom={"quiz": "roofline-quiz"})
    assert done.response.status_code == 403
    assert "instructor opens the tool" in done.response.text
    assert INSTRUCTOR_FIRST.split(".")[0] in done.response.text
    assert "Traceback" not in done.response.text
    after = (Offering.objects.count(), Enrollment.objects.count(), ContextOffering.objects.count())
    assert after == before
    # A teaching assistant cannot create it either; the instructor can, and then Ada is let in.
    refused = launch(lms, user="ta-tom", context="new-course", roles=("TeachingAssistant",))
    assert refused.response.status_code == 403
    launch(lms, user="teacher-mira", context="new-course", **TEACHER)
    again = launch(lms, user="student-ada", context="new-course", custom={"quiz": "roofline-quiz"})
    offering = _offering_of("new-course")
    assert again.response.headers["Location"] == f"/o/{offering.slug}/quizzes/roofline-quiz/"


def test_two_lms_courses_of_one_registration_are_two_offerings_apart(lms, shipped, client):
    launch(lms, user="teacher-a", context="course-a", context_title="Course A", **TEACHER)
    launch(lms, user="teacher-b", context="course-b", context_title="Course B", **TEACHER)
    a, b = _offering_of("course-a"), _offering_of("course-b")
    assert a != b and a.course == b.course == shipped.offering.course
    for student, context in (("ada", "course-a"), ("alan", "course-b")):
        done = launch(lms, user=student, context=context, custom={"quiz": "roofline-quiz"})
        assert done.response.status_code == 302
    ada, alan = _account("ada"), _account("alan")
    assert set(Enrollment.objects.filter(user=ada).values_list("offering", flat=True)) == {a.pk}
    assert set(Enrollment.objects.filter(user=alan).values_list("offering", flat=True)) == {b.pk}
    # Course A's instructor sees Ada, not Alan, and is refused Course B's pages.
    client.force_login(_account("teacher-a"))
    book = client.get(f"/o/{a.slug}/instructor/gradebook/").content.decode()
    assert ada.username in book and alan.username not in book
    assert client.get(f"/o/{b.slug}/instructor/gradebook/").status_code == 403
    # Each LMS course's roster lands in its own offering.
    lms.rosters["course-a"] = [{"user_id": "ada", "roles": ["Learner"]}]
    lms.rosters["course-b"] = [
        {"user_id": "alan", "roles": ["Learner"]},
        {"user_id": "grace", "name": "Grace Hopper", "roles": ["Learner"]},
    ]
    text = client.post(f"/o/{a.slug}/lms/roster/", follow=True).content.decode()
    assert "1 member(s) in the LMS, 0 new here" in text
    assert not Enrollment.objects.filter(user__first_name__startswith="Grace").exists()
    client.force_login(_account("teacher-b"))
    text = client.post(f"/o/{b.slug}/lms/roster/", follow=True).content.decode()
    assert "2 member(s) in the LMS, 1 new here" in text
    grace = Enrollment.objects.get(user__first_name__startswith="Grace")
    assert (grace.offering, grace.role, grace.source) == (b, "student", "lms")


def test_a_registration_can_name_the_offering_new_courses_are_copied_from(lms, course, shipped):
    from lti_tool.models import LtiRegistration

    template = OfferingFactory(course=course, slug="template-2027", title="Template")
    make_quiz(template, slug="template-only-quiz")
    registration = LtiRegistration.objects.get(issuer=lms.issuer)
    PlatformTemplate.objects.create(registration=registration, offering=template)
    launch(lms, user="teacher-mira", context="fresh", **TEACHER)
    offering = _offering_of("fresh")
    assert offering.copied_from == template
    assert list(offering.quizzes.values_list("slug", flat=True)) == ["template-only-quiz"]


# ---------------------------------------------------------------- S1: roles stay in their course


def test_an_instructor_elsewhere_in_the_lms_gains_nothing_in_this_offering(lms, shipped, client):
    """Issue 33, S1: Ada studies in the course linked to the shipped offering, and teaches
    another course of the same LMS. Launching from there makes her the instructor of that
    course's own offering only; here she stays a student."""
    link_context(lms, "course-101", shipped.offering)
    launch(lms, user="student-ada", context="course-101", custom={"quiz": shipped.slug})
    elsewhere = launch(lms, user="student-ada", context="her-own-course", **TEACHER)
    assert elsewhere.response.status_code == 302
    ada = _account("student-ada")
    roles = dict(Enrollment.objects.filter(user=ada).values_list("offering__slug", "role"))
    assert roles == {
        shipped.offering.slug: "student",
        _offering_of("her-own-course").slug: "instructor",
    }
    client.force_login(ada)
    assert client.get(f"/o/{shipped.offering.slug}/instructor/gradebook/").status_code == 403
    for name in ("export/responses.csv", "export/gradebook.csv"):
        assert client.get(f"/o/{shipped.offering.slug}/instructor/{name}").status_code == 403


def test_a_launch_never_raises_an_enrolment_made_on_this_site(lms, shipped):
    """A student enrolled here by the site who launches as Instructor from the linked LMS
    course stays a student (and cannot deep link); an enrolment the LMS made follows it."""
    link_context(lms, "course-101", shipped.offering)
    launch(lms, user="student-ada", context="course-101")
    ada = _account("student-ada")
    made_here = Enrollment.objects.get(user=ada)
    made_here.source = "site"
    made_here.save()
    done = launch(
        lms, user="student-ada", context="course-101", custom={"quiz": shipped.slug}, **TEACHER
    )
    assert done.response.status_code == 302
    assert Enrollment.objects.get(user=ada).role == "student"
    linking = launch(lms, user="student-ada", context="course-101", deep_link=True, **TEACHER)
    assert linking.response.status_code == 403
    # Alan's enrolment is the LMS's: the LMS makes him a teaching assistant, and he is one.
    launch(lms, user="alan", context="course-101")
    launch(lms, user="alan", context="course-101", roles=("TeachingAssistant",))
    assert Enrollment.objects.get(user=_account("alan")).role == "ta"


def test_content_developer_makes_an_author_only_where_the_site_says_so(lms, shipped, settings):
    link_context(lms, "course-101", shipped.offering)
    refused = launch(lms, user="cd-only", context="course-101", roles=("ContentDeveloper",))
    assert refused.response.status_code == 403 and "has no place here" in refused.response.text
    launch(lms, user="cd-learner", context="course-101", roles=("ContentDeveloper", "Learner"))
    learner = _account("cd-learner")
    assert not SiteRole.objects.filter(user=learner).exists()
    assert Enrollment.objects.get(user=learner).role == "student"

    settings.LTI_CONTENT_DEVELOPER_IS_AUTHOR = True
    # The live server reads the same settings object: the switch applies to its next launch.
    done = launch(lms, user="cd-only", context="course-101", roles=("ContentDeveloper",))
    assert done.response.headers["Location"] == "/studio/"
    author = _account("cd-only")
    assert SiteRole.objects.get(user=author).role == "author"
    assert not Enrollment.objects.filter(user=author).exists()  # an author is in no offering


# ---------------------------------------------------------------- S7: identity per registration


def test_two_registrations_sharing_an_issuer_never_share_an_account(live_server, course, shipped):
    """Issue 33, S7 (issue 31, item 7): Canvas cloud's issuer, two schools' client ids, the same
    `sub`: two accounts, and neither registration signs in as the other's user."""
    one = unlinked_platform(live_server, issuer="https://canvas.instructure.test", client_id="one")
    two = unlinked_platform(live_server, issuer="https://canvas.instructure.test", client_id="two")
    try:
        for lms in (one, two):
            link_context(lms, "course-101", shipped.offering)
            done = launch(lms, user="student-ada", context="course-101")
            assert done.response.status_code == 302, done.response.text[-400:]
        first, second = (
            _account("student-ada", client_id="one"),
            _account("student-ada", client_id="two"),
        )
        assert first != second
        assert first.username != second.username
        # A session from the second registration is the second account, never the first's.
        session = requests.Session()
        launch(two, session=session, user="student-ada", context="course-101")
        assert session.cookies.get("sessionid")
        from django.contrib.sessions.models import Session

        stored = Session.objects.get(session_key=session.cookies["sessionid"]).get_decoded()
        assert int(stored["_auth_user_id"]) == second.pk
    finally:
        one.stop()
        two.stop()


# ---------------------------------------------------------------- line items per placement


def test_the_same_quiz_placed_twice_sends_each_score_to_its_own_column(lms, shipped):
    link_context(lms, "course-101", shipped.offering)
    first = lms.add_lineitem({"label": "Roofline (week 3)", "scoreMaximum": 1})["id"]
    second = lms.add_lineitem({"label": "Roofline (final)", "scoreMaximum": 1})["id"]
    custom = {"quiz": shipped.slug}
    launch(
        lms, user="student-ada", context="course-101", link="week-3", lineitem=first, custom=custom
    )
    launch(
        lms, user="student-ada", context="course-101", link="final", lineitem=second, custom=custom
    )
    # Launching the first placement again does not move its column to the second's.
    launch(
        lms, user="student-ada", context="course-101", link="week-3", lineitem=first, custom=custom
    )
    placements = QuizLineItem.objects.filter(quiz=shipped).order_by("pk")
    assert [(p.resource_link.id_on_platform, p.url) for p in placements] == [
        ("week-3", first),
        ("final", second),
    ]
    ada = _account("student-ada")
    attempt = start_attempt(quiz=shipped, student=ada, now=timezone.now())
    submit_attempt(attempt=attempt, student=ada, now=timezone.now())
    assert {s["lineitem"] for s in lms.scores} == {first, second}
    assert GradeSync.objects.filter(user=ada).count() == 2


def test_a_line_item_recorded_before_placements_is_adopted_by_the_first(lms, shipped):
    """A row from before the migration (no resource link) keeps its column and its syncs."""
    context = link_context(lms, "course-101", shipped.offering)
    url = lms.add_lineitem({"label": "Roofline", "scoreMaximum": 1})["id"]
    old = QuizLineItem.objects.create(context=context, quiz=shipped, url=url)
    launch(
        lms,
        user="student-ada",
        context="course-101",
        link="l1",
        lineitem=url,
        custom={"quiz": shipped.slug},
    )
    old.refresh_from_db()
    assert old.resource_link.id_on_platform == "l1"
    assert QuizLineItem.objects.count() == 1


# ---------------------------------------------------------------- roles and deep linking


def test_a_teaching_assistant_grades_but_changes_no_quiz_setting(lms, shipped, client):
    link_context(lms, "course-101", shipped.offering)
    launch(lms, user="ta-tom", context="course-101", roles=("TeachingAssistant",))
    tom = _account("ta-tom")
    assert Enrollment.objects.get(user=tom).role == "ta"
    client.force_login(tom)
    slug = shipped.offering.slug
    assert client.get(f"/o/{slug}/instructor/gradebook/").status_code == 200
    assert client.get(f"/o/{slug}/instructor/quizzes/").status_code == 403
    assert client.post(f"/o/{slug}/lms/roster/").status_code == 403


def test_deep_linking_offers_the_launching_courses_own_offering(lms, shipped):
    launch(lms, user="teacher-mira", context="course-b", **TEACHER)
    offering = _offering_of("course-b")
    make_quiz(offering, slug="only-in-course-b", title="Only in course B")
    make_quiz(shipped.offering, slug="only-in-the-default", title="Only in the default")
    done = launch(lms, user="teacher-mira", context="course-b", deep_link=True, **TEACHER)
    page = done.session.get(lms.tool_url + "/lti/deep-link/").text
    assert "Only in course B" in page and "Only in the default" not in page


def test_an_instructor_of_one_lms_course_cannot_deep_link_into_an_offering_they_do_not_teach(
    lms, shipped
):
    """A student here (the site enrolled them) whose LMS says Instructor in the linked course."""
    link_context(lms, "course-101", shipped.offering)
    launch(lms, user="student-ada", context="course-101")
    Enrollment.objects.filter(user=_account("student-ada")).update(source="site")
    done = launch(lms, user="student-ada", context="course-101", deep_link=True, **TEACHER)
    assert done.response.status_code == 403
    assert not Client().get("/lti/deep-link/").status_code == 200
