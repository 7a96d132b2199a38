"""Roles for views: who may see which page.

Offering pages carry the offering in their URL (`/o/<offering>/...`, the URL keyword
`offering`). `offering_role_required` reads the user's active enrolments (a deactivated
student's gives no role) with their offerings in one
query (the header's offering switcher lists the same rows), finds the URL's offering among them,
and refuses everyone else: anonymous visitors are sent to log in, a signed-in user without one of
the roles in *that* offering gets the friendly 403 page, and an unknown offering is a 404. The
view then runs with `request.offering`, `request.course` (the offering's course: the book and
bank) and `request.offering_role`; every row it reads must belong to `request.offering`.

Site-wide roles sit beside the offerings: authors write the question bank (the studio), site
administrators create, copy and archive offerings and name their instructors. A superuser holds
both. Neither is a role in any offering, so neither opens an offering's pages by itself.
"""

from __future__ import annotations

import copy
import threading
import time
from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import router
from django.db.models import OuterRef, Subquery
from django.db.models.signals import post_delete, post_save
from django.http import Http404, HttpRequest

from .middleware import activate_offering_zone
from .models import Course, Enrollment, Offering, Role, SiteRole, SiteRoleKind
from .prepared import PreparedLookup

STAFF = {Role.INSTRUCTOR, Role.TEACHING_ASSISTANT}
EVERYONE = {Role.STUDENT, Role.TEACHING_ASSISTANT, Role.INSTRUCTOR}

# ---------------------------------------------------------------- the site's book and bank

# The site's course (the book and the question bank) is read by the book's pages and the
# studio, and it never decides access: each process keeps it for at most COURSE_TTL_SECONDS and
# forgets it at once when this process saves or deletes a course.
COURSE_TTL_SECONDS = 60.0
_course_lock = threading.Lock()
_course: tuple[float, Course] | None = None


def site_course() -> Course:
    """The book and bank this site serves (settings.COURSE_SLUG): a copy per call."""
    global _course
    held = _course
    if held is None or time.monotonic() - held[0] > COURSE_TTL_SECONDS:
        held = (time.monotonic(), Course.objects.current())
        with _course_lock:
            _course = held
    elif held[1].slug != settings.COURSE_SLUG:  # a test or a command switched the course
        forget_course()
        return site_course()
    return copy.copy(held[1])


def forget_course(**_signal) -> None:
    global _course
    with _course_lock:
        _course = None


post_save.connect(forget_course, sender=Course, dispatch_uid="roles-forget-course-save")
post_delete.connect(forget_course, sender=Course, dispatch_uid="roles-forget-course-delete")

# ---------------------------------------------------------------- roles in offerings


def _enrollments(*, user_id):
    return (
        Enrollment.objects.filter(user_id=user_id, is_active=True)
        .select_related("offering__course")
        .order_by("offering__is_archived", "-offering__created_at", "offering__title")
    )


# Every offering page reads it for its header (measured: building this queryset cost about as
# much as the rest of a warm attempt page); compiled once per process (courseware/prepared.py).
_ENROLLMENTS = PreparedLookup(_enrollments, "user_id")


def enrollments_of(user) -> list[Enrollment]:
    """The user's enrolments with their offerings (and courses), current ones first: one query,
    kept on the user object for this request."""
    if not user.is_authenticated:
        return []
    held = user.__dict__.get("_enrollments")
    if held is None:
        held = _ENROLLMENTS.all(using=router.db_for_read(Enrollment), user_id=user.pk)
        user.__dict__["_enrollments"] = held
        user.__dict__.setdefault("_offering_roles", {}).update(
            {e.offering_id: e.role for e in held}
        )
    return held


def enrolled_role(user_id, offering_id) -> Subquery:
    """The user's role as a subquery, for a view whose own query carries it (one round trip
    instead of two); `offering_id` may be an OuterRef. Hand the value to `remember_role`."""
    return Subquery(
        Enrollment.objects.filter(user_id=user_id, offering_id=offering_id, is_active=True)
        .order_by()
        .values("role")[:1]
    )


def remember_role(user, offering, role: str | None) -> None:
    user.__dict__.setdefault("_offering_roles", {})[offering.pk] = role


def role_of(user, offering: Offering | None) -> str | None:
    """The user's role in the offering (None: not enrolled), cached for this request."""
    if offering is None or not user.is_authenticated:
        return None
    cache = user.__dict__.setdefault("_offering_roles", {})
    if offering.pk not in cache:
        cache[offering.pk] = next(
            iter(
                Enrollment.objects.filter(user_id=user.pk, offering_id=offering.pk, is_active=True)
                .order_by()
                .values_list("role", flat=True)[:1]
            ),
            None,
        )
    return cache[offering.pk]


def has_role(user, offering: Offering, *roles: str) -> bool:
    return role_of(user, offering) in roles


def refuse_unless(role: str | None, allowed) -> None:
    """The friendly 403 for a user whose role is not one of `allowed`."""
    if role in allowed:
        return
    if set(allowed) >= EVERYONE:
        raise PermissionDenied("This page is for the offering's students and staff.")
    names = [Role(r).label.lower() + "s" for r in Role.values if r in allowed]
    raise PermissionDenied("This page is for the offering's " + " and ".join(names) + ".")


def offering_and_role(user, slug: str) -> tuple[Offering, str | None]:
    """The offering named `slug` and the user's role in it; 404 when there is no such
    offering. A member's answer costs the one enrolments query."""
    for enrollment in enrollments_of(user):
        if enrollment.offering.slug == slug:
            return enrollment.offering, enrollment.role
    offering = Offering.objects.select_related("course").filter(slug=slug).first()
    if offering is None:
        raise Http404("No such offering.")
    return offering, None


def enter(request: HttpRequest, offering: Offering, role: str | None) -> None:
    """What every offering view may rely on (and its dates in the offering's time zone for a
    reader whose account has none yet)."""
    request.offering = offering
    request.course = offering.course
    request.offering_role = role
    activate_offering_zone(request, offering)


def offering_role_required(*roles: str):
    """Decorate a view whose URL carries `<slug:offering>` so only users enrolled there with one
    of `roles` reach it; the view is called without the `offering` keyword."""
    allowed = set(roles) or EVERYONE

    def decorator(view):
        @wraps(view)
        def wrapper(request: HttpRequest, *args, offering: str, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            found, role = offering_and_role(request.user, offering)
            refuse_unless(role, allowed)
            enter(request, found, role)
            return view(request, *args, **kwargs)

        wrapper.offering_roles = frozenset(allowed)
        return wrapper

    return decorator


instructor_required = offering_role_required(Role.INSTRUCTOR)
staff_required = offering_role_required(Role.INSTRUCTOR, Role.TEACHING_ASSISTANT)
student_required = offering_role_required(Role.STUDENT)
enrolled_required = offering_role_required(Role.STUDENT, Role.TEACHING_ASSISTANT, Role.INSTRUCTOR)

# ---------------------------------------------------------------- site-wide roles


def site_roles(user) -> frozenset[str]:
    """The user's site-wide roles (a superuser holds them all), cached for this request."""
    if not user.is_authenticated:
        return frozenset()
    held = user.__dict__.get("_site_roles")
    if held is None:
        if user.is_superuser:
            held = frozenset(SiteRoleKind.values)
        else:
            held = frozenset(
                SiteRole.objects.filter(user_id=user.pk).values_list("role", flat=True)
            )
        user.__dict__["_site_roles"] = held
    return held


def is_author(user) -> bool:
    return SiteRoleKind.AUTHOR in site_roles(user)


def is_site_admin(user) -> bool:
    return SiteRoleKind.ADMINISTRATOR in site_roles(user)


def site_role_required(kind: str):
    """Decorate a site-wide view for holders of the site role `kind`; the view gets
    `request.course`, the site's book and bank."""
    label = SiteRoleKind(kind).label.lower()

    def decorator(view):
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if kind not in site_roles(request.user):
                raise PermissionDenied(f"This page is for the site's {label}s.")
            request.course = site_course()
            return view(request, *args, **kwargs)

        wrapper.site_role = kind
        return wrapper

    return decorator


author_required = site_role_required(SiteRoleKind.AUTHOR)
site_admin_required = site_role_required(SiteRoleKind.ADMINISTRATOR)


def offering_role_annotation(user_id) -> Subquery:
    """The user's role in the row's offering (for a queryset of offerings)."""
    return enrolled_role(user_id, OuterRef("pk"))
