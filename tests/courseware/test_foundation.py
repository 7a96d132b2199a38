"""Accounts, roles, error pages and the demo command."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from courseware.models import Course, Enrollment, Offering, Part, SiteRole
from courseware.roles import instructor_required, offering_role_required
from tests.factories import OFFERING, PASSWORD, ChapterFactory, EnrollmentFactory, OfferingFactory

pytestmark = pytest.mark.django_db


def _instructor_only(request):
    return HttpResponse("secret dashboard")


instructor_view = instructor_required(_instructor_only)


def test_home_names_the_course_and_lists_chapters(client, course):
    ChapterFactory(part__course=course, title="GPUs from first principles", slug="gpus")
    response = client.get(reverse("courseware:home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "The Hardware Reality" in html
    assert "GPUs from first principles" in html
    assert 'hx-headers=\'{"X-CSRFToken": "' in html


def test_login_with_the_right_password_reaches_the_home_page(client, student):
    response = client.post(
        reverse("login"), {"username": student.username, "password": PASSWORD}, follow=True
    )
    assert response.context["user"].is_authenticated
    assert student.username in response.content.decode() or student.first_name in (
        response.content.decode()
    )


def test_login_with_a_wrong_password_says_so(client, student):
    response = client.post(reverse("login"), {"username": student.username, "password": "nope"})
    assert response.status_code == 200
    assert "did not match" in response.content.decode()
    assert not response.wsgi_request.user.is_authenticated


def test_student_gets_403_from_an_instructor_page(rf: RequestFactory, student):
    request = rf.get("/o/hardware-reality/instructor/")
    request.user = student
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        instructor_view(request, offering=OFFERING)


def test_instructor_reaches_an_instructor_page(rf: RequestFactory, instructor):
    request = rf.get("/o/hardware-reality/instructor/")
    request.user = instructor
    response = instructor_view(request, offering=OFFERING)
    assert response.content == b"secret dashboard"
    assert request.offering_role == "instructor"
    assert request.offering.slug == OFFERING and request.course == request.offering.course


def test_anonymous_visitor_is_sent_to_log_in(rf: RequestFactory, course):
    from django.contrib.auth.models import AnonymousUser

    request = rf.get("/o/hardware-reality/instructor/gradebook/")
    request.user = AnonymousUser()
    response = instructor_view(request, offering=OFFERING)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert f"next=/o/{OFFERING}/instructor/gradebook/" in response["Location"]


def test_user_enrolled_in_another_offering_has_no_role_here(rf: RequestFactory, course):
    other = OfferingFactory(course=course, slug="another-offering")
    user = EnrollmentFactory(offering=other, role="instructor").user
    request = rf.get("/")
    request.user = user
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        offering_role_required("instructor")(_instructor_only)(request, offering=OFFERING)
    # ... while in their own offering the same view lets them in.
    view = offering_role_required("instructor")(_instructor_only)
    assert view(request, offering="another-offering").content == b"secret dashboard"


def test_an_offering_that_does_not_exist_is_a_404(rf: RequestFactory, instructor):
    from django.http import Http404

    request = rf.get("/")
    request.user = instructor
    with pytest.raises(Http404):
        instructor_view(request, offering="no-such-offering")


def test_student_opening_admin_is_refused_with_403(client, student):
    client.force_login(student)
    response = client.get("/admin/", follow=True)
    assert response.status_code == 403
    assert "not for you" in response.content.decode()


def test_the_admin_is_the_sites_own_admin_site_not_a_patched_one(client, db):
    from django.contrib import admin

    from config.admin import SiteAdmin

    assert isinstance(admin.site, SiteAdmin)
    assert "login" not in vars(admin.site)  # the refusal is the class's method, not a patch
    assert admin.site.site_header == "The Hardware Reality: administration"
    assert client.get("/admin/login/").status_code == 200  # anonymous: the login form


def test_unknown_url_gives_the_friendly_404_page(client, course):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "We could not find that page" in html
    assert "Traceback" not in html


def test_500_page_is_friendly_and_needs_no_database(rf):
    from courseware.views import server_error

    response = server_error(rf.get("/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content


DEMO = ["student1", "student2", "student3", "instructor", "instructor2", "assistant"]


def test_demo_command_creates_accounts_once_and_is_idempotent():
    out = io.StringIO()
    call_command("setup_demo", stdout=out)
    call_command("setup_demo", stdout=out)
    users = get_user_model().objects.filter(username__in=[*DEMO, "author", "siteadmin"])
    assert users.count() == 8
    assert Course.objects.count() == 1
    assert Part.objects.count() == 1
    # setup_demo makes the first offering (the default); setup_site copies the second.
    first = Offering.objects.get()
    assert first.is_default and first.follows_files and first.slug == OFFERING
    roles = dict(Enrollment.objects.values_list("user__username", "role"))
    assert roles == {
        "student1": "student",
        "student2": "student",
        "instructor": "instructor",
        "assistant": "ta",
    }
    # Authoring and running the site are site roles, never roles in an offering.
    assert dict(SiteRole.objects.values_list("user__username", "role")) == {
        "author": "author",
        "siteadmin": "administrator",
    }
    assert all(u.check_password("learn-hardware") for u in users)
    assert "already present" in out.getvalue()


def test_demo_command_keeps_a_changed_password():
    call_command("setup_demo", stdout=io.StringIO())
    user = get_user_model().objects.get(username="student1")
    user.set_password("my-own-password-123")
    user.save()
    call_command("setup_demo", stdout=io.StringIO())
    user.refresh_from_db()
    assert user.check_password("my-own-password-123")


def test_no_migration_creates_demo_accounts():
    # The test database is built by migrations alone: demo accounts must not be in it.
    assert not get_user_model().objects.filter(username="student1").exists()


def test_logout_is_a_post_with_csrf(client, student):
    client.force_login(student)
    html = client.get(reverse("courseware:home")).content.decode()
    assert 'action="/accounts/logout/"' in html
    assert "csrfmiddlewaretoken" in html
