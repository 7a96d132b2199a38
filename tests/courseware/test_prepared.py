"""A prepared lookup returns what its queryset returns, and refuses a shape it would freeze."""

from __future__ import annotations

import pytest
from django.db.models import F, Value

from courseware.models import Enrollment
from courseware.prepared import PreparedLookup
from tests.factories import EnrollmentFactory

pytestmark = pytest.mark.django_db


def _enrollment(*, user_id, offering_slug):
    return (
        Enrollment.objects.filter(user_id=user_id, offering__slug=offering_slug)
        .select_related("user", "offering")
        .annotate(name=F("user__username"))
    )


def test_it_builds_the_same_instances_as_the_queryset_for_any_values(offering):
    lookup = PreparedLookup(_enrollment, "user_id", "offering_slug", text=("offering_slug",))
    for role in ("student", "instructor"):
        expected = EnrollmentFactory(offering=offering, role=role)
        got = lookup.first(user_id=expected.user_id, offering_slug=offering.slug)
        orm = _enrollment(user_id=expected.user_id, offering_slug=offering.slug).get()
        assert (got.pk, got.role, got.enrolled_at) == (orm.pk, orm.role, orm.enrolled_at)
        assert got.name == expected.user.username  # the annotation
        assert got.user.username == expected.user.username  # select_related, no query
        assert Enrollment.user.is_cached(got) and got.offering.title == offering.title
    assert lookup.first(user_id=-1, offering_slug=offering.slug) is None
    # A text value is a parameter like any other: another slug finds nothing.
    assert lookup.first(user_id=expected.user_id, offering_slug="another") is None


def test_a_value_that_is_not_a_named_parameter_is_refused(course):
    frozen = PreparedLookup(
        lambda *, user_id: Enrollment.objects.filter(user_id=user_id, role=Value("student")),
        "user_id",
    )
    with pytest.raises(ValueError, match="only take its named values"):
        frozen.first(user_id=1)


def test_all_returns_every_row_in_the_querysets_order(course):
    from courseware.roles import enrollments_of
    from tests.factories import OfferingFactory, UserFactory

    user = UserFactory()
    made = [
        EnrollmentFactory(
            user=user, offering=OfferingFactory(course=course, slug=f"term-{n}"), role=role
        )
        for n, role in enumerate(("student", "teaching_assistant", "instructor"))
    ]
    gone = OfferingFactory(course=course, slug="term-left")
    EnrollmentFactory(user=user, offering=gone, is_active=False)
    EnrollmentFactory(offering=made[0].offering)  # someone else's
    orm = list(
        Enrollment.objects.filter(user_id=user.pk, is_active=True)
        .select_related("offering__course")
        .order_by("offering__is_archived", "-offering__created_at", "offering__title")
    )
    got = enrollments_of(user)
    assert [(e.pk, e.role, e.offering.slug, e.offering.course.slug) for e in got] == [
        (e.pk, e.role, e.offering.slug, e.offering.course.slug) for e in orm
    ]
    assert len(got) == 3
    lookup = PreparedLookup(_enrollment, "user_id", "offering_slug", text=("offering_slug",))
    assert lookup.all(user_id=-1, offering_slug="nowhere") == []
