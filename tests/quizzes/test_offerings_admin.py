"""The site administrator's offerings pages and "Copy this offering": a new term in a minute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse

from courseware.models import Enrollment, Offering
from quizzes.models import Attempt, Extension, Quiz, QuizItem
from quizzes.services import attempts as service
from quizzes.services.instructor import grant_extension
from quizzes.services.offerings import copy_offering
from tests.factories import (
    EnrollmentFactory,
    OfferingFactory,
    QuestionTemplateFactory,
    UserFactory,
    make_quiz,
    site_role,
)

pytestmark = pytest.mark.django_db

DUE = datetime(2027, 3, 1, 23, 59, tzinfo=UTC)


@pytest.fixture
def admin_client(course):
    user = UserFactory(username="sam")
    site_role(user, "administrator")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def spring(offering, student, instructor):
    """An offering with two quizzes (dates, settings, a pool, a pinned version) and a class at
    work: attempts, an extension."""
    offering.term, offering.time_zone = "Spring 2027", "Europe/Berlin"
    offering.save()
    homework = make_quiz(
        offering,
        examples=("decode-step-memory-floor", "kv-cache-fits", "bound-by-what"),
        slug="roofline",
        title="Roofline",
        opens_at=DUE - timedelta(days=7),
        due_at=DUE,
        closes_at=DUE + timedelta(days=2),
        late_penalty="0.25",
        tries_per_variant=5,
        pools={"pick": 1},
    )
    items = list(homework.items.order_by("position"))
    for item in items[1:]:
        item.pool = "pick"
        item.points = 2
        item.save()
    items[0].pinned_version = items[0].template.current_version
    items[0].save()
    exam = make_quiz(offering, slug="checkpoint", mode="exam", time_limit_minutes=45)
    service.start_attempt(quiz=exam, student=student, now=DUE - timedelta(days=8))
    grant_extension(quiz=homework, student=student, by=instructor, extra_minutes=10)
    return offering


def test_a_copy_has_the_same_quizzes_and_settings_dates_moved_and_no_people(spring, instructor):
    before = (Attempt.objects.count(), Extension.objects.count())
    fall = copy_offering(
        source=spring,
        slug="fall-2027",
        title="The Hardware Reality, Fall 2027",
        term="Fall 2027",
        shift=timedelta(days=182),
        instructors=[instructor],
    )
    assert (fall.course, fall.copied_from, fall.time_zone) == (
        spring.course,
        spring,
        "Europe/Berlin",
    )
    assert not fall.follows_files and not fall.is_default
    pairs = {q.slug: q for q in Quiz.objects.filter(offering=spring)}
    copies = {q.slug: q for q in Quiz.objects.filter(offering=fall)}
    assert copies.keys() == pairs.keys()
    settings = ("title", "mode", "tries_per_variant", "late_penalty", "late_policy", "pools")
    for slug, copy in copies.items():
        original = pairs[slug]
        assert copy.copied_from == original and copy.pk != original.pk
        assert [getattr(copy, f) for f in settings] == [getattr(original, f) for f in settings]
        assert copy.time_limit_minutes == original.time_limit_minutes
        for name in ("opens_at", "due_at", "closes_at"):
            was = getattr(original, name)
            assert getattr(copy, name) == (was + timedelta(days=182) if was else None)
        mine = list(
            copy.items.order_by("position").values_list(
                "template", "pinned_version", "points", "pool", "position"
            )
        )
        theirs = list(
            original.items.order_by("position").values_list(
                "template", "pinned_version", "points", "pool", "position"
            )
        )
        assert mine == theirs
    # No students, no attempts, no extensions; the copy's instructor is the one named.
    assert list(Enrollment.objects.filter(offering=fall).values_list("user", "role")) == [
        (instructor.pk, "instructor")
    ]
    assert (Attempt.objects.count(), Extension.objects.count()) == before
    assert not Attempt.objects.filter(quiz__offering=fall).exists()


def test_a_copy_leaves_out_items_retired_from_answered_quizzes(offering):
    quiz = make_quiz(offering, examples=("decode-step-memory-floor", "kv-cache-fits"))
    retired = quiz.items.order_by("position").last()
    retired.pool = "retired"
    retired.save()
    quiz.pools = {"retired": 0}
    quiz.save()
    copy = copy_offering(source=offering, slug="next", title="Next")
    (copied,) = Quiz.objects.filter(offering=copy)
    assert list(copied.items.values_list("template__slug", flat=True)) == [
        "decode-step-memory-floor"
    ]
    assert copied.pools == {}


@pytest.mark.parametrize(
    ("slug", "message"),
    [
        ("", "short name"),
        ("has space", "letters, digits, hyphens"),
        ("x" * 61, "at most 60"),
        ("hardware-reality", "exists already"),
    ],
)
def test_a_bad_copy_name_is_refused_and_creates_nothing(spring, admin_client, slug, message):
    count = (Offering.objects.count(), Quiz.objects.count(), QuizItem.objects.count())
    url = reverse("site:offering_copy", args=[spring.slug])
    data = {"title": "Fall", "slug": slug, "time_zone": "UTC", "shift_days": "0"}
    response = admin_client.post(url, data)
    assert response.status_code == 400 and message in response.content.decode()
    assert 'value="Fall"' in response.content.decode()  # what was typed comes back
    assert (Offering.objects.count(), Quiz.objects.count(), QuizItem.objects.count()) == count


def test_the_copy_form_makes_the_copy_and_names_its_instructors(spring, admin_client, instructor):
    url = reverse("site:offering_copy", args=[spring.slug])
    page = admin_client.get(url).content.decode()
    assert "Copy this offering" in page and instructor.username in page
    response = admin_client.post(
        url,
        {
            "title": "The Hardware Reality, Fall 2027",
            "slug": "fall-2027",
            "term": "Fall 2027",
            "section": "1",
            "time_zone": "America/Chicago",
            "shift_days": "182",
            "instructors": [instructor.pk],
        },
    )
    assert response.status_code == 302 and response["Location"].endswith("/fall-2027/")
    fall = Offering.objects.get(slug="fall-2027")
    assert fall.time_zone == "America/Chicago" and fall.quizzes.count() == 2
    assert Quiz.objects.get(offering=fall, slug="roofline").due_at == DUE + timedelta(days=182)
    assert Enrollment.objects.get(offering=fall).user == instructor
    # The copied instructor opens the copy's pages; its gradebook is empty.
    client = Client()
    client.force_login(instructor)
    book = client.get(reverse("instructor:gradebook", args=["fall-2027"]))
    assert book.status_code == 200


def test_an_offering_is_created_named_staffed_and_archived(admin_client, course, student):
    response = admin_client.post(
        reverse("site:offering_create"),
        {"title": "Summer school", "slug": "summer", "term": "", "section": "", "time_zone": "UTC"},
    )
    assert response.status_code == 302
    summer = Offering.objects.get(slug="summer")
    assert summer.course == course and not summer.quizzes.exists()
    detail = reverse("site:offering_detail", args=["summer"])
    teacher = UserFactory(username="teacher")
    admin_client.post(
        reverse("site:offering_staff", args=["summer"]),
        {"username": "teacher", "role": "instructor"},
    )
    admin_client.post(
        reverse("site:offering_staff", args=["summer"]),
        {"username": student.username, "role": "ta"},
    )
    roles = dict(Enrollment.objects.filter(offering=summer).values_list("user__username", "role"))
    assert roles == {"teacher": "instructor", student.username: "ta"}
    assert Enrollment.objects.get(user=teacher).source == "site"
    unknown = admin_client.post(
        reverse("site:offering_staff", args=["summer"]),
        {"username": "nobody", "role": "instructor"},
    )
    assert unknown.status_code == 400 and "No account is called" in unknown.content.decode()
    admin_client.post(
        detail,
        {"title": "Summer school 2027", "term": "Summer", "section": "", "time_zone": "Asia/Tokyo"},
    )
    summer.refresh_from_db()
    assert (summer.title, summer.time_zone, summer.slug) == (
        "Summer school 2027",
        "Asia/Tokyo",
        "summer",
    )
    admin_client.post(reverse("site:offering_archive", args=["summer"]), {"archived": "1"})
    summer.refresh_from_db()
    assert summer.is_archived
    listing = admin_client.get(reverse("site:offering_list")).content.decode()
    assert "Summer school 2027" in listing and "archived" in listing


def test_the_default_offering_cannot_be_archived(admin_client, offering):
    page = admin_client.post(
        reverse("site:offering_archive", args=[offering.slug]), {"archived": "1"}, follow=True
    )
    assert "make another one the default first" in page.content.decode()
    offering.refresh_from_db()
    assert not offering.is_archived


def test_students_of_an_archived_offering_start_no_attempt(offering, student, client):
    quiz = make_quiz(offering)
    offering.is_archived = True
    offering.save()
    client.force_login(student)
    response = client.post(
        reverse("quizzes:start_attempt", args=[offering.slug, quiz.slug]), follow=True
    )
    assert "archived" in response.content.decode()
    assert not Attempt.objects.exists()


def test_a_staff_member_is_removed_but_a_student_never_from_here(
    admin_client, offering, student, instructor
):
    enrollment = Enrollment.objects.get(user=instructor)
    admin_client.post(reverse("site:staff_remove", args=[offering.slug, enrollment.pk]))
    assert not Enrollment.objects.filter(user=instructor).exists()
    kept = Enrollment.objects.get(user=student)
    page = admin_client.post(
        reverse("site:staff_remove", args=[offering.slug, kept.pk]), follow=True
    )
    assert "their work stays with them" in page.content.decode()
    assert Enrollment.objects.filter(user=student).exists()
    other = OfferingFactory(course=offering.course, slug="other")
    foreign = EnrollmentFactory(offering=other, role="instructor")
    assert (
        admin_client.post(
            reverse("site:staff_remove", args=[offering.slug, foreign.pk])
        ).status_code
        == 404
    )


@pytest.mark.parametrize("role", ["student", "instructor", "author"])
def test_only_site_administrators_reach_the_offerings_pages(offering, role, request):
    from tests.factories import UserFactory as Users

    user = request.getfixturevalue(role) if role != "author" else Users()
    if role == "author":
        site_role(user, "author")
    client = Client()
    client.force_login(user)
    for url in (
        reverse("site:offering_list"),
        reverse("site:offering_create"),
        reverse("site:offering_copy", args=[offering.slug]),
    ):
        assert client.get(url).status_code == 403
    assert (
        client.post(reverse("site:offering_create"), {"title": "x", "slug": "x"}).status_code == 403
    )
    assert not Offering.objects.filter(slug="x").exists()


def test_a_superuser_is_a_site_administrator(offering):
    boss = UserFactory(username="boss", is_superuser=True)
    client = Client()
    client.force_login(boss)
    assert client.get(reverse("site:offering_list")).status_code == 200


def test_a_template_of_another_book_is_never_copied_across_courses(offering):
    """A copy stays in its source's course: its items are that course's bank templates."""
    QuestionTemplateFactory(course=offering.course, example="kv-cache-fits")
    make_quiz(offering, examples=("kv-cache-fits",))
    copy = copy_offering(source=offering, slug="again", title="Again")
    assert {i.template.course_id for i in QuizItem.objects.filter(quiz__offering=copy)} == {
        offering.course_id
    }


def test_the_list_counts_each_offerings_students_and_quizzes_once(admin_client, offering):
    """Two counts over two joins: each is distinct (3 students and 2 quizzes, not 6 and 6)."""
    for _ in range(3):
        EnrollmentFactory(offering=offering)
    make_quiz(offering, slug="one")
    make_quiz(offering, slug="two")
    response = admin_client.get(reverse("site:offering_list"))
    row = response.context["offerings"].get(pk=offering.pk)
    assert (row.students, row.quiz_count) == (3, 2)
